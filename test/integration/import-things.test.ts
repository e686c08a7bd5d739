/**
 * `tipjar import things`: the catalogue format, the mapping to things, rows it cannot
 * take reported with their line number and reason, re-runs adding nothing twice.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { createDatabaseUrl, createTestServices, ENGINES } from '../helpers/db.ts';
import { runTipjar } from '../helpers/processes.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildUser } from '../helpers/factories.ts';
import { sql } from 'kysely';
import { countDataRows, importThings, npmTags } from '../../src/cli/import-things.ts';
import { mergeSearchIndex } from '../../src/db/repositories/search.ts';
import { insertThingsIfNew } from '../../src/db/repositories/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { sqlitePath, type Database } from '../../src/db/connect.ts';
import { systemClock } from '../../src/domain/clock.ts';

const dir = mkdtempSync(join(tmpdir(), 'tipjar-import-'));
function tsv(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('npmTags and countDataRows', () => {
  it('tags: npm, the scope, the words of the name', () => {
    expect(npmTags('ansi-styles')).toEqual(['npm', 'ansi', 'styles']);
    expect(npmTags('@types/node')).toEqual(['npm', 'types', 'node']);
    expect(npmTags('a')).toEqual(['npm']);
  });

  it('counts the lines after the header, with or without a final newline', async () => {
    expect(
      await countDataRows(tsv('a.tsv', 'name\tversion\tdownloads_a_month\tsummary\nx\t1\t2\ts\ny\t1\t2\ts\n')),
    ).toBe(2);
    expect(await countDataRows(tsv('b.tsv', 'name\tversion\tdownloads_a_month\tsummary\nx\t1\t2\ts\ny\t1\t2\ts'))).toBe(
      2,
    );
    expect(await countDataRows(tsv('c.tsv', ''))).toBe(0);
  });
});

describe.each(ENGINES)('importThings on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  it('imports rows as software things, reports bad rows by line, and adds nothing twice', async () => {
    const owner = await buildUser(t.services);
    const long = 'x'.repeat(1200);
    const file = tsv(
      `${engine}.tsv`,
      [
        'name\tversion\tdownloads_a_month\tsummary',
        `left-pad-${engine}\t1.3.0\t100\tString left pad`,
        'only\ttwo',
        `${'n'.repeat(120)}\t1\t1\ttoo long a name`,
        `long-summary-${engine}\t1\t1\t${long}`,
        `left-pad-${engine}\t1.3.0\t100\tthe same package again`,
      ].join('\n'),
    );
    const report = await importThings(t.db.database, t.clock, file, owner.user.id);
    expect(report).toMatchObject({ rows: 5, inserted: 2, skipped: 1 });
    expect(report.rejected.map((r) => r.line)).toEqual([3, 4]);
    expect(report.rejected[0]!.reason).toBe('expected 4 tab-separated columns, got 2');
    expect(report.rejected[1]!.reason).toContain('Invalid title');

    const things = await t.db.database.db
      .selectFrom('things')
      .selectAll()
      .where('owner_user_id', '=', owner.user.id)
      .orderBy('id')
      .execute();
    expect(things.map((r) => [r.url, r.title, r.category, r.language, r.tags])).toEqual([
      [
        `https://www.npmjs.com/package/left-pad-${engine}`,
        `left-pad-${engine}`,
        'software',
        'en_GB',
        `npm,left,pad,${engine}`,
      ],
      [
        `https://www.npmjs.com/package/long-summary-${engine}`,
        `long-summary-${engine}`,
        'software',
        'en_GB',
        `npm,long,summary,${engine}`,
      ],
    ]);
    expect([...things[1]!.description].length).toBe(1000);
    expect(things[1]!.description.endsWith('…')).toBe(true);

    const again = await importThings(t.db.database, t.clock, file, owner.user.id);
    expect(again).toMatchObject({ rows: 5, inserted: 0, skipped: 3 });
  });

  it('leaves out a tag POST /things would refuse, with a warning naming the line, and keeps the row', async () => {
    const owner = await buildUser(t.services);
    const file = tsv(
      `${engine}-tags.tsv`,
      [
        'name\tversion\tdownloads_a_month\tsummary',
        `@odd(scope)/kit-${engine}\t1\t1\ta scope no tags search could name`,
        `plain-${engine}\t1\t1\tfine`,
      ].join('\n'),
    );
    const report = await importThings(t.db.database, t.clock, file, owner.user.id);
    expect(report).toMatchObject({ rows: 2, inserted: 2, skipped: 0, rejected: [] });
    expect(report.warnings).toEqual([
      {
        line: 2,
        reason: `tag left out: the tag "odd(scope)" holds '('; a tag cannot hold white space or any of & | ! ( ) , (a tags search could never find it)`,
      },
    ]);
    const rows = await t.db.database.db
      .selectFrom('things')
      .select(['id', 'title', 'tags'])
      .where('owner_user_id', '=', owner.user.id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.title, r.tags])).toEqual([
      [`@odd(scope)/kit-${engine}`, `npm,kit,${engine}`],
      [`plain-${engine}`, `npm,plain,${engine}`],
    ]);
    const stored = await t.db.database.db
      .selectFrom('thing_tags')
      .select('tag')
      .where('thing_id', '=', rows[0]!.id)
      .orderBy('tag')
      .execute();
    expect(stored.map((r) => r.tag)).toEqual([engine, 'kit', 'npm'].sort());
  });
});

/** How many segments the SQLite full-text index of visible things has (FTS5's %_idx table: one row per segment and leaf). */
async function ftsSegments(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(distinct segid) as n from things_fts_idx`.execute(database.db);
  return Number(rows[0]!.n);
}

/** How many visible things the SQLite full-text index finds for `word`. */
async function ftsMatches(database: Database, word: string): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*) as n from things_fts where things_fts match ${`"${word}"`}`.execute(database.db);
  return Number(rows[0]!.n);
}

