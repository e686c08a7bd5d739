/**
 * WAL checkpoints on a thread of their own (src/db/checkpoint-worker.mjs). A commit in WAL mode
 * appends the transaction's pages to the log; a checkpoint copies them back into the database file
 * and fsyncs both files (milliseconds). Run by the writing connection itself (SQLite's
 * `wal_autocheckpoint`, by default every 1,000 pages), it stops the event loop for that long every
 * few group commits. The thread checkpoints with its own connection instead (`PASSIVE`: never
 * blocking the writer), after commits; the server's connection keeps an automatic checkpoint only
 * as a bound on the log (`LOG_BOUND_PAGES`) should the thread fall behind or stop.
 *
 * Durability is unchanged: a transaction is durable once its COMMIT has written it to the log (with
 * `synchronous = NORMAL` across a crash of the process, with `FULL` also across power loss, which
 * syncs the log at each commit); the checkpoint only moves committed pages from the log into the
 * database file, whoever runs it.
 */
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { sourceFile } from '../paths.ts';

/** Indexes of the shared state (see checkpoint-worker.mjs). */
const STOP = 0;
const COMMITS = 1;
const CHECKPOINTS = 2;
const LOG_FRAMES = 3;
const FAILURES = 4;
const STATE_SIZE = 5;

/**
 * Pages the log may reach before the server's connection checkpoints by itself (SQLite's
 * `wal_autocheckpoint`): ≈ 40 MiB at 4 KiB pages, far more than the thread lets it grow to.
 */
export const LOG_BOUND_PAGES = 10_000;
/** SQLite's default `wal_autocheckpoint`, back in force on the server's connection if the thread stops. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** Milliseconds between the thread's checkpoints while commits come in. */
const INTERVAL_MS = 100;
/** Milliseconds before the thread checkpoints again when the last one could not copy the whole log. */
const RETRY_MS = 10;

export interface Checkpointer {
  /** Notes a commit on the server's connection (starts the thread at the first one). Cheap: an atomic add. */
  committed(): void;
  /** Checkpoints the thread ran, and the frames in the log at the last one (tests, diagnostics). */
  stats(): { checkpoints: number; logFrames: number; failures: number };
  /** Stops the thread (it finishes a checkpoint under way) and waits for it. */
  close(): Promise<void>;
}

/**
 * Sets the server's connection `raw` (WAL mode, a file database at `path`) to checkpoint only past
 * LOG_BOUND_PAGES and returns the checkpointer whose thread does it meanwhile.
 */
export function createCheckpointer(
  raw: BetterSqlite3.Database,
  path: string,
  options: { synchronous: 'NORMAL' | 'FULL' },
): Checkpointer {
  const state = new Int32Array(new SharedArrayBuffer(STATE_SIZE * Int32Array.BYTES_PER_ELEMENT));
  let worker: Worker | undefined;
  let exited: Promise<void> | undefined;
  let closing = false;
  raw.pragma(`wal_autocheckpoint = ${LOG_BOUND_PAGES}`);

  const start = () => {
    const w = new Worker(sourceFile('db/checkpoint-worker.mjs'), {
      workerData: { path, state, intervalMs: INTERVAL_MS, retryMs: RETRY_MS, synchronous: options.synchronous },
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
      // Plain JavaScript needing no flag of the process (loaders, profilers).
      execArgv: [],
    });
    w.unref();
    exited = new Promise((resolve) => {
      w.once('exit', () => {
        // Stopped unasked (a bug, out of memory): the connection checkpoints by itself again.
        if (!closing && raw.open) raw.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
        resolve();
      });
    });
    w.on('error', () => {
      /* reported by 'exit'; the connection checkpoints by itself from then on */
    });
    worker = w;
  };

  return {
    committed() {
      if (!worker && !closing) start();
      Atomics.add(state, COMMITS, 1);
    },
    stats: () => ({
      checkpoints: Atomics.load(state, CHECKPOINTS),
      logFrames: Atomics.load(state, LOG_FRAMES),
      failures: Atomics.load(state, FAILURES),
    }),
    async close() {
      closing = true;
      Atomics.store(state, STOP, 1);
      Atomics.notify(state, STOP);
      worker?.ref(); // the process waits for the thread's end (it is unref'd while it runs)
      await exited;
    },
  };
}
