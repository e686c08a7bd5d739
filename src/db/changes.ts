/**
 * Change counters of this process: each counts the writes to one kind of data that a cache of
 * derived reads (the search result cache, domain/search-cache.ts) depends on. A counter moves
 * after the write's statement and again when the transaction holding it settles (commit or
 * rollback), so a read that started before the write became visible — or that saw a write later
 * rolled back — is always older than the counter's current value.
 *
 * Counters only see this process's writes; writes by other processes are detected otherwise
 * (SQLite: `Database.externalChanges`) or bounded by the cache's lifetime (PostgreSQL instances).
 */

/** The counters: `things` (any insert, update or delete of a thing, its tags or owner), `tips` (a new tip). */
export interface ChangeCounters {
  things: number;
  tips: number;
}

const counters: ChangeCounters = { things: 0, tips: 0 };

/** The counters now (a copy). */
export function changeCounters(): ChangeCounters {
  return { things: counters.things, tips: counters.tips };
}

/** Records a write to things (rows, tags, owner, visibility). Call after the statement ran. */
export function noteThingsChanged(): void {
  counters.things++;
}

/** Records a new tip. Call after the statement ran. */
export function noteTipsChanged(): void {
  counters.tips++;
}

/**
 * For transactions: moves again each counter that moved since `before` (taken when the
 * transaction started), once the transaction has committed or rolled back.
 */
export function settleChanges(before: ChangeCounters): void {
  if (counters.things !== before.things) counters.things++;
  if (counters.tips !== before.tips) counters.tips++;
}
