/**
 * `tipjar import things <file.tsv> --owner <username>`: loads a catalogue in the format of
 * shared/data/npm-packages.tsv (columns name, version, downloads_a_month, summary; header line).
 * Each row becomes a thing: url `https://www.npmjs.com/package/<name>`, title the name,
 * description the summary (cut to 1000 characters), category `software`, language `en_GB`, tags
 * `npm`, the scope of a scoped name and the words of the name. Rows are validated with the same
 * rules as POST /things; a row that fails is reported with its line number and reason and the
 * rest goes on; a tag POST /things would refuse is left out of its row with a warning (the line
 * and the reason). Re-running adds nothing twice (a URL already registered is skipped).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { refreshPlannerStatistics, type Database } from '../db/connect.ts';
import { inTransaction } from '../db/transaction.ts';
import { insertThingsIfNew } from '../db/repositories/things.ts';
import { insertPostActivities } from '../db/repositories/activities.ts';
import { mergeSearchIndex } from '../db/repositories/search.ts';
import { DomainError } from '../domain/errors.ts';
import { parseNewThing, tagProblem, MAX_DESCRIPTION, type NewThing } from '../domain/thing-input.ts';
import type { Clock } from '../domain/clock.ts';

export interface ImportReport {
  /** data rows read (header excluded) */
  rows: number;
  inserted: number;
  /** rows whose URL was already registered */
  skipped: number;
  rejected: { line: number; reason: string }[];
  /** rows imported without something they held (a tag left out), with the reason */
  warnings: { line: number; reason: string }[];
  /**
   * Why the upkeep after the load (planner statistics, the full-text index merged) did not finish,
   * when it did not (say, another process held the write lock past the busy timeout). The rows are
   * imported whatever it says; searches find them, more slowly until the upkeep runs: the next
   * import of any file runs it again.
   */
  upkeepFailure?: string;
}

/** Tags for an npm package name: `npm`, its scope, and the words of the name (≥ 2 letters). */
export function npmTags(name: string): string[] {
  const tags = ['npm'];
  const m = /^@([^/]+)\/(.+)$/.exec(name);
  const bare = m ? m[2]! : name;
  if (m) tags.push(m[1]!);
  for (const w of bare.split(/[-_.]+/)) if (/^[a-z0-9]{2,}$/i.test(w) && tags.length < 8) tags.push(w.toLowerCase());
  return [...new Set(tags)];
}

/**
 * Turns one TSV row into a validated thing. A tag that POST /things would refuse (tagProblem: white
 * space, `,` or one of `& | ! ( )`, say from a scope like `@a(b)/x`) is left out, not the row:
 * `warnings` says which.
 * @throws DomainError with the reason the row cannot be a thing.
 */
export function thingFromRow(fields: string[]): { thing: NewThing; warnings: string[] } {
  if (fields.length < 4) throw new DomainError('validation', `expected 4 tab-separated columns, got ${fields.length}`);
  const name = fields[0]!.trim();
  if (!name) throw new DomainError('validation', 'empty package name');
  let summary = fields[3]!.trim();
  if ([...summary].length > MAX_DESCRIPTION) summary = [...summary].slice(0, MAX_DESCRIPTION - 1).join('') + '…';
  const warnings: string[] = [];
  const tags = npmTags(name).filter((tag) => {
    const problem = tagProblem(tag);
    if (problem) warnings.push(`tag left out: ${problem}`);
    return !problem;
  });
  const thing = parseNewThing({
    url: `https://www.npmjs.com/package/${name}`,
    title: name,
    description: summary,
    category: 'software',
    language: 'en_GB',
    tags,
  });
  return { thing, warnings };
}

/** The number of lines after the header (data rows, blank ones included): the progress bar's total. */
export async function countDataRows(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  if (last !== 10) lines++; // a last line without a newline
  return Math.max(0, lines - 1); // the header
}

const BATCH = 400;

/** Inserts one batch of things and their `post` activities in one transaction; returns how many were new. */
async function insertBatch(database: Database, batch: NewThing[], ownerId: number, now: number): Promise<number> {
  return inTransaction(database, async (trx) => {
    const ids = await insertThingsIfNew(trx, batch, ownerId, now);
    await insertPostActivities(trx, ids, ownerId, now);
    return ids.length;
  });
}

/**
 * Imports the file for `ownerId`, 400 rows per transaction; then, when the file held any row, the
 * upkeep after a bulk load (fresh planner statistics; on SQLite the full-text index merged into
 * one segment). The upkeep runs even when every row was there already, so running an import again
 * finishes an upkeep that failed before; its failure is reported in `upkeepFailure`, not thrown.
 * @param onProgress called with the number of data rows processed so far, after each batch commits.
 * @param onUpkeep called once when the upkeep begins (after every row has committed)
 * @throws the database's errors from a batch (the batches before it stay imported: a re-run skips them)
 */
export async function importThings(
  database: Database,
  clock: Clock,
  file: string,
  ownerId: number,
  opts: { limit?: number; onProgress?: (rows: number) => void; onUpkeep?: () => void } = {},
): Promise<ImportReport> {
  const report: ImportReport = { rows: 0, inserted: 0, skipped: 0, rejected: [], warnings: [] };
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  let batch: NewThing[] = [];
  const seen = new Set<string>();
  const flush = async () => {
    if (batch.length === 0) return;
    const n = await insertBatch(database, batch, ownerId, clock.now());
    report.inserted += n;
    report.skipped += batch.length - n;
    batch = [];
    opts.onProgress?.(report.rows);
  };
  for await (const line of lines) {
    lineNo++;
    if (lineNo === 1 && line.startsWith('name\t')) continue;
    if (line.trim() === '') continue;
    if (opts.limit !== undefined && report.rows >= opts.limit) break;
    report.rows++;
    try {
      const { thing: t, warnings } = thingFromRow(line.split('\t'));
      for (const reason of warnings) report.warnings.push({ line: lineNo, reason });
      if (seen.has(t.urlKey)) {
        report.skipped++;
        continue;
      }
      seen.add(t.urlKey);
      batch.push(t);
    } catch (err) {
      report.rejected.push({ line: lineNo, reason: err instanceof Error ? err.message : String(err) });
    }
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  // After a bulk load: fresh statistics, so the planner picks the search and listing indexes at once
  // (PostgreSQL otherwise waits for autovacuum; SQLite's planner uses sqlite_stat1 after ANALYZE),
  // and on SQLite the full-text index in one segment, so each word is looked up once.
  if (report.rows > 0) {
    opts.onUpkeep?.();
    try {
      await refreshPlannerStatistics(database);
      await mergeSearchIndex(database);
    } catch (err) {
      report.upkeepFailure = err instanceof Error ? err.message : String(err);
    }
  }
  return report;
}
