/**
 * Load generation with autocannon's programmatic API. One target: one autocannon instance with all
 * connections. Several targets (one per server process): one instance per target in parallel, the
 * connections split between them, throughput summed and latency histograms merged.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** user+system CPU time of a process so far, ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export interface LoadFigures {
  /** responses per second, all statuses */
  reqPerSec: number;
  /** 2xx responses per second */
  okPerSec: number;
  /** latency of 2xx responses, ms (autocannon's histogram has 1 ms resolution) */
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  responses: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  durationS: number;
  connections: number;
  /** CPU the server processes used per response, µs (user + system, /proc) */
  serverCpuUsPerReq: number;
  /** CPU cores the server processes kept busy on average */
  serverCores: number;
  /** CPU cores the bench process itself (autocannon) kept busy on average */
  loadGenCores: number;
}

/** Builds the request list of one autocannon instance: `instance` of `instances`. */
export type RequestsFactory = (instance: number, instances: number) => autocannon.Request[];

interface RawResult {
  totalCompletedRequests: number;
  duration: number;
  '2xx': number;
}

const split = (total: number, k: number, i: number) => Math.floor(total / k) + (i < total % k ? 1 : 0);

/**
 * Loads every base URL in `targets` at once, with `connections` in total, for `durationS` seconds,
 * or, when `amount` is given, until exactly `amount` responses arrived (each connection stops after
 * its share, so no request is left in flight: what the tip durability check needs).
 */
export async function runLoad(opts: {
  targets: string[];
  connections: number;
  durationS: number;
  amount?: number;
  requests: RequestsFactory;
  /** server pids whose CPU time is reported */
  pids?: number[];
  title?: string;
}): Promise<LoadFigures> {
  const k = opts.targets.length;
  const pids = opts.pids ?? [];
  const cpu0 = pids.reduce((a, p) => a + processCpuMs(p), 0);
  const self0 = process.cpuUsage();
  const started = performance.now();
  const lastResponse = opts.targets.map(() => started);
  const runs = opts.targets.map((url, i) => {
    const connections = split(opts.connections, k, i);
    const instance = autocannon({
      url,
      connections,
      ...(opts.amount !== undefined
        ? { amount: Math.max(connections, split(opts.amount, k, i)) }
        : { duration: opts.durationS }),
      pipelining: 1,
      timeout: 10,
      requests: opts.requests(i, k),
      skipAggregateResult: true,
      ...(opts.title ? { title: opts.title } : {}),
    });
    instance.on('response', () => {
      lastResponse[i] = performance.now();
    });
    return instance;
  });
  const raws = (await Promise.all(runs.map((r) => Promise.resolve(r)))) as unknown as RawResult[];
  const wallMs = performance.now() - started;
  const serverCpuMs = pids.reduce((a, p) => a + processCpuMs(p), 0) - cpu0;
  const selfCpu = process.cpuUsage(self0);
  const agg = autocannon.aggregateResult(raws, { url: opts.targets[0]!, connections: opts.connections });
  // Per instance: completed responses over its own elapsed time; instances run side by side, so sum.
  // In `amount` mode autocannon's own duration includes up to a second of idle time after the last
  // response (it stops on its 1 s sampling tick), so the elapsed time is measured here instead.
  let reqPerSec = 0;
  let okPerSec = 0;
  raws.forEach((r, i) => {
    const d =
      opts.amount !== undefined ? (lastResponse[i]! - started) / 1000 : r.duration > 0 ? r.duration : opts.durationS;
    reqPerSec += r.totalCompletedRequests / d;
    okPerSec += r['2xx'] / d;
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(agg.statusCodeStats ?? {})) statusCodes[code] = v.count;
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    reqPerSec: Math.round(reqPerSec),
    okPerSec: Math.round(okPerSec),
    p50Ms: agg.latency.p50,
    p99Ms: agg.latency.p99,
    meanMs: Math.round(agg.latency.mean * 100) / 100,
    maxMs: agg.latency.max,
    responses,
    ok2xx: agg['2xx'],
    non2xx: agg.non2xx,
    errors: agg.errors,
    timeouts: agg.timeouts,
    statusCodes,
    durationS:
      opts.amount !== undefined
        ? Math.round(Math.max(...lastResponse.map((t) => t - started))) / 1000
        : Math.max(...raws.map((r) => r.duration)),
    connections: opts.connections,
    serverCpuUsPerReq: responses > 0 ? Math.round((serverCpuMs * 1000) / responses) : 0,
    serverCores: Math.round((serverCpuMs / wallMs) * 100) / 100,
    loadGenCores: Math.round(((selfCpu.user + selfCpu.system) / 1000 / wallMs) * 100) / 100,
  };
}
