/**
 * Loads a chunk together with the styles of the components beyond the first screen (more.ts). The
 * styles' <link> goes into the page first, so that a page's own CSS modules still come after
 * Mantine's and win ties, as with the single styles.css before. A build inserts the <link>s when
 * the loads start, so both load at once; the dev server inserts styles as modules run, so there
 * the chunk waits for them.
 */
export function withMoreStyles<T>(load: () => Promise<T>): Promise<T> {
  const styles = import('./more.ts');
  const chunk = import.meta.env.DEV ? styles.then(load) : load();
  return Promise.all([styles, chunk]).then(([, module]) => module);
}
