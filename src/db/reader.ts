/**
 * Read-only SQLite connections on worker threads (src/db/read-worker.mjs). better-sqlite3 runs
 * every query on the calling thread, so a search ranking thousands of matches (10–30 ms) would stop
 * every other request for that long; on a thread it runs beside them, on another core. WAL mode
 * lets the threads read while the server's connection writes; each query sees the database as last
 * committed (so never a transaction still open on the server's connection).
 *
 * With more than one thread the threads share one queue: every query is posted to every running
 * thread, and the first one free to run it claims it (an atomic exchange on a shared slot) while
 * the others skip it. So a slow query (a word matching the whole catalogue, 100+ ms) holds up only
 * its own thread: the queries posted after it are run by the next thread that is free, not queued
 * behind it (docs/adr/0016).
 */
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';

/**
 * A second query a read thread runs straight after the first, in the same turn, when the first
 * one's row count calls for it: e.g. counting all matches only when a search page came back full.
 * It saves a second wait in the threads' queue.
 */
export interface FollowUp<F> {
  query: CompiledQuery<F>;
  /** run it when the first query returned at least this many rows… */
  minRows: number;
  /** …or when it returned none and this is true */
  ifEmpty: boolean;
}

export interface SqliteReader {
  /**
   * Runs one read-only query on a thread.
   * @returns its rows
   * @throws an Error with SQLite's message and `code` when the query fails, or when a thread
   *   stopped while it was pending (threads are started again for the next query).
   */
  all<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * Runs `query` and, when its row count calls for it (FollowUp), `followUp.query` right after it
   * on the same thread.
   * @returns the first query's rows, and the follow-up's when it ran
   * @throws as `all`, for either query
   */
  allThen<R, F>(query: CompiledQuery<R>, followUp: FollowUp<F>): Promise<{ rows: R[]; followUpRows?: F[] }>;
  /** Stops the threads; queries still pending fail. */
  close(): Promise<void>;
}

interface Pending {
  resolve(answer: { rows: unknown[]; followUpRows?: unknown[] }): void;
  reject(err: Error): void;
}

/** V8 young-generation size of each read thread, MiB. */
const THREAD_YOUNG_GENERATION_MB = 4;
/**
 * V8 old-generation bound of each read thread, MiB. A thread keeps little (its statements, one
 * query's rows at a time; SQLite's own memory is outside V8), but V8 lets an unbounded heap grow to
 * ≈ 100 MB before its first full collection; a bound makes it collect early. A thread that hit it
 * would stop (its pending queries fail, the next query starts a new one).
 */
const THREAD_OLD_GENERATION_MB = 32;
/**
 * Claim slots shared with the threads, indexed by query id modulo their number: a slot holds the
 * id of the last query claimed in it. A slot is reused only after this many newer queries, by
 * which time every thread has long taken or skipped the old one.
 */
const CLAIM_SLOTS = 1 << 16;

/**
 * Starts up to `threads` read threads for the SQLite file at `path`, lazily: the first with the
 * first query, another one whenever a query is posted while every running thread already has one
 * to run (so a lightly used server runs one).
 * @param options.threads most threads (default 1)
 */
export function createSqliteReader(path: string, options: { threads?: number } = {}): SqliteReader {
  const maxThreads = Math.max(1, options.threads ?? 1);
  const claims = new Int32Array(new SharedArrayBuffer(CLAIM_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  const threads: Worker[] = [];
  const pending = new Map<number, Pending>();
  let lastId = 0;

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const setRef = (ref: boolean) => {
    for (const worker of threads) {
      if (ref) worker.ref();
      else worker.unref();
    }
  };

  const start = (): Worker => {
    const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), {
      workerData: { path, claims },
      // A thread allocates little (one message and its rows per query): small generations keep
      // its memory small (V8's defaults would let each thread's heap grow to tens of MB).
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB },
    });
    if (pending.size === 0) worker.unref();
    worker.on('message', (m: { id: number; rows?: unknown[]; followUpRows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) setRef(false);
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else p.resolve({ rows: m.rows ?? [], ...(m.followUpRows ? { followUpRows: m.followUpRows } : {}) });
    });
    // Which pending query the thread had claimed is not known here: all of them fail (a thread
    // stops only on a bug or out of memory), and the next query starts a thread again.
    worker.on('error', (err) => failAll(err));
    worker.on('exit', (code) => {
      const i = threads.indexOf(worker);
      if (i >= 0) threads.splice(i, 1);
      failAll(new Error(`the SQLite read thread stopped (exit code ${code})`));
    });
    threads.push(worker);
    return worker;
  };

  const post = (query: CompiledQuery<unknown>, followUp?: FollowUp<unknown>) => {
    if (threads.length === 0 || (pending.size >= threads.length && threads.length < maxThreads)) start();
    lastId = lastId >= 0x7fffffff ? 1 : lastId + 1;
    const id = lastId;
    return new Promise<{ rows: unknown[]; followUpRows?: unknown[] }>((resolve, reject) => {
      if (pending.size === 0) setRef(true); // keeps the process up while a query is pending
      pending.set(id, { resolve, reject });
      const message = {
        id,
        sql: query.sql,
        parameters: query.parameters,
        ...(followUp
          ? { then: { sql: followUp.query.sql, parameters: followUp.query.parameters, minRows: followUp.minRows, ifEmpty: followUp.ifEmpty } }
          : {}),
      };
      for (const worker of threads) worker.postMessage(message);
    });
  };

  return {
    async all<R>(query: CompiledQuery<R>): Promise<R[]> {
      return (await post(query)).rows as R[];
    },
    async allThen<R, F>(query: CompiledQuery<R>, followUp: FollowUp<F>): Promise<{ rows: R[]; followUpRows?: F[] }> {
      return (await post(query, followUp)) as { rows: R[]; followUpRows?: F[] };
    },
    async close(): Promise<void> {
      const all = threads.splice(0);
      await Promise.all(all.map((worker) => worker.terminate()));
    },
  };
}
