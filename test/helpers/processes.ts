/**
 * The real server as a child process (`bin/tipjar.js serve`, what `npm start` runs), for tests of
 * crashes and restarts: a free loopback port, start-and-wait-for-listening, exit waits, polling.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/tipjar.js', import.meta.url));

/** What a finished `tipjar` command printed, and its exit code. */
export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs the real `tipjar` command (bin/tipjar.js, as an operator would) with `args` in the project
 * root, its environment `env` (whole: pass `process.env` entries yourself), for at most
 * `timeoutMs`. Resolves with what it printed and its exit code, also when it fails.
 */
export async function runTipjar(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env,
      timeout: timeoutMs,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: unknown };
    return { stdout: e.stdout, stderr: e.stderr, code: typeof e.code === 'number' ? e.code : -1 };
  }
}

/** A TCP port free on 127.0.0.1 at the moment of the call. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

export const waitForExit = (child: ChildProcess) =>
  exited(child) ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));

/** Polls `check` every 50 ms. @throws naming `what` after `ms` milliseconds */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts `tipjar serve` on a free port of 127.0.0.1 with `env`, adds it to `children` (for the
 * suite's clean-up), and waits until it listens.
 * @returns the process and its output so far (a function: the output grows).
 * @throws when the server exits before it listens.
 */
export async function startTipjar(
  env: Record<string, string>,
  children: Set<ChildProcess>,
): Promise<{ child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await until(`the server to listen:\n${output}`, () => {
    if (exited(child)) throw new Error(`server exited:\n${output}`);
    return output.includes('Tipjar listening');
  });
  return { child, output: () => output };
}
