/**
 * Precompiled queries for the hot paths. Kysely builds and compiles a query anew on every call
 * (≈ 60 µs for a thing read, several times the SQLite read itself); a precompiled query is built
 * once per SQL dialect and then only executed with new parameters.
 *
 * The builder is run once with sentinel arguments; each compiled parameter that is a sentinel is
 * replaced by the matching call argument, the others (constants of the query) are kept.
 * Only Kysely's public API is used: `compile()` and `executeQuery(compiledQuery)` (Kysely's recipe
 * "splitting query building and execution"). The cache is keyed by the database handle the
 * executor derives from (db/transaction.ts rootExecutor: a transaction's executor maps to its
 * database's handle, whose dialect it shares); an executor of unknown origin is its own key.
 *
 * On PostgreSQL the compiled query runs as a named prepared statement (db/prepared.ts): parsed
 * and planned once per connection, not on every run; on the database's own handle (outside a
 * transaction) straight on the pool (db/direct.ts pgDirect), as Kysely would run it there.
 *
 * On SQLite the compiled query runs on the connection's cached better-sqlite3 statement directly
 * (db/direct.ts) where Kysely would run it on the same connection with the same effect: inside the
 * group commit (db/transaction.ts directStatements), whose batch holds the connection for its whole
 * run, and a read-only query on the database's own handle while no transaction is open on the
 * connection. Kysely's connection hand-over, result wrapping and promise hops add nothing there
 * but time.
 */
import type { CompiledQuery } from 'kysely';
import { directStatements, rootExecutor, type Executor } from './transaction.ts';
import { pgDirect, sqliteDirect } from './direct.ts';
import { prepareByName } from './prepared.ts';

interface Entry {
  compiled: CompiledQuery;
  /** for each compiled parameter: the index of the call argument, or -1 for a constant */
  slots: number[];
}

/**
 * Wraps a query builder into a function that compiles once per dialect.
 * @param build builds the query from an executor and the arguments (each argument must be used
 *   as a plain value, e.g. in `where(col, '=', arg)` or `values({col: arg})`).
 * @returns a function running the query with new arguments, resolving to its rows.
 */
export function precompiled<A extends unknown[], R>(
  build: (ex: Executor, ...args: A) => { compile(): CompiledQuery<R> },
): (ex: Executor, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<object, Entry>();
  return async (ex: Executor, ...args: A): Promise<R[]> => {
    const key = rootExecutor(ex);
    let entry = cache.get(key);
    if (!entry) {
      const sentinels = args.map((_, i) => `\u0000tipjar-arg-${i}\u0000`);
      const compiled = build(ex, ...(sentinels as unknown as A)).compile();
      const slots = compiled.parameters.map((p) => sentinels.indexOf(p as string));
      for (let i = 0; i < sentinels.length; i++) {
        if (!slots.includes(i)) throw new Error(`precompiled query does not use argument ${i} as a parameter`);
      }
      entry = { compiled, slots };
      cache.set(key, entry);
      prepareByName(compiled.sql);
    }
    const { compiled, slots } = entry;
    const parameters = slots.map((s, i) => (s >= 0 ? args[s] : compiled.parameters[i]));
    const inBatch = directStatements(ex);
    if (inBatch) {
      // Inside SQLite's group commit: the statement runs at once on the connection the batch holds,
      // with the rows Kysely's SQLite driver would return (none for a statement without rows).
      const stmt = inBatch(compiled.sql);
      if (stmt.reader) return stmt.all(parameters) as R[];
      stmt.run(parameters);
      return [];
    }
    const direct = sqliteDirect(ex);
    if (direct && !direct.inTransaction()) {
      // A read on a SQLite database's own handle while no transaction is open on its connection:
      // it sees what is committed, as it would once Kysely handed it the connection.
      const stmt = direct.statement(compiled.sql);
      if (stmt.readonly && stmt.reader) return stmt.all(parameters) as R[];
    }
    const pg = pgDirect(ex);
    if (pg) return (await pg.query(compiled.sql, parameters)) as R[];
    const result = await ex.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}
