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
 *
 * A thread that stops (out of memory, a bug) fails only the query it was running: each thread
 * notes the query it takes in a shared `running` slot before claiming it, so the reader knows
 * which one was lost; queries no thread had claimed are posted again (to a new thread if none is
 * left), those the other threads run are answered as usual.
 */
import { Worker } from 'node:worker_threads';
import type { CompiledQuery } from 'kysely';
import { sourceFile } from '../paths.ts';

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
  /**
   * Starts every thread not yet running and has each run `query` once, itself (not through the
   * shared queue): for a server's start, so that no request waits for a thread to boot, open the
   * database and prepare its first statements.
   * @returns how many threads ran it; never rejects (a thread that fails is started again with the
   *   next query)
   */
  warm(query: CompiledQuery<unknown>): Promise<number>;
  /** Stops the threads; queries still pending fail. */
  close(): Promise<void>;
}

/** A query's message to the threads (read-worker.mjs). */
interface QueryMessage {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  /** run by the thread it is posted to, unclaimed (`warm`) */
  own?: true;
  then?: { sql: string; parameters: readonly unknown[]; minRows: number; ifEmpty: boolean };
}

interface Pending {
  message: QueryMessage;
  /** the slot of the thread an `own` message was posted to */
  slot?: number;
  resolve(answer: { rows: unknown[]; followUpRows?: unknown[] }): void;
  reject(err: Error): void;
}

/** V8 young-generation size of each read thread, MiB. */
const THREAD_YOUNG_GENERATION_MB = 4;
/**
 * V8 old-generation bound of each read thread, MiB. A thread keeps little (its statements, one
 * query's rows at a time; SQLite's own memory is outside V8), but V8 lets an unbounded heap grow to
 * ≈ 100 MB before its first full collection; a bound makes it collect early. A thread that hit it
 * between queries would stop (only its own query fails, see `recover`); one whose rows outgrow it
 * inside better-sqlite3's native row loop cannot be stopped there and stalls — search pages hold at
 * most 100 rows and their counts one, so no search query can.
 */
const THREAD_OLD_GENERATION_MB = 32;
/**
 * Claim slots shared with the threads, indexed by query id modulo their number: a slot holds the
 * id of the last query claimed in it. A slot is reused only after this many newer queries, by
 * which time every thread has long taken or skipped the old one.
 */
const CLAIM_SLOTS = 1 << 16;
/** Most threads a reader starts (the size of the shared `running` array). */
const MAX_THREADS = 64;

/**
 * Starts up to `threads` read threads for the SQLite file at `path`, lazily: the first with the
 * first query, another one whenever a query is posted while every running thread already has one
 * to run (so a lightly used server runs one).
 * @param options.threads most threads (default 1, at most 64)
 * @param options.script the thread's module (default read-worker.mjs; tests wrap it to stop a thread)
 */
