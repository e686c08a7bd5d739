/**
 * What this process writes, for its caches of reads (the search result cache,
 * domain/search-cache.ts; rendered search answers, http/search-render-cache.ts):
 * - counters of writes to things and to tips;
 * - a version per thing row (hashed into a fixed table of slots, so memory stays constant; two
 *   things sharing a slot only make a cache rebuild more often).
 * Each moves after the write's statement and again when the transaction holding it settles
 * (commit or rollback), so a read that started before a write became visible — or that saw a
 * write later rolled back — is always older than the current value.
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
  /** index into `writtenThings` of the first thing written after this start */
  writtenFrom: number;
}

const counters: ChangeCounters = { things: 0, tips: 0 };
/** Thing row versions, by slot (thing id modulo the table size). */
const versions = new Uint32Array(1 << 16);
const slot = (thingId: number) => thingId & (versions.length - 1);
/** Things written while a transaction was open (emptied when none is). */
const writtenThings: number[] = [];
let openTransactions = 0;

/** The counters now (a copy). */
export function changeCounters(): ChangeCounters {
  return { things: counters.things, tips: counters.tips };
}

/** The version of a thing's row: it changes whenever this process writes the row. */
export function thingVersion(thingId: number): number {
  return versions[slot(thingId)]!;
}

function bump(ids: readonly number[]): void {
  for (const id of ids) {
    const i = slot(id);
    versions[i] = versions[i]! + 1;
  }
}

/**
 * Records a write of things' rows. Call after the statement ran.
 * @param ids the existing things whose row changed (none for new things)
 * @param matching whether the write can change what a search matches (fields, tags, owner,
 *   visibility, a new or deleted thing); false for tip counters only
 */
export function noteThingsChanged(ids: readonly number[] = [], matching = true): void {
  if (matching) counters.things++;
  bump(ids);
  if (openTransactions > 0) writtenThings.push(...ids);
}

/** Records a new tip (the tip sorts of search depend on tips). Call after the statement ran. */
export function noteTipsChanged(): void {
  counters.tips++;
}

/** For transactions (db/transaction.ts): call when one begins; give the result to settleChanges. */
export function beginChanges(): TransactionStart {
  openTransactions++;
  return { counters: changeCounters(), writtenFrom: writtenThings.length };
}

/**
 * For transactions: once one has committed or rolled back, moves again each counter that moved
 * since `start`, and the version of every thing written since then.
 */
export function settleChanges(start: TransactionStart): void {
  if (counters.things !== start.counters.things) counters.things++;
  if (counters.tips !== start.counters.tips) counters.tips++;
  bump(writtenThings.slice(start.writtenFrom));
  openTransactions--;
  if (openTransactions === 0) writtenThings.length = 0;
}
