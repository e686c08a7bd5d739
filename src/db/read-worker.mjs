// @ts-check
/**
 * The thread behind `Database.offThread` (src/db/reader.ts): its own read-only connection to the
 * SQLite file, so that long reads (search) run beside the server's event loop instead of blocking
 * it. Plain JavaScript (type-checked through JSDoc) so that it starts in any runtime — the server
 * from dist/ (the build copies it there), the tests under Vitest — without a TypeScript loader in
 * the thread.
 *
 * Messages in: `{ id, sql, parameters, then? }`, sent to every thread; the thread that claims the
 * query (workerData.claims, see reader.ts; it notes the query in workerData.running[slot] first)
 * answers `{ id, rows }` — with `followUpRows` when
 * `then` (a FollowUp, reader.ts) was asked for and ran — or `{ id, error: { message, code } }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

/** @type {{ path: string, claims: Int32Array, running: Int32Array, slot: number }} */
const { path, claims, running, slot } = workerData;
const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 10000');

/** Compiled statements by SQL text, like the main connection's cache (src/db/connect.ts). */
/** @type {Map<string, BetterSqlite3.Statement>} */
const statements = new Map();
const MAX_STATEMENTS = 500;

/** @param {string} sql */
function statement(sql) {
  let st = statements.get(sql);
  if (!st) {
    st = db.prepare(sql);
    if (statements.size >= MAX_STATEMENTS) statements.delete(/** @type {string} */ (statements.keys().next().value));
    statements.set(sql, st);
  }
  return st;
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
/**
 * Runs one read-only statement.
 * @param {string} sql
 * @param {unknown[]} parameters
 */
function all(sql, parameters) {
  const st = statement(sql);
  if (!st.reader) throw new Error('the read thread runs only statements that return rows');
  return st.all(...parameters);
}

/** @typedef {{ sql: string, parameters: unknown[], minRows: number, ifEmpty: boolean }} FollowUp */
port.on(
  'message',
  (/** @type {{ id: number, sql: string, parameters: unknown[], then?: FollowUp, own?: true }} */ m) => {
    // Every thread gets every query; the first free one claims it, the others skip it (reader.ts).
    // The query is noted as this thread's before it is claimed, so that if the thread stops, the
    // reader knows which query was lost with it. A query marked `own` was posted to this thread
    // alone (reader.ts `warm`): it is run unclaimed.
    Atomics.store(running, slot, m.id);
    if (!m.own && Atomics.exchange(claims, m.id % claims.length, m.id) === m.id) {
      Atomics.store(running, slot, 0);
      return;
    }
    try {
      const rows = all(m.sql, m.parameters);
      const then = m.then;
      if (then && (rows.length >= then.minRows || (then.ifEmpty && rows.length === 0))) {
        port.postMessage({ id: m.id, rows, followUpRows: all(then.sql, then.parameters) });
      } else {
        port.postMessage({ id: m.id, rows });
      }
    } catch (err) {
      const e = /** @type {{ message?: string, code?: string }} */ (err);
      port.postMessage({ id: m.id, error: { message: String(e?.message ?? err), code: e?.code } });
    } finally {
      Atomics.store(running, slot, 0);
    }
  },
);
