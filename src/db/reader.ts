/**
 * A read-only SQLite connection on a worker thread (src/db/read-worker.mjs). better-sqlite3 runs
 * every query on the calling thread, so a search ranking thousands of matches (10–30 ms) would stop
 * every other request for that long; on the thread it runs beside them, on another core. WAL mode
 * lets the thread read while the server's connection writes; each query sees the database as last
 * committed (so never a transaction still open on the server's connection).
 */
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';

export interface SqliteReader {
  /**
   * Runs one read-only query on the thread.
   * @returns its rows
   * @throws an Error with SQLite's message and `code` when the query fails, or when the thread
   *   stopped (it is started again for the next query).
   */
  all<R>(query: CompiledQuery<R>): Promise<R[]>;
  /** Stops the thread; queries still running fail. */
  close(): Promise<void>;
}

interface Pending {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

/**
 * Starts the thread lazily, on the first query, for the SQLite file at `path`.
 * @param options.cacheMb the thread connection's page cache, MiB (default SQLite's 2 MiB)
 */
export function createSqliteReader(path: string, options: { cacheMb?: number } = {}): SqliteReader {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const start = (): Worker => {
    const w = new Worker(new URL('./read-worker.mjs', import.meta.url), { workerData: { path, cacheMb: options.cacheMb } });
    w.unref();
    w.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) w.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else p.resolve(m.rows ?? []);
    });
    w.on('error', (err) => failAll(err));
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new Error(`the SQLite read thread stopped (exit code ${code})`));
    });
    return w;
  };

  return {
    all<R>(query: CompiledQuery<R>): Promise<R[]> {
      worker ??= start();
      const id = nextId++;
      const w = worker;
      return new Promise<R[]>((resolve, reject) => {
        if (pending.size === 0) w.ref(); // keeps the process up while a query runs
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        w.postMessage({ id, sql: query.sql, parameters: query.parameters });
      });
    },
    async close(): Promise<void> {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
