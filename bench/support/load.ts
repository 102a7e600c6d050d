/**
 * autocannon's loads against a server in a child process, with the server's CPU time per answered
 * request, and loads taken in turns (sliced) so that whatever else the machine does meanwhile falls
 * on each of them alike.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import autocannon from 'autocannon';

export const CONNECTIONS = 100;
/** How long after its start a load's latencies are left out (see load). */
const OPENING_MS = 250;

export interface Load {
  rps: number;
  p99: number;
  p50: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  errors: number;
  /** CPU time of the server process (all its threads) per answered request, in µs; NaN off Linux. */
  cpuPerRequest: number;
  /** Of it, the kernel's (system calls: the sockets' reads and writes). */
  systemCpuPerRequest: number;
  /** Answered requests, and the seconds they took: what slices of one load add up. */
  requests: number;
  seconds: number;
}

export const SKIPPED: Load = {
  rps: Number.NaN,
  p99: Number.NaN,
  p50: Number.NaN,
  statuses: {},
  errors: 0,
  cpuPerRequest: Number.NaN,
  systemCpuPerRequest: Number.NaN,
  requests: 0,
  seconds: 0,
};

/** The CPU time a process has used so far in user space and in the kernel, in µs (Linux /proc; clock ticks of 10 ms). */
function processCpuMicros(pid: number | undefined): { user: number; system: number } {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) * 10_000, system: Number(fields[12]) * 10_000 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** What a load may leave the server to do after it (the bookkeeping its requests left, written behind them). */
export type Settle = () => Promise<void>;

/**
 * One load of `options.duration` seconds with CONNECTIONS connections; with `settle`, what the load
 * left behind is done before its CPU time is read and counts in its seconds too.
 */
export async function load(server: ChildProcess, options: autocannon.Options & { duration: number }, settle?: Settle, latencies?: number[]): Promise<Load> {
  const cpuBefore = processCpuMicros(server.pid);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ connections: CONNECTIONS, ...options }, (error: unknown, done: autocannon.Result) => (error ? reject(error as Error) : resolve(done)));
    // The latencies once the connections are open: each load opens all of them at once, whose first
    // answers wait for one another's connecting (counted in its throughput and CPU all the same).
    const steadyFrom = performance.now() + OPENING_MS;
    if (latencies) instance.on('response', (_client, _status, _bytes, milliseconds) => performance.now() >= steadyFrom && latencies.push(milliseconds));
  });
  const settling = performance.now();
  await settle?.();
  const settledIn = (performance.now() - settling) / 1000;
  const cpuAfter = processCpuMicros(server.pid);
  const answered = Math.max(result.requests.total, 1);
  const systemCpuPerRequest = (cpuAfter.system - cpuBefore.system) / answered;
  const cpuPerRequest = (cpuAfter.user - cpuBefore.user) / answered + systemCpuPerRequest;
  const statuses: Record<string, number> = {};
  for (const [key, value] of Object.entries(result as unknown as Record<string, unknown>)) {
    if (/^[1-5]xx$/.test(key) && typeof value === 'number' && value) statuses[key] = value;
  }
  const { p99, p50 } = result.latency;
  return { rps: result.requests.average, p99, p50, statuses, errors: result.errors, cpuPerRequest, systemCpuPerRequest, requests: result.requests.total, seconds: options.duration + settledIn };
}

/** The latency below which `share` of the answers came, in ms. */
function percentile(sorted: number[], share: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] : Number.NaN;
}

/** Slices of one load as one: throughput and CPU over all of them, and the percentiles of every answer's latency (`latencies`). */
export function combined(slices: Load[], latencies: number[]): Load {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  const seconds = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  const weighted = (pick: (slice: Load) => number) => slices.reduce((sum, slice) => sum + pick(slice) * slice.requests, 0) / Math.max(requests, 1);
  const statuses: Record<string, number> = {};
  for (const slice of slices) for (const [status, count] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rps: requests / seconds,
    p99: percentile(sorted, 0.99),
    p50: percentile(sorted, 0.5),
    statuses,
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
    cpuPerRequest: weighted((slice) => slice.cpuPerRequest),
    systemCpuPerRequest: weighted((slice) => slice.systemCpuPerRequest),
    requests,
    seconds,
  };
}

/**
 * The loads of one round, each for `seconds`, taken in turns of `slice` seconds (A, B, C, A, B, C, …):
 * a burst of other work on the machine, which in one load of 10 s fell on one load alone and swung
 * its ratio to the next by a third, falls on each of them alike. Each slice ends with `settle`: the
 * writes one load's requests left behind are its own cost, not the next slice's.
 */
export async function sliced(server: ChildProcess, loads: Record<string, autocannon.Options>, seconds: number, slice: number, settle?: Settle): Promise<Record<string, Load>> {
  const parts: Record<string, Load[]> = Object.fromEntries(Object.keys(loads).map((name) => [name, []]));
  const latencies: Record<string, number[]> = Object.fromEntries(Object.keys(loads).map((name) => [name, []]));
  for (let done = 0; done < seconds; done += slice) {
    const duration = Math.min(slice, seconds - done);
    for (const [name, options] of Object.entries(loads)) parts[name].push(await load(server, { ...options, duration }, settle, latencies[name]));
  }
  return Object.fromEntries(Object.entries(parts).map(([name, slices]) => [name, combined(slices, latencies[name])]));
}
