/**
 * PostgreSQL's client programs (`pg_dump`, `pg_restore`, `psql`) as `tipjar backup` and `tipjar
 * restore` run them: where they are found, the major version they must have, how they connect.
 *
 * A program is looked for in `PG_BIN` when that is set (only there), else on the PATH and then in
 * Debian's `/usr/lib/postgresql/<server's major version>/bin`; the first whose major version is the
 * server's is used. The same major version is asked of all three: pg_dump refuses a newer server,
 * a newer pg_dump writes archives an older pg_restore cannot read, and a newer pg_restore writes
 * settings an older server rejects.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BackupError } from './files.ts';

export type PgProgram = 'pg_dump' | 'pg_restore' | 'psql';

/** Where Debian's packages put each major version's programs (`postgresql-client-<major>`). */
export const DEBIAN_PG_BIN = '/usr/lib/postgresql/<major>/bin';

/**
 * The major version in a `--version` line (`pg_dump (PostgreSQL) 15.20 (Debian …)` → `15`;
 * `9.6.24` → `9.6`), or undefined.
 */
export function majorOf(versionLine: string): string | undefined {
  const m = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(versionLine);
  if (!m) return undefined;
  return Number(m[1]) >= 10 || m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`;
}

/** The major version of a server from its `server_version_num` (150020 → `15`, 90624 → `9.6`). */
export function serverMajorOf(versionNum: number): string {
  return versionNum >= 100_000
    ? String(Math.floor(versionNum / 10_000))
    : `${Math.floor(versionNum / 10_000)}.${Math.floor(versionNum / 100) % 100}`;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` on the PATH, or undefined. */
function onPath(name: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end, with its output collected (stdout up to `maxStdout` bytes, stderr up to
 * 64 KiB, the rest dropped).
 * @throws BackupError when it cannot be started
 */
export function runProgram(
  path: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; maxStdout?: number } = {},
): Promise<RunResult> {
  const maxStdout = options.maxStdout ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout.on('data', (d: Buffer) => {
      if (outBytes < maxStdout) out.push(d);
      outBytes += d.length;
    });
    child.stderr.on('data', (d: Buffer) => {
      if (errBytes < 65_536) err.push(d);
      errBytes += d.length;
    });
    child.once('error', (e) => reject(new BackupError(`could not run ${path}: ${e.message}`)));
    child.once('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8').trim(),
      }),
    );
  });
}

/** The major version a program reports with `--version`, or undefined when it does not run. */
async function programMajor(path: string): Promise<string | undefined> {
  try {
    const r = await runProgram(path, ['--version']);
    return r.code === 0 ? majorOf(r.stdout) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds `program` with the server's major version (see the module's comment).
 * @param pgBin the `PG_BIN` setting (a folder), or undefined
 * @returns its path
 * @throws BackupError naming where it looked and what to install or set, when it is not found or
 *   none found has the server's major version
 */
export async function findPgProgram(program: PgProgram, serverMajor: string, pgBin?: string): Promise<string> {
  const debian = DEBIAN_PG_BIN.replace('<major>', serverMajor);
  const install = `install PostgreSQL ${serverMajor}'s client programs (Debian: apt-get install postgresql-client-${serverMajor}) or set PG_BIN to the folder that holds them`;
  if (pgBin !== undefined) {
    const candidate = join(pgBin, program);
    if (!executable(candidate)) throw new BackupError(`${program} not found in PG_BIN (${pgBin}): ${install}`);
    const major = await programMajor(candidate);
    if (major !== serverMajor)
      throw new BackupError(
        `${candidate} is PostgreSQL ${major ?? '(unknown version)'}, the server is PostgreSQL ${serverMajor}: ${program} must have the server's major version; ${install}`,
      );
    return candidate;
  }
  const candidates = [onPath(program), join(debian, program)].filter(
    (p, i, all): p is string => p !== undefined && executable(p) && all.indexOf(p) === i,
  );
  if (candidates.length === 0) throw new BackupError(`${program} not found on the PATH nor in ${debian}: ${install}`);
  const seen: string[] = [];
  for (const candidate of candidates) {
    const major = await programMajor(candidate);
    if (major === serverMajor) return candidate;
    seen.push(`${candidate} is PostgreSQL ${major ?? '(unknown version)'}`);
  }
  throw new BackupError(
    `no ${program} of PostgreSQL ${serverMajor}, the server's major version (${seen.join('; ')}): ${install}`,
  );
}

/** `PG_BIN` as given, checked to be a folder. @throws BackupError when it is not one */
export function checkPgBin(pgBin: string | undefined): string | undefined {
  if (pgBin === undefined) return undefined;
  if (!existsSync(pgBin) || !statSync(pgBin).isDirectory())
    throw new BackupError(
      `PG_BIN (${pgBin}) is not a folder: set it to the folder holding pg_dump, pg_restore and psql`,
    );
  return pgBin;
}

/**
 * How the programs connect to the database of a `postgres://` URL: the URL without Tipjar's
 * `schema` parameter and without the password (which goes in `PGPASSWORD`, so it never shows in the
 * process list), for `--dbname`; other query parameters are passed on to libpq as they are.
 */
export function connectionOf(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.password = '';
  const env: NodeJS.ProcessEnv = { ...process.env, PGCONNECT_TIMEOUT: process.env.PGCONNECT_TIMEOUT ?? '10' };
  if (password !== undefined) env.PGPASSWORD = password;
  return { dbname: parsed.toString(), env };
}

/** A PostgreSQL identifier quoted for SQL (`"name"`, inner quotes doubled). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
