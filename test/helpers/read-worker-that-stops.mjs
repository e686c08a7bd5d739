// @ts-check
/**
 * A SQLite read thread (src/db/read-worker.mjs) that stops when it takes STOP_THE_THREAD
 * (test/helpers/stop-the-thread.mjs, whose listener is registered first); every other query is the
 * real thread's.
 */
import './stop-the-thread.mjs';
import '../../src/db/read-worker.mjs';
