/**
 * The `tipjar` command (package bin, bundled into dist/tipjar.js; bin/tipjar.js runs it). Every
 * command reads the same settings as the server (environment and `.env`), opens the configured
 * database and migrates it first. The commands are declared here and in the modules registered
 * below; each action imports what it runs when it runs, so `tipjar --help` and a mistyped command
 * load neither Fastify nor Kysely nor a database driver.
 */
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, describeSettings, loadConfig, type Config } from '../config/index.ts';
import { DomainError } from '../domain/errors.ts';
import type { Services } from '../domain/services.ts';
import { registerMoneyCommands } from './money.ts';
import { registerPartnerCommands } from './partners.ts';
import { registerAppsCommands } from './apps.ts';
import { registerMailCommands } from './mail.ts';
import { registerAccountDataCommands } from './account-data.ts';
import { registerBackupCommands } from './backup.ts';

if (existsSync('.env')) process.loadEnvFile('.env');

function config(): Config {
  return loadConfig(process.env);
}

/** Runs `fn` with services on the configured (migrated) database, then closes it. */
async function withServices<T>(fn: (s: Services) => Promise<T>): Promise<T> {
  const cfg = config();
  const { openConfiguredDatabase } = await import('../main.ts');
  const { systemClock } = await import('../domain/clock.ts');
  const { unboundedHashing } = await import('../auth/passwords.ts');
  const database = await openConfiguredDatabase(cfg);
  try {
    return await fn({ database, clock: systemClock, siteUrl: cfg.siteUrl, passwordHashing: unboundedHashing });
  } finally {
    await database.close();
  }
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

const program = new Command('tipjar')
  .description('Tipjar: micro-tipping REST API v2 server and operator commands')
  .addHelpText(
    'after',
    `\nSettings (environment variables, or a .env file in the working directory):\n${describeSettings()}\n`,
  )
  .showHelpAfterError();

program
  .command('serve')
  .description('serve the API and website (what `npm start` runs)')
  .action(async () => {
    const { serve } = await import('../main.ts');
    await serve(config());
  });

program
  .command('migrate')
  .description(
    'create the database if needed and apply pending schema migrations (once across processes: others wait for the lock)',
  )
  .action(async () => {
    const cfg = config();
    const { openDatabase } = await import('../db/connect.ts');
    const { migrateToLatest } = await import('../db/migrate.ts');
    const database = await openDatabase(cfg.databaseUrl, { sqliteSynchronous: cfg.sqliteSynchronous });
    try {
      const applied = await migrateToLatest(database, {
        onWait: (message) => process.stderr.write(`tipjar: ${message}\n`),
      });
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await database.close();
    }
  });

const users = program.command('users').description('manage users');
users
  .command('create <username>')
  .description('register a user (a given address starts unverified and is sent a verification link)')
  .option('--email <email>', 'e-mail address')
  .option('--password <password>', 'password for the website (at least 8 characters)')
  .option('--verified', 'mark the address verified at once (operator); no verification link is sent')
  .action(async (username: string, opts: { email?: string; password?: string; verified?: boolean }) => {
    const { registerUser } = await import('../domain/users.ts');
    const u = await withServices((s) => registerUser(s, { username, ...opts }));
    const address = !u.email
      ? ''
      : u.emailVerifiedAt !== null
        ? `; address ${u.email} verified`
        : `; verification link queued for ${u.email}`;
    console.log(`created user ${u.username} (id ${u.id})${address}`);
  });
users
  .command('verify <username>')
  .description("mark a user's current e-mail address verified (operator); outstanding verification links end")
  .action(async (username: string) => {
    const { markEmailVerified } = await import('../domain/verification.ts');
    const r = await withServices((s) => markEmailVerified(s, username));
    console.log(
      `${r.user.username}: address ${r.user.email} ${r.alreadyVerified ? 'was verified already' : 'verified'}`,
    );
  });
users
  .command('fund <username>')
  .description("credit a user's balance (built-in payment provider) and optionally set the monthly budget")
  .requiredOption('--cents <n>', 'amount to add to the balance, in cents', wholeNumber)
  .option(
    '--budget <n>',
    "monthly budget, in cents (once the user has tipped this month, it applies from the next: a period's budget is fixed at its first tip)",
    wholeNumber,
  )
  .action(async (username: string, opts: { cents: number; budget?: number }) => {
    const { fundUser } = await import('../domain/users.ts');
    const u = await withServices((s) => fundUser(s, { username, cents: opts.cents, budgetCents: opts.budget }));
    console.log(`${u.username}: balance ${u.balanceCents} cents, monthly budget ${u.budgetCents} cents`);
  });

program
  .command('tokens')
  .description('manage access tokens')
  .command('create <username>')
  .description('issue a bearer token for a user; the token is the last line of the output')
  .requiredOption('--scopes <scopes>', 'space-separated scopes: tip thing extendedread')
  .action(async (username: string, opts: { scopes: string }) => {
    const { issueToken } = await import('../auth/tokens.ts');
    const token = await withServices((s) => issueToken(s, username, opts.scopes));
    console.log(`token for ${username} (scopes: ${opts.scopes}); store it now, it is not shown again:`);
    console.log(token);
  });

program
  .command('import')
  .description('bulk imports')
  .command('things <file>')
  .description('import things from a TSV catalogue (name, version, downloads_a_month, summary)')
  .requiredOption('--owner <username>', 'user who owns the imported things')
  .option('--limit <n>', 'import at most this many rows', wholeNumber)
  .action(async (file: string, opts: { owner: string; limit?: number }) => {
    if (!existsSync(file)) throw new DomainError('invalid_parameters', `no such file: ${file}`);
    const { getUser } = await import('../domain/users.ts');
    const { countDataRows, importThings } = await import('./import-things.ts');
    // A CommonJS package: its exports are the default export's properties (in the bundle too).
    const { SingleBar, Presets } = (await import('cli-progress')).default;
    await withServices(async (s) => {
      const owner = await getUser(s, opts.owner);
      const bar = new SingleBar(
        { format: 'importing [{bar}] {percentage}% | {value}/{total} rows | {duration}s', stream: process.stderr },
        Presets.shades_classic,
      );
      const rows = await countDataRows(file);
      bar.start(opts.limit !== undefined ? Math.min(opts.limit, rows) : rows, 0);
      const started = Date.now();
      const report = await importThings(s.database, s.clock, file, owner.id, {
        limit: opts.limit,
        onProgress: (n) => bar.update(n),
        onUpkeep: () => {
          bar.stop();
          console.error('refreshing the planner statistics and merging the full-text index …');
        },
      });
      bar.stop();
      for (const r of report.rejected) console.error(`line ${r.line}: ${r.reason}`);
      for (const w of report.warnings) console.error(`line ${w.line}: warning: ${w.reason}`);
      console.log(
        `read ${report.rows} rows: ${report.inserted} things added, ${report.skipped} already registered, ${report.rejected.length} rejected, ${report.warnings.length} warnings (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
      if (report.upkeepFailure !== undefined)
        console.error(
          `warning: the rows above are imported, but the upkeep after the import did not finish (${report.upkeepFailure}); searches find the new things, more slowly until it runs: run this import again (it adds nothing twice and runs the upkeep)`,
        );
    });
  });

registerMoneyCommands(program, withServices);
registerPartnerCommands(program, withServices);
registerAppsCommands(program, withServices);
registerMailCommands(program, withServices);
registerAccountDataCommands(users, withServices);
registerBackupCommands(program, config);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) console.error(err.message);
  else if (err instanceof DomainError) console.error(`error: ${err.message}`);
  // db/migrate.ts NewerSchemaError (by name: that module is loaded only by the commands that migrate)
  else if (err instanceof Error && err.name === 'NewerSchemaError') console.error(`error: ${err.message}`);
  else console.error(err);
  process.exitCode = 1;
}
