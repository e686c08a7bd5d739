// @ts-check
/**
 * The thread behind db/checkpointer.ts: its own connection to the SQLite file, which copies the
 * write-ahead log back into the database (`PRAGMA wal_checkpoint(PASSIVE)`) beside the server's
 * event loop, so that the server's connection never waits for a checkpoint's copying and fsyncs.
 * Plain JavaScript (type-checked through JSDoc), like read-worker.mjs.
 *
 * It talks through `workerData.state` (an Int32Array on a SharedArrayBuffer, indexes in
 * checkpointer.ts): it checkpoints every `intervalMs` milliseconds when the server committed since
 * its last checkpoint (`state[COMMITS]` moved) or that checkpoint did not copy the whole log, and
 * again after `retryMs` while it has not; it notes the frames in the log and the checkpoints run
 * in `state`, and stops when `state[STOP]` is set (Atomics.notify wakes it).
 */
import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

const STOP = 0;
const COMMITS = 1;
const CHECKPOINTS = 2;
const LOG_FRAMES = 3;
const FAILURES = 4;

/** @type {{ path: string, state: Int32Array, intervalMs: number, retryMs: number, synchronous: string }} */
const { path, state, intervalMs, retryMs, synchronous } = workerData;
const db = new BetterSqlite3(path, { fileMustExist: true });
// A checkpoint syncs the log before copying it and the database after, as the server's own would.
db.pragma(`synchronous = ${synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');

// Started at the first commit: there is a log to checkpoint from the start.
let seen = 0;
let behind = true;
while (Atomics.load(state, STOP) === 0) {
  Atomics.wait(state, STOP, 0, behind ? retryMs : intervalMs);
  if (Atomics.load(state, STOP) !== 0) break;
  const commits = Atomics.load(state, COMMITS);
  if (commits === seen && !behind) continue;
  seen = commits;
  try {
    const r = /** @type {{ busy: number, log: number, checkpointed: number }} */ (checkpoint.get());
    behind = r.busy !== 0 || r.checkpointed < r.log;
    Atomics.store(state, LOG_FRAMES, r.log);
    Atomics.add(state, CHECKPOINTS, 1);
  } catch {
    // The server's connection checkpoints by itself past its wal_autocheckpoint bound meanwhile.
    behind = true;
    Atomics.add(state, FAILURES, 1);
  }
}
db.close();
