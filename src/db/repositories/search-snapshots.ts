/**
 * The search result cache kept across restarts (migration 0014_search_snapshots; docs/adr/0033):
 * one row, written by a closing server, read by a starting one.
 */
import { MIGRATION_NAMES } from '../migrate.ts';
import { inTransaction, type Database } from '../transaction.ts';

/** A snapshot of the search result cache. */
export interface SearchSnapshot {
  /** the writer's format (domain/search/snapshot.ts): a snapshot is read only by the same format */
  format: string;
  /** `search_changes.things` (readSearchChanges) it is valid for */
  things: number;
  /** Unix seconds */
  savedAt: number;
  /** the entries, JSON text */
  entries: string;
}

/** What is stored as `format`: the writer's and the newest migration's, so no other schema reads it. */
const stamp = (format: string) => `${format} ${MIGRATION_NAMES.at(-1)}`;

/** Replaces the stored snapshot with `snapshot`. */
export async function saveSearchSnapshot(database: Database, snapshot: SearchSnapshot): Promise<void> {
  const row = {
    format: stamp(snapshot.format),
    things: snapshot.things,
    saved_at: snapshot.savedAt,
    entries: snapshot.entries,
  };
  await inTransaction(database, async (trx) => {
    await trx
      .insertInto('search_snapshots')
      .values({ id: 1, ...row })
      .onConflict((oc) => oc.column('id').doUpdateSet(row))
      .execute();
  });
}

/** The stored snapshot if it was written in `format` on this schema; undefined otherwise. */
export async function readSearchSnapshot(database: Database, format: string): Promise<SearchSnapshot | undefined> {
  const row = await database.db.selectFrom('search_snapshots').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!row || row.format !== stamp(format)) return undefined;
  return { format, things: Number(row.things), savedAt: Number(row.saved_at), entries: row.entries };
}
