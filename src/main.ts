/**
 * Process entry for `npm start` / `tipjar serve`: load config, open and migrate the database,
 * build the app, listen; on SIGTERM/SIGINT stop accepting, drain in-flight requests, close the
 * database cleanly.
 */
import { loadConfig, type Config } from './config/index.ts';
import { openDatabase, type Database } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { API_PREFIX, buildApp } from './app.ts';
import { startScheduler } from './scheduler/index.ts';
import { systemClock } from './domain/clock.ts';
import { unboundedHashing } from './auth/passwords.ts';
import { startDispatcher } from './webhooks/dispatcher.ts';
import { startMailDispatcher } from './mail/dispatcher.ts';
import { openTransport } from './mail/transport.ts';
import { listenForMetrics } from './http/plugins/metrics.ts';
import { warmUp } from './warmup.ts';

/**
 * Opens the configured database and brings its schema up to date (once across processes: see
 * db/migrate.ts; a wait for another process's migrations is reported on stderr).
 */
export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const database = await openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    sqliteCacheMb: config.sqliteCacheMb,
    sqliteReadThreads: config.sqliteReadThreads,
    poolSize: config.databasePoolSize,
  });
  try {
    await migrateToLatest(database, { onWait: (message) => process.stderr.write(`tipjar: ${message}\n`) });
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/**
 * `tipjar serve`: opens and migrates the database, builds the app, starts its warm-up
 * (WARMUP_SECONDS; GET /readyz answers 503 until it ends, src/warmup.ts), listens, and starts the
 * metrics listener, the scheduler, the webhook dispatcher and the mail dispatcher; SIGTERM/SIGINT close it all.
 * @throws the first error of start-up (database, listen, metrics listener)
 */
export async function serve(config: Config = loadConfig(process.env)): Promise<void> {
  const database = await openConfiguredDatabase(config);
  // The database's connections (PostgreSQL's pool, SQLite's read threads) are opened and look at
  // the hot tables once, while the app is built and warms up.
  const connectionsWarmed = config.warmupSeconds > 0 ? database.warmConnections?.() : undefined;
  const app = await buildApp({ config, database, keepSearchResults: true });
  // Runs beside the listen below, through app.inject: GET /readyz answers 503 until it has ended,
  // /healthz 200 meanwhile.
  const warming =
    config.warmupSeconds > 0 ? warmUp(app, { seconds: config.warmupSeconds, apiPrefix: API_PREFIX }) : undefined;
  await app.listen({ port: config.port, host: config.host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  process.stdout.write(
    `Tipjar listening on http://${config.host}:${port} (API ${config.publicUrl}/rest/v2, database ${database.engine})\n`,
  );
  // GET /metrics on its own listener (METRICS_PORT, on METRICS_HOST: loopback by default); if it
  // cannot listen, start-up fails and nothing stays open.
  let metrics: Awaited<ReturnType<typeof listenForMetrics>> | undefined;
  if (config.metricsPort !== undefined) {
    try {
      metrics = await listenForMetrics(app, {
        port: config.metricsPort,
        host: config.metricsHost,
        token: config.metricsToken,
        publicUrl: config.publicUrl,
        timeouts: config,
      });
    } catch (err) {
      await app.close();
      await database.close();
      throw err;
    }
    process.stdout.write(`Metrics on http://${config.metricsHost}:${config.metricsPort}/metrics\n`);
  }
  void warming?.then(async (r) => {
    const connections = await connectionsWarmed;
    process.stdout.write(
      `Warmed up in ${r.ms} ms (${r.requests} requests; ${app.searchResultsRestored} search results kept from the last run; ${r.popularFilled} of ${r.popularSearches} popular searches cached, words: ${r.words.join(' ') || 'none'}${connections === undefined ? '' : `; ${connections} database connections opened`}); ready\n`,
    );
    if (r.serverErrors) process.stderr.write(`warm-up: ${r.serverErrors} requests answered 5xx\n`);
  });
  // Settlement after each month ends, then renewal of subscriptions (SCHEDULER=on|off).
  const scheduler = config.scheduler
    ? startScheduler(
        { database, clock: systemClock, siteUrl: config.siteUrl, passwordHashing: unboundedHashing },
        {
          intervalSeconds: config.schedulerIntervalSeconds,
          log: (line) => process.stdout.write(`${line}\n`),
          logError: (line) => process.stderr.write(`${line}\n`),
        },
      )
    : undefined;
  // Webhook deliveries from the outbox (WEBHOOKS=on|off); several instances may run it at once.
  const dispatcher = config.webhooks
    ? startDispatcher(
        { database, clock: systemClock, siteUrl: config.siteUrl, passwordHashing: unboundedHashing },
        {
          intervalSeconds: config.webhooksIntervalSeconds,
          timeoutMs: config.webhooksTimeoutSeconds * 1000,
          leaseSeconds: config.webhooksClaimSeconds,
          logError: (line) => process.stderr.write(`${line}\n`),
        },
      )
    : undefined;
  // Mail from the outbox (MAIL=on|off): SMTP_URL, or .eml files under MAIL_DIR with their links logged.
  const mailer = config.mail
    ? startMailDispatcher(
        { database, clock: systemClock, siteUrl: config.siteUrl, passwordHashing: unboundedHashing },
        openTransport(config, (line) => process.stdout.write(`${line}\n`)),
        {
          intervalSeconds: config.mailIntervalSeconds,
          leaseSeconds: config.mailTimeoutSeconds * 4,
          currency: config.currency,
          logError: (line) => process.stderr.write(`${line}\n`),
        },
      )
    : undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: draining requests and closing\n`);
    await app.close();
    await metrics?.close();
    await scheduler?.stop();
    await dispatcher?.stop();
    await mailer?.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
