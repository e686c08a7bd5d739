// @ts-check
/**
 * Makes a SQLite read thread stop, as a thread hit by a bug would, when it takes the query
 * STOP_THE_THREAD: it claims the query the way src/db/read-worker.mjs does (noting it in `running`
 * first; a query posted to it alone, `own`, unclaimed), then exits without answering. Imported by test/helpers/read-worker-that-stops.mjs before
 * the real thread, so its listener sees each message first; imported outside a thread (by the
 * tests, for the constant) it does nothing else.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

export const STOP_THE_THREAD = "select 'stop the thread'";

if (!isMainThread) {
  /** @type {{ claims: Int32Array, running: Int32Array, slot: number }} */
  const { claims, running, slot } = workerData;
  const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
  port.on('message', (/** @type {{ id: number, sql: string, own?: true }} */ m) => {
    if (m.sql !== STOP_THE_THREAD) return;
    Atomics.store(running, slot, m.id);
    if (!m.own && Atomics.exchange(claims, m.id % claims.length, m.id) === m.id) {
      Atomics.store(running, slot, 0);
      return;
    }
    process.exit(3);
  });
}
