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

/** V8 young-generation size of each read thread, MiB. */
const THREAD_YOUNG_GENERATION_MB = 4;

/** One read thread and the queries it has not answered yet. */
interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * Starts up to `threads` read threads for the SQLite file at `path`, lazily: a query goes to an
 * idle thread, starting one while fewer than `threads` run, else to the one with the fewest
 * queries waiting. So one slow query (a word matching the whole catalogue) does not hold up the
 * others.
 * @param options.threads most threads (default 1)
 */
export function createSqliteReader(path: string, options: { threads?: number } = {}): SqliteReader {
  const maxThreads = Math.max(1, options.threads ?? 1);
  const threads: Thread[] = [];
  let nextId = 1;

  const start = (): Thread => {
    const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), {
      workerData: { path },
      // A thread allocates little (one message and its rows per query): a small young generation
      // keeps its memory small (V8's default would let each thread's grow to tens of MB).
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    });
    const thread: Thread = { worker, pending: new Map() };
    const failAll = (err: Error) => {
      for (const p of thread.pending.values()) p.reject(err);
      thread.pending.clear();
    };
    worker.unref();
    worker.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = thread.pending.get(m.id);
      if (!p) return;
      thread.pending.delete(m.id);
      if (thread.pending.size === 0) worker.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else p.resolve(m.rows ?? []);
    });
    worker.on('error', (err) => failAll(err));
    worker.on('exit', (code) => {
      const i = threads.indexOf(thread);
      if (i >= 0) threads.splice(i, 1);
      failAll(new Error(`the SQLite read thread stopped (exit code ${code})`));
    });
    threads.push(thread);
    return thread;
  };

  const pick = (): Thread => {
    let best: Thread | undefined;
    for (const t of threads) if (!best || t.pending.size < best.pending.size) best = t;
    if (!best || (best.pending.size > 0 && threads.length < maxThreads)) return start();
    return best;
  };

  return {
    all<R>(query: CompiledQuery<R>): Promise<R[]> {
      const thread = pick();
      const id = nextId++;
      return new Promise<R[]>((resolve, reject) => {
        if (thread.pending.size === 0) thread.worker.ref(); // keeps the process up while a query runs
        thread.pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        thread.worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
      });
    },
    async close(): Promise<void> {
      const all = threads.splice(0);
      await Promise.all(all.map((t) => t.worker.terminate()));
    },
  };
}
