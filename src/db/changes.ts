/**
 * What this process writes, for its caches of reads (the search result cache,
 * domain/search-cache.ts; the thing cache, db/thing-cache.ts):
 * - counters of writes to things and to tips, which move after each write statement and again when
 *   the transaction holding it settles (commit or rollback), so a read that started before a
 *   write became visible — or that saw a write later rolled back — is always older than the
 *   counter's current value;
 * - the ids of things whose row a write changed, told to every listener at once and again when the
 *   transaction settles.
 *
 * Only this process's writes are seen here; writes by other processes are detected otherwise
 * (SQLite: `Database.externalChanges`) or bounded by a cache's lifetime (PostgreSQL instances).
 */

/** The counters: `things` (any insert, update or delete of a thing, its tags or owner), `tips` (a new tip). */
export interface ChangeCounters {
  things: number;
  tips: number;
}

/** What a transaction saw when it began (settleChanges takes it back). */
export interface TransactionStart {
  counters: ChangeCounters;
  /** index into `changedIds` of the first thing id written after this start */
  changedFrom: number;
}

const counters: ChangeCounters = { things: 0, tips: 0 };
/** Thing ids written while a transaction was open (cleared when none is). */
const changedIds: number[] = [];
let openTransactions = 0;
const listeners = new Set<(ids: readonly number[]) => void>();

/** The counters now (a copy). */
export function changeCounters(): ChangeCounters {
  return { things: counters.things, tips: counters.tips };
}

/** Calls `listener` with the ids of things whose stored row changed; returns the function that stops it. */
export function onThingsChanged(listener: (ids: readonly number[]) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function tell(ids: readonly number[]): void {
  if (ids.length === 0) return;
  if (openTransactions > 0) changedIds.push(...ids);
  for (const listener of listeners) listener(ids);
}

/**
 * Records a write to things that can change what a search matches (fields, tags, owner,
 * visibility, a new or deleted thing). Call after the statement ran.
 * @param ids the things whose existing row changed (none for new things)
 */
export function noteThingsChanged(ids: readonly number[] = []): void {
  counters.things++;
  tell(ids);
}

/**
 * Records a change of things' tip counters (`tips`, `tips_user_count`, `last_tip_at`): their rows
 * changed, but not what a search matches (the tip sorts follow noteTipsChanged).
 */
export function noteThingCountersChanged(ids: readonly number[]): void {
  tell(ids);
}

/** Records a new tip (the tip sorts of search depend on tips). Call after the statement ran. */
export function noteTipsChanged(): void {
  counters.tips++;
}

/** For transactions (db/transaction.ts): call when one begins; give the result to settleChanges. */
export function beginChanges(): TransactionStart {
  openTransactions++;
  return { counters: changeCounters(), changedFrom: changedIds.length };
}

/**
 * For transactions: once one has committed or rolled back, moves again each counter that moved
 * since `start` and tells the listeners again of the things written since then.
 */
export function settleChanges(start: TransactionStart): void {
  if (counters.things !== start.counters.things) counters.things++;
  if (counters.tips !== start.counters.tips) counters.tips++;
  const ids = changedIds.slice(start.changedFrom);
  openTransactions--;
  if (openTransactions === 0) changedIds.length = 0;
  if (ids.length) for (const listener of listeners) listener(ids);
}
