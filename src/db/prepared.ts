/**
 * Named prepared statements on PostgreSQL for the queries whose SQL text never changes (the
 * precompiled queries of db/precompiled.ts). An unnamed statement is parsed, analysed and planned
 * by the server on every run; a named one is parsed once per connection and then only bound and
 * executed (`pg` prepares it on a connection's first run of that name and remembers it). Queries
 * whose text varies (IN lists of ids, search) stay unnamed: naming them would prepare without end.
 */

const names = new Map<string, string>();

/** Marks `sqlText` as a statement to prepare by name on each PostgreSQL connection (idempotent). */
export function prepareByName(sqlText: string): void {
  if (!names.has(sqlText)) names.set(sqlText, `tipjar_${names.size + 1}`);
}

/** The name `sqlText` is prepared under, or undefined when it runs unnamed. */
export function preparedName(sqlText: string): string | undefined {
  return names.get(sqlText);
}
