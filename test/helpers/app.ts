/**
 * buildTestApp: the real app (buildApp) on a real test database, driven with `inject`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import type { Engine } from '../../src/db/connect.ts';
import { fixedClock, systemClock, type Clock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

export const PUBLIC_URL = 'http://tipjar.test';
export const API = '/rest/v2';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  services: Services;
  config: Config;
  clock: Clock;
  close(): Promise<void>;
}

export async function buildTestApp(
  engine: Engine,
  opts: { clock?: Clock; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(engine);
  // DISCOVERY off unless a test turns it on: tests never fetch pages outside 127.0.0.1.
  const config = loadConfig({ PUBLIC_URL, LOG_LEVEL: 'silent', DATABASE_URL: db.url, DISCOVERY: 'off', ...opts.env });
  const clock = opts.clock ?? systemClock;
  const app = await buildApp({ config, database: db.database, clock });
  await app.ready();
  return {
    app,
    db,
    services: { database: db.database, clock, siteUrl: config.siteUrl, passwordHashing: unboundedHashing },
    config,
    clock,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}

/** A clock standing at a fixed instant (Unix seconds), movable by tests. */
export { fixedClock };

/** Parses a JSON response body, asserting the spec's content type. */
export function json<T = any>(res: LightMyRequestResponse): T {
  if (res.headers['content-type'] !== 'application/json;charset=utf-8') {
    throw new Error(`expected application/json;charset=utf-8, got ${String(res.headers['content-type'])}: ${res.body}`);
  }
  return JSON.parse(res.body) as T;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
