/**
 * A query whose SQL starts with this comment is run in better-sqlite3's raw mode on SQLite: its
 * rows are arrays of the selected values, in select order, not objects. Building an object per row
 * costs better-sqlite3 more than reading the row (≈ 90 µs of ≈ 200 µs for 30 things); the hot
 * multi-row reads (repositories/things.ts) use it. PostgreSQL ignores the comment (rows stay
 * objects), so readers of such a query accept both shapes.
 */
export const RAW_ROWS = '/* rows as arrays */ ';