export function createSqliteReader(path: string, options: { threads?: number; script?: URL } = {}): SqliteReader {
  const maxThreads = Math.min(MAX_THREADS, Math.max(1, options.threads ?? 1));
  const claims = new Int32Array(new SharedArrayBuffer(CLAIM_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  /** running[slot]: the id of the query the thread in `slot` has taken (0: none); see read-worker.mjs */
  const running = new Int32Array(new SharedArrayBuffer(MAX_THREADS * Int32Array.BYTES_PER_ELEMENT));
  const threads: { worker: Worker; slot: number }[] = [];
  const pending = new Map<number, Pending>();
  let lastId = 0;
  let closing = false;

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const setRef = (ref: boolean) => {
    for (const { worker } of threads) {
      if (ref) worker.ref();
      else worker.unref();
    }
  };

  /**
   * After the thread in `slot` stopped: its query fails with `err`; queries no thread claimed are
   * posted again to the threads left (a new one when none is); those claimed by a thread still
   * running stay pending. A query the stopped thread was only trying to claim when another thread
   * had it already may fail too (a harmless error, never a query left waiting). `answered`: whether
   * the thread ever answered a query.
   */
  const recover = (slot: number, answered: boolean, err: Error) => {
    const lost = Atomics.exchange(running, slot, 0);
    // A thread that stopped before it took or answered any query could not start (the database
    // cannot be opened, say): another one would not either, so everything pending fails.
    if (lost === 0 && !answered) return failAll(err);
    const runningElsewhere = new Set(threads.map((t) => Atomics.load(running, t.slot)));
    const unclaimed: QueryMessage[] = [];
    for (const [id, p] of pending) {
      if (p.message.own) {
        // Posted to one thread only: it fails with that thread, and is never posted again.
        if (p.slot === slot) {
          pending.delete(id);
          p.reject(err);
        }
      } else if (Atomics.load(claims, id % CLAIM_SLOTS) !== id) unclaimed.push(p.message);
      else if (id === lost && !runningElsewhere.has(id)) {
        pending.delete(id);
        p.reject(err);
      }
    }
    if (pending.size === 0) setRef(false);
    if (unclaimed.length === 0) return;
    if (threads.length === 0) start();
    for (const message of unclaimed) for (const { worker } of threads) worker.postMessage(message);
  };

  const start = (): Worker => {
    const used = new Set(threads.map((t) => t.slot));
    let slot = 0;
    while (used.has(slot)) slot++;
    Atomics.store(running, slot, 0);
    const worker = new Worker(options.script ?? sourceFile('db/read-worker.mjs'), {
      workerData: { path, claims, running, slot },
      // A thread allocates little (one message and its rows per query): small generations keep
      // its memory small (V8's defaults would let each thread's heap grow to tens of MB).
      resourceLimits: {
        maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB,
        maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB,
      },
    });
    if (pending.size === 0) worker.unref();
    let answered = false;
    worker.on(
      'message',
      (m: { id: number; rows?: unknown[]; followUpRows?: unknown[]; error?: { message: string; code?: string } }) => {
        answered = true;
        const p = pending.get(m.id);
        if (!p) return;
        pending.delete(m.id);
        if (pending.size === 0) setRef(false);
        if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
        else p.resolve({ rows: m.rows ?? [], ...(m.followUpRows ? { followUpRows: m.followUpRows } : {}) });
      },
    );
    // A thread stops only on a bug or out of memory ('error' comes first, then 'exit').
    let failure: Error | undefined;
    worker.on('error', (err) => {
      failure = err;
    });
    worker.on('exit', (code) => {
      const i = threads.findIndex((t) => t.worker === worker);
      if (i >= 0) threads.splice(i, 1);
      const why = failure?.message || (failure as { code?: string } | undefined)?.code || `exit code ${code}`;
      const err = new Error(`the SQLite read thread stopped: ${why}`, failure ? { cause: failure } : undefined);
      if (closing) failAll(err);
      else recover(slot, answered, err);
    });
    threads.push({ worker, slot });
    return worker;
  };

  const nextId = () => (lastId = lastId >= 0x7fffffff ? 1 : lastId + 1);

  /** `warm`'s query on one thread: posted to it alone, run without a claim. */
  const runOn = ({ worker, slot }: { worker: Worker; slot: number }, query: CompiledQuery<unknown>) =>
    new Promise<{ rows: unknown[] }>((resolve, reject) => {
      const message: QueryMessage = { id: nextId(), sql: query.sql, parameters: query.parameters, own: true };
      if (pending.size === 0) setRef(true);
      pending.set(message.id, { message, slot, resolve, reject });
      worker.postMessage(message);
    });

  const post = (query: CompiledQuery<unknown>, followUp?: FollowUp<unknown>) => {
    if (threads.length === 0 || (pending.size >= threads.length && threads.length < maxThreads)) start();
    const id = nextId();
    return new Promise<{ rows: unknown[]; followUpRows?: unknown[] }>((resolve, reject) => {
      if (pending.size === 0) setRef(true); // keeps the process up while a query is pending
      const message: QueryMessage = {
        id,
        sql: query.sql,
        parameters: query.parameters,
        ...(followUp
          ? {
              then: {
                sql: followUp.query.sql,
                parameters: followUp.query.parameters,
                minRows: followUp.minRows,
                ifEmpty: followUp.ifEmpty,
              },
            }
          : {}),
      };
      pending.set(id, { message, resolve, reject });
      for (const { worker } of threads) worker.postMessage(message);
    });
  };

  return {
    async all<R>(query: CompiledQuery<R>): Promise<R[]> {
      return (await post(query)).rows as R[];
    },
    async allThen<R, F>(query: CompiledQuery<R>, followUp: FollowUp<F>): Promise<{ rows: R[]; followUpRows?: F[] }> {
      return (await post(query, followUp)) as { rows: R[]; followUpRows?: F[] };
    },
    async warm(query: CompiledQuery<unknown>): Promise<number> {
      while (threads.length < maxThreads) start();
      const ran = await Promise.all(
        threads.map((thread) =>
          runOn(thread, query).then(
            () => true,
            () => false,
          ),
        ),
      );
      return ran.filter(Boolean).length;
    },
    async close(): Promise<void> {
      closing = true;
      const all = threads.splice(0);
      await Promise.all(all.map(({ worker }) => worker.terminate()));
      failAll(new Error('the SQLite read threads were closed'));
    },
  };
}
