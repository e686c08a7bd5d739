// @ts-check
/**
 * The thread behind `Database.offThread` (src/db/reader.ts): its own read-only connection to the
 * SQLite file, so that long reads (search) run beside the server's event loop instead of blocking
 * it. Plain JavaScript (type-checked through JSDoc) so that it starts in any runtime — the server
 * under tsx, the tests under Vitest — without a TypeScript loader in the thread.
 *
 * Messages in: `{ id, sql, parameters }`; out: `{ id, rows }` or `{ id, error: { message, code } }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

/** @type {{ path: string }} */
const { path } = workerData;
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
port.on('message', (/** @type {{ id: number, sql: string, parameters: unknown[] }} */ m) => {
  try {
    const st = statement(m.sql);
    if (!st.reader) throw new Error('the read thread runs only statements that return rows');
    port.postMessage({ id: m.id, rows: st.all(...m.parameters) });
  } catch (err) {
    const e = /** @type {{ message?: string, code?: string }} */ (err);
    port.postMessage({ id: m.id, error: { message: String(e?.message ?? err), code: e?.code } });
  }
});
