/** Where benchmarks keep their seeded databases between runs, and the machine's load for their reports. */
import os from 'node:os';
import path from 'node:path';
import { BENCH_SIZES, type BenchSizes } from '../../packages/server/src/modules/bench-seed/service.ts';

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

/**
 * BENCH_SCALE: how many times section 9's data set the list and statistics benches seed (1:
 * 1,000,000 TANs and licenses and 200,000 users; 10: ten million each and 2,000,000 users). A scale
 * has a PostgreSQL database of its own (lm_bench, lm_bench_10x, …; BENCH_DATABASE_URL overrides)
 * and, above 1, runs on PostgreSQL only (BENCH_DATABASES overrides): the targets stand at 1M on SQLite.
 */
export function benchScale(): number {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  if (!Number.isInteger(scale) || scale < 1) throw new Error(`BENCH_SCALE must be a whole number from 1 (got ${process.env.BENCH_SCALE})`);
  return scale;
}

export function benchSizes(): BenchSizes {
  const scale = benchScale();
  return { ...BENCH_SIZES, users: BENCH_SIZES.users * scale, tans: BENCH_SIZES.tans * scale, licenses: BENCH_SIZES.licenses * scale };
}

export function benchPostgresUrl(): string {
  const scale = benchScale();
  return process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${scale === 1 ? 'lm_bench' : `lm_bench_${scale}x`}`;
}

export function benchDatabases(): ('sqlite' | 'postgres')[] {
  return (process.env.BENCH_DATABASES ?? (benchScale() === 1 ? 'sqlite,postgres' : 'postgres')).split(',') as ('sqlite' | 'postgres')[];
}

/** "1,000,000 licenses" or "10,000,000 licenses": what a scenario's description names. */
export function benchLicensesText(): string {
  return `${benchSizes().licenses.toLocaleString('en')} licenses`;
}
