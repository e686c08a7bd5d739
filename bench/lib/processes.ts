/**
 * Child processes of the bench (the hello-world baseline and the Tipjar servers): start on a free
 * 127.0.0.1 port, wait until they answer ready (/healthz, or /readyz for Tipjar), sample memory from
 * /proc, stop, and make sure none outlives the bench (also on error, Ctrl-C or an uncaught exception).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const live = new Set<ChildProcess>();

/** Kills every child still running, synchronously (SIGKILL): for process exit paths. */
export function killAllNow(): void {
  for (const child of live) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  live.clear();
}

let guarded = false;
/** Installs exit/signal handlers that kill every child the bench started. Idempotent. */
export function guardChildren(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping child processes`);
      killAllNow();
      process.exit(130);
    });
  }
}

/** A TCP port free on 127.0.0.1 at the time of the call (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Server {
  name: string;
  port: number;
  pid: number;
  url: string;
  logFile: string;
  child: ChildProcess;
  /** milliseconds from the spawn to the first 200 of the ready path */
  readyMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Spawns `node <args>` with `env` plus PORT/HOST (`port`, else a free one), logging stdout+stderr to
 * `<logDir>/<name>.log`, and waits (at most `readyTimeoutMs`) until GET `readyPath` (default
 * /healthz) answers 200, polling every 20 ms; `readyMs` is the time from the spawn to that answer.
 * @throws when the process exits early or never becomes ready (it is killed first).
 */
export async function startServer(opts: {
  name: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  logDir: string;
  readyTimeoutMs?: number;
  readyPath?: string;
  port?: number;
}): Promise<Server> {
  const port = opts.port ?? (await freePort());
  const spawnedAt = performance.now();
  mkdirSync(opts.logDir, { recursive: true });
  const logFile = join(opts.logDir, `${opts.name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, opts.args, {
    cwd: opts.cwd,
    env: { ...opts.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('exit', () => {
    live.delete(child);
    log.end();
  });
  if (child.pid === undefined) throw new Error(`${opts.name}: could not start ${process.execPath}`);
  const server: Server = {
    name: opts.name,
    port,
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    logFile,
    child,
    readyMs: 0,
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const res = await fetch(`${server.url}${opts.readyPath ?? '/healthz'}`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) {
        server.readyMs = Math.round(performance.now() - spawnedAt);
        return server;
      }
    } catch {
      /* not listening yet */
    }
    await sleep(20);
  }
  await stopServer(server);
  let tail = '';
  try {
    tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    /* no log */
  }
  throw new Error(`${opts.name} did not become ready on port ${port} (see ${logFile}):\n${tail}`);
}

/** SIGTERM, then SIGKILL after `graceMs` if it has not exited. Resolves once it is gone. */
export async function stopServer(server: Server, graceMs = 10_000): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** Reads a `VmRSS`/`VmHWM`-style line of /proc/<pid>/status, in kB; undefined when unavailable. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls VmRSS of the given processes every `intervalMs` and keeps the peak per pid; `stop()` also
 * reads VmHWM (the kernel's own high-water mark, covering start-up too) and returns the larger.
 */
export function sampleRss(pids: number[], intervalMs = 200): { stop(): Record<number, number> } {
  const peakKb = new Map<number, number>(pids.map((p) => [p, 0]));
  const poll = () => {
    for (const pid of pids) {
      const kb = procStatusKb(pid, 'VmRSS');
      if (kb !== undefined && kb > (peakKb.get(pid) ?? 0)) peakKb.set(pid, kb);
    }
  };
  poll();
  const timer = setInterval(poll, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      poll();
      const out: Record<number, number> = {};
      for (const pid of pids) {
        const hwm = procStatusKb(pid, 'VmHWM') ?? 0;
        out[pid] = Math.max(hwm, peakKb.get(pid) ?? 0);
      }
      return out;
    },
  };
}

/**
 * The `node` flags of the project's `npm start` script (package.json `scripts.start`, of the form
 * `node [--flag …] bin/tipjar.js serve`), so the bench runs the server as a newcomer does.
 * @param root the project's root folder
 * @throws Error when the start script does not have that form (the bench would measure something else)
 */
export function startScriptNodeFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').trim().split(/\s+/);
  const script = words.findIndex((w) => !w.startsWith('-') && w !== 'node');
  if (
    words[0] !== 'node' ||
    words[script] !== 'bin/tipjar.js' ||
    words[script + 1] !== 'serve' ||
    script + 2 !== words.length
  ) {
    throw new Error(
      `package.json scripts.start is not "node [--flag …] bin/tipjar.js serve": ${JSON.stringify(pkg.scripts?.start)}`,
    );
  }
  return words.slice(1, script);
}
