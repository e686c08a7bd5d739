/**
 * Schema migrations (Kysely's Migrator), run by `tipjar migrate` and on every start.
 * Migrations are code in src/db/migrations, applied in name order, each once, on both engines.
 */
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database } from './connect.ts';
import { makeInitial } from './migrations/0001_initial.ts';
import { makeSearch } from './migrations/0002_search.ts';
import { makeMoney } from './migrations/0004_money.ts';
import { makeTipHours } from './migrations/0005_tip_hours.ts';
import { makeSearchIndexDirect } from './migrations/0006_search_index_direct.ts';
import { makeClientRedirectUris } from './migrations/0007_client_redirect_uris.ts';
import { makePeriodBudgets } from './migrations/0008_period_budgets.ts';
import { makeAccounts } from './migrations/0009_accounts.ts';
import { makeAddressLookup } from './migrations/0010_address_lookup.ts';
import { makeSearchRanked } from './migrations/0011_search_ranked.ts';
import { makeSearchChanges } from './migrations/0012_search_changes.ts';
import { makeSearchWordCounts } from './migrations/0013_search_word_counts.ts';

function provider(database: Database): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001_initial': makeInitial(database.engine),
        '0002_search': makeSearch(database.engine),
        '0004_money': makeMoney(database.engine),
        '0005_tip_hours': makeTipHours(database.engine),
        '0006_search_index_direct': makeSearchIndexDirect(database.engine),
        '0007_client_redirect_uris': makeClientRedirectUris(database.engine),
        '0008_period_budgets': makePeriodBudgets(database.engine),
        '0009_accounts': makeAccounts(database.engine),
        '0010_address_lookup': makeAddressLookup(),
        '0011_search_ranked': makeSearchRanked(database.engine),
        '0012_search_changes': makeSearchChanges(database.engine),
        '0013_search_word_counts': makeSearchWordCounts(database.engine),
      };
    },
  };
}

/**
 * Brings the schema up to date.
 * @returns the names of the migrations applied now (empty when already current).
 * @throws Error naming the migration that failed.
 */
export function migrateToLatest(database: Database): Promise<string[]> {
  return migrate(database, (m) => m.migrateToLatest());
}

/**
 * Applies the migrations up to and including `name` (e.g. `0006_search_index_direct`), for tests of
 * a later migration on data written in an earlier schema.
 * @returns the names of the migrations applied now. @throws Error naming the migration that failed.
 */
export function migrateTo(database: Database, name: string): Promise<string[]> {
  return migrate(database, (m) => m.migrateTo(name));
}

async function migrate(database: Database, run: (m: Migrator) => Promise<MigrationResultSet>): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: provider(database),
    // Kysely looks for its own tables by name across schemas; pin them to ours.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  let { error, results } = await run(migrator);
  // Kysely's bookkeeping introspects every schema's tables (pg_get_serial_sequence per column); a
  // schema dropped meanwhile by another process (parallel test files) fails it with 42P01/3F000
  // before any migration ran. That is not our schema's problem: try again.
  for (let attempt = 1; error && attempt < 5; attempt++) {
    const code = (error as { code?: string }).code;
    const inMigration = results?.some((r) => r.status === 'Error');
    if (inMigration || (code !== '42P01' && code !== '3F000')) break;
    ({ error, results } = await run(migrator));
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
