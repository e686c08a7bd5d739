/**
 * Files of `tipjar backup` and `tipjar restore`: a backup is written to a temporary file next to
 * its name (mode 0600: it holds personal data and the hashes of secrets), synced, then moved
 * under its name in one rename, so a crash never leaves a partial backup under the name; an
 * existing file is replaced only when asked.
 */
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';

/**
 * A refusal or failure of a backup or restore, with a message for the operator (what was wrong,
 * what to do). Whatever raised it changed nothing, unless its message says otherwise.
 */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Mode of backup files and of databases restored: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Checks that a backup may be written to `file` before any work starts.
 * @param protect paths that must never be replaced (the live database and its -wal/-shm files)
 * @returns the absolute path of `file`
 * @throws BackupError when its folder does not exist, when it exists and `replace` is false, when
 *   it is a folder, or when it is one of `protect`
 */
export function checkDestination(file: string, options: { replace: boolean; protect?: string[] }): string {
  const target = resolve(file);
  const folder = dirname(target);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new BackupError(`no such folder: ${folder} (create it first)`);
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  for (const p of options.protect ?? [])
    if (real(target) === real(p))
      throw new BackupError(`${file} is the live database (or one of its files): choose another name`);
  if (existsSync(target)) {
    if (statSync(target).isDirectory()) throw new BackupError(`${file} is a folder: name a file`);
    if (!options.replace)
      throw new BackupError(`${file} exists already: choose another name, or pass --force to replace it`);
  }
  return target;
}

/**
 * Creates an empty file with mode 0600 next to `target` (same folder, so a rename can move it
 * under `target`): `.<name>.<pid>-<random>.tmp`.
 * @returns its path
 */
export function createTempFile(target: string): string {
  const temp = resolve(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  closeSync(openSync(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE));
  return temp;
}

/** Removes files that may or may not exist (a temporary file and SQLite's files beside it). */
export function removeQuietly(...paths: string[]): void {
  for (const p of paths) rmSync(p, { force: true });
}

/** Writes a file's data to the disk (fsync). */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a folder's entries to the disk (fsync), so a rename in it survives a power loss. */
export function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Not every file system syncs folders (EISDIR, EINVAL): nothing more can be done there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Moves the finished (synced) `temp` under `target` in one step. With `replace`, a file at
 * `target` is replaced (rename); without, it is never replaced: `target` is linked to `temp`, which
 * fails when a file appeared there meanwhile. Then the folder is synced.
 * @throws BackupError when `target` exists and `replace` is false (`temp` is removed)
 */
export function publish(temp: string, target: string, options: { replace: boolean }): void {
  if (options.replace) {
    renameSync(temp, target);
  } else {
    try {
      linkSync(temp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        removeQuietly(temp);
        throw new BackupError(`${target} exists already: choose another name, or pass --force to replace it`);
      }
      // File systems without hard links: a check, then the rename (the check is as old as the rename).
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK') throw err;
      if (existsSync(target)) {
        removeQuietly(temp);
        throw new BackupError(`${target} exists already: choose another name, or pass --force to replace it`);
      }
      renameSync(temp, target);
    }
    removeQuietly(temp);
  }
  syncFolder(dirname(target));
}

/** The first bytes of a file (fewer when it is shorter), or undefined when it cannot be read. */
export function fileMagic(path: string, length = 16): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(length);
    return buf.subarray(0, readSync(fd, buf, 0, length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a backup file holds, by its first bytes: a SQLite database, a pg_dump custom archive, or neither. */
export function backupKind(path: string): 'sqlite' | 'postgres' | 'unknown' {
  const magic = fileMagic(path);
  if (!magic) return 'unknown';
  if (magic.subarray(0, 16).toString('latin1') === 'SQLite format 3\0') return 'sqlite';
  if (magic.subarray(0, 5).toString('latin1') === 'PGDMP') return 'postgres';
  return 'unknown';
}

/** A timestamp for file and schema names: `20261127T121530Z` (UTC). */
export function stamp(date = new Date()): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}
