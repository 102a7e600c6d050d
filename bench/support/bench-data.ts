/** Where benchmarks keep their seeded databases between runs, and the machine's load for their reports. */
import os from 'node:os';
import path from 'node:path';

/** BENCH_DATA_DIR, or a folder in the system's temporary folder: outside the repository, kept between runs. */
export function benchDataDir(): string {
  return process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'lm-bench');
}

/** The load average (1, 5, 15 minutes) and the number of CPUs: other work on the machine shows in every figure. */
export function machineLoad(): string {
  return `load average ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} on ${os.cpus().length} CPUs`;
}
