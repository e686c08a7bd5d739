/**
 * Work that PostgreSQL does together for the requests of one moment (docs/adr/0035).
 *
 * On a PostgreSQL database's own handle (outside any transaction), what is asked during one turn
 * of the event loop — by every request the turn parsed — is sent as one statement once the turn's
 * I/O callbacks are done (`setImmediate`): N concurrent requests cost one round trip and one
 * statement execution instead of N. Each item still runs after it was asked, so a read sees every
 * write committed before it was asked (a caller's own acknowledged writes included). Nothing is
 * cached between batches.
 *
 * Everywhere else — SQLite (its reads are synchronous and cost no round trip; its writes have
 * their own group commit), a transaction's executor (its reads must see its own writes) — each
 * item runs alone, at once.
 */
import DataLoader from 'dataloader';
import { pgDirect } from './direct.ts';
import type { Executor } from './transaction.ts';

/** Most items one batched statement carries. */
const MAX_BATCH = 100;

/**
 * A function of one item that runs, on PostgreSQL's own handle, the items asked in the same turn
 * as one batch.
 * @param runBatch runs a batch (two or more items); resolves to one result — or an Error, which
 *   fails that item only — per item, in the order of `items`; a rejection fails every item of it
 * @param runOne runs one item alone (a batch of one, and every item off PostgreSQL's own handle)
 */
export function turnBatched<I, R>(
  runBatch: (ex: Executor, items: readonly I[]) => Promise<readonly (R | Error)[]>,
  runOne: (ex: Executor, item: I) => Promise<R>,
): (ex: Executor, item: I) => Promise<R> {
  const loaders = new WeakMap<Executor, DataLoader<I, R>>();
  const loaderOf = (ex: Executor) => {
    let loader = loaders.get(ex);
    if (!loader) {
      loader = new DataLoader<I, R>(
        async (items) => (items.length === 1 ? [await runOne(ex, items[0]!)] : runBatch(ex, items)),
        { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (send) => setImmediate(send) },
      );
      loaders.set(ex, loader);
    }
    return loader;
  };
  return (ex, item) => (pgDirect(ex) ? loaderOf(ex).load(item) : runOne(ex, item));
}

/**
 * A point read by key, batched on PostgreSQL as described above.
 * @param one reads the rows of one key (a precompiled query)
 * @param many reads the rows of several keys in one statement (a precompiled query taking an array)
 * @param keyOf the key a row of `many` answers (must equal, by `===`, the key it was asked with)
 * @returns a function resolving to the row of `key`, or undefined when there is none
 */
export function batchedReads<K extends string | number, R>(
  one: (ex: Executor, key: K) => Promise<R[]>,
  many: (ex: Executor, keys: K[]) => Promise<R[]>,
  keyOf: (row: R) => K,
): (ex: Executor, key: K) => Promise<R | undefined> {
  return turnBatched<K, R | undefined>(
    async (ex, keys) => {
      const rows = await many(ex, [...new Set(keys)]);
      const byKey = new Map(rows.map((r) => [keyOf(r), r]));
      return keys.map((k) => byKey.get(k));
    },
    async (ex, key) => (await one(ex, key))[0],
  );
}
