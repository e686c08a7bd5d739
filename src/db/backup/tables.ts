/** Which tables tell a Tipjar database, and which hold no data of anyone (backup and restore). */
import { MIGRATION_TABLE } from '../migrate.ts';

/** Tables whose presence makes a database (or a PostgreSQL schema, or an archive) Tipjar's. */
export const TIPJAR_TABLES: readonly string[] = [MIGRATION_TABLE, 'users', 'things', 'tips'];

/**
 * Tables a database without data has rows in: the migrations' bookkeeping, `periods`, where a
 * starting server notes the current month's renewal (a period is settled only when it has tips,
 * which are data), `search_changes`, the counter of writes to things that the search caches read
 * (one row from the start), and `search_snapshots`, the search results a closing server kept. A
 * restore treats a database whose other tables are all empty as empty.
 */
export const BOOKKEEPING_TABLES: readonly string[] = [
  MIGRATION_TABLE,
  `${MIGRATION_TABLE}_lock`,
  'periods',
  'search_changes',
  'search_snapshots',
];
