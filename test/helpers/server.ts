/**
 * The real app listening on a loopback port of the moment (127.0.0.1), on a fresh test database:
 * for the suites that talk HTTP to it: the client package's (its requests go through fetch) and the
 * browser suites (test/e2e).
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import type { Engine } from '../../src/db/connect.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { freePort } from './processes.ts';

export interface ListeningApp {
  /** `http://127.0.0.1:<port>`: the app's PUBLIC_URL, where it listens */
  site: string;
  app: FastifyInstance;
  db: TestDatabase;
  /** services on the same database, for the factories */
  services: Services;
  config: Config;
  /** stops listening, closes the app and removes the database */
  close(): Promise<void>;
}

/**
 * Builds the app on a fresh `engine` database and listens on 127.0.0.1 (PUBLIC_URL is that
 * address). `env` adds settings (e.g. `RATE_LIMIT_AUTHENTICATED`); DISCOVERY is off unless set.
 */
export async function listenTestApp(engine: Engine, env: Record<string, string> = {}): Promise<ListeningApp> {
  const db = await createTestDatabase(engine);
  const port = await freePort();
  const site = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PUBLIC_URL: site,
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    DISCOVERY: 'off',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...env,
  });
  const app = await buildApp({ config, database: db.database });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    site,
    app,
    db,
    config,
    services: { database: db.database, clock: systemClock, siteUrl: config.siteUrl, passwordHashing: unboundedHashing },
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