describe('the full-text index after a bulk load (SQLite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp('sqlite');
  });
  afterAll(async () => t.close());

  it('mergeSearchIndex merges the segments of many transactions into one, and every thing is still found', async () => {
    const owner = await buildUser(t.services);
    // FTS5 writes a segment per transaction: twelve transactions leave several even after its automerge.
    for (let batch = 0; batch < 12; batch++) {
      const things = Array.from({ length: 20 }, (_, i) =>
        parseNewThing({
          url: `https://example.com/merge/${batch}/${i}`,
          title: `mergeword item ${batch} ${i}`,
          description: `batch${batch}`,
          category: 'software',
          language: 'en_GB',
          tags: ['mergetag'],
        }),
      );
      await inTransaction(t.db.database, (trx) => insertThingsIfNew(trx, things, owner.user.id, t.clock.now()));
    }
    expect(await ftsSegments(t.db.database)).toBeGreaterThan(1);
    expect(await ftsMatches(t.db.database, 'mergeword')).toBe(240);

    expect(await mergeSearchIndex(t.db.database)).toBeGreaterThan(0);
    expect(await ftsSegments(t.db.database)).toBe(1);
    expect(await ftsMatches(t.db.database, 'mergeword')).toBe(240);
    expect(await ftsMatches(t.db.database, 'batch7')).toBe(20);
    // Nothing left to merge: no step writes anything.
    expect(await mergeSearchIndex(t.db.database)).toBe(0);
  });

  it('importThings leaves the index in one segment', async () => {
    const owner = await buildUser(t.services);
    const rows = Array.from({ length: 3000 }, (_, i) => `bulkword-${i}\t1.0.0\t1\tpackage number ${i}`);
    const file = tsv('bulk.tsv', ['name\tversion\tdownloads_a_month\tsummary', ...rows].join('\n'));
    const report = await importThings(t.db.database, t.clock, file, owner.user.id);
    expect(report).toMatchObject({ rows: 3000, inserted: 3000 });
    expect(await ftsSegments(t.db.database)).toBe(1);
    expect(await ftsMatches(t.db.database, 'bulkword')).toBe(3000);
  });
});

describe('the upkeep after an import (SQLite)', () => {
  it('a failed upkeep leaves every row imported and is reported, and the next import runs it', async () => {
    const { s, db, drop } = await createTestServices('sqlite');
    const { database } = db;
    const other = new BetterSqlite3(sqlitePath(db.url));
    try {
      const { user } = await buildUser(s);
      await sql`pragma busy_timeout = 20`.execute(database.db);
      const rows = Array.from({ length: 900 }, (_, i) => `upkeepword-${i}\t1.0.0\t1\tpackage ${i}`);
      const file = tsv('upkeep.tsv', ['name\tversion\tdownloads_a_month\tsummary', ...rows].join('\n'));
      // Another process takes the write lock once the last batch has committed, before the upkeep.
      const report = await importThings(database, systemClock, file, user.id, {
        onProgress: (n) => {
          if (n === 900) other.exec('begin immediate');
        },
      });
      expect(report).toMatchObject({ rows: 900, inserted: 900 });
      expect(report.upkeepFailure).toMatch(/locked|busy/i);
      other.exec('rollback');
      expect(await ftsMatches(database, 'upkeepword')).toBe(900);
      expect(await ftsSegments(database)).toBeGreaterThan(1);

      // Nothing new to add: the import runs the upkeep all the same.
      const again = await importThings(database, systemClock, file, user.id);
      expect(again).toMatchObject({ rows: 900, inserted: 0, skipped: 900 });
      expect(again.upkeepFailure).toBeUndefined();
      expect(await ftsSegments(database)).toBe(1);
      expect(await ftsMatches(database, 'upkeepword')).toBe(900);
    } finally {
      other.close();
      await drop();
    }
  });
});

describe('the tipjar import things command', () => {
  it('imports a catalogue and reports what it did; a second run adds nothing twice', async () => {
    const database = await createDatabaseUrl('sqlite');
    const env = { ...(process.env as Record<string, string>), DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    try {
      expect((await runTipjar(['users', 'create', 'catalogue'], env)).code).toBe(0);
      const file = tsv(
        'cli.tsv',
        'name\tversion\tdownloads_a_month\tsummary\nleft-pad\t1.3.0\t100\tpads\n@scope/kit\t2.0.0\t50\ta kit\nsolo\t0.1.0\t1\tone\n',
      );
      const first = await runTipjar(['import', 'things', file, '--owner', 'catalogue', '--limit', '2'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^read 2 rows: 2 things added, 0 already registered, 0 rejected, 0 warnings/);
      expect(first.stderr).toContain('refreshing the planner statistics and merging the full-text index');
      expect(first.stderr).not.toContain('warning:');
      const again = await runTipjar(['import', 'things', file, '--owner', 'catalogue'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/^read 3 rows: 1 things added, 2 already registered, 0 rejected, 0 warnings/);
    } finally {
      await database.remove();
    }
  });
});
