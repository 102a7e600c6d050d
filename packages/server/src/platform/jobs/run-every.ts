/**
 * Runs `work` every `intervalMs` in the background, one run at a time: a run still under way when the
 * next is due (a database slow to answer) is not joined by another, since runs piling up, each
 * holding a database connection, would crowd out requests. The timer keeps no process alive. Answers
 * the function that stops it. `work` handles its own failures (logs them): a rejection is not caught.
 */
export function runEvery(intervalMs: number, work: () => Promise<unknown>): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void work().finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
