/** Settings: defaults, derived origins, and every bad setting named at once. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('defaults: port 3000, the embedded database, one origin for API, site and auth', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: 'sqlite:./data/tipjar.db',
      publicUrl: 'http://localhost:3000',
      siteUrl: 'http://localhost:3000',
      authUrl: 'http://localhost:3000',
      logLevel: 'warn',
    });
  });

  it('PUBLIC_URL follows PORT; SITE_URL and AUTH_URL follow PUBLIC_URL; trailing slashes are dropped', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    const c = loadConfig({ PUBLIC_URL: 'https://api.example.org/', AUTH_URL: 'https://auth.example.org/' });
    expect([c.publicUrl, c.siteUrl, c.authUrl]).toEqual([
      'https://api.example.org',
      'https://api.example.org',
      'https://auth.example.org',
    ]);
  });

  it('names every bad setting at once, and only those', () => {
    const problems = problemsOf({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', SITE_URL: 'ftp://files' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT', 'SITE_URL']);
    expect(problems.find((p) => p.startsWith('PORT'))).toBe('PORT: expected integer (got "abc")');
    expect(problems.find((p) => p.startsWith('LOG_LEVEL'))).toContain(
      'one of fatal, error, warn, info, debug, trace, silent',
    );
  });

  it('refuses a PUBLIC_URL that is not an absolute http(s) origin', () => {
    expect(problemsOf({ PUBLIC_URL: 'nope' })).toEqual(['PUBLIC_URL: "nope" is not an absolute URL']);
    expect(problemsOf({ PUBLIC_URL: 'http://x.example/?a=1' })).toEqual([
      'PUBLIC_URL: must not carry a query or fragment',
    ]);
  });

  it('connection deadlines: defaults in seconds, and headers may not outlast the whole request', () => {
    expect(loadConfig({})).toMatchObject({
      headersTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      idleTimeoutSeconds: 60,
      keepAliveTimeoutSeconds: 72,
    });
    expect(problemsOf({ HEADERS_TIMEOUT_SECONDS: '40', REQUEST_TIMEOUT_SECONDS: '30' })).toEqual([
      'HEADERS_TIMEOUT_SECONDS: must not exceed REQUEST_TIMEOUT_SECONDS (30)',
    ]);
    expect(
      problemsOf({ IDLE_TIMEOUT_SECONDS: '0', KEEP_ALIVE_TIMEOUT_SECONDS: 'soon' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['IDLE_TIMEOUT_SECONDS', 'KEEP_ALIVE_TIMEOUT_SECONDS']);
  });

  it('metrics: no token and no port by default, the listener on loopback; a short token or the public port refused', () => {
    expect(loadConfig({})).toMatchObject({ metricsToken: undefined, metricsPort: undefined, metricsHost: '127.0.0.1' });
    expect(problemsOf({ METRICS_TOKEN: 'short' })).toEqual([
      'METRICS_TOKEN: expected string length greater or equal to 32',
    ]);
    expect(problemsOf({ PORT: '8080', METRICS_PORT: '8080' })).toEqual(['METRICS_PORT: must differ from PORT (8080)']);
  });

  it('warm-up: 1 s by default, fractions and 0 (off) accepted, at most 60; anything else named', () => {
    expect(loadConfig({}).warmupSeconds).toBe(0.5);
    expect(loadConfig({ WARMUP_SECONDS: '0.25' }).warmupSeconds).toBe(0.25);
    expect(loadConfig({ WARMUP_SECONDS: '0' }).warmupSeconds).toBe(0);
    expect(problemsOf({ WARMUP_SECONDS: '-1' })).toEqual([
      'WARMUP_SECONDS: expected number to be greater or equal to 0 (got "-1")',
    ]);
    expect(problemsOf({ WARMUP_SECONDS: '61' })).toEqual([
      'WARMUP_SECONDS: expected number to be less or equal to 60 (got "61")',
    ]);
    expect(problemsOf({ WARMUP_SECONDS: 'on' })).toEqual(['WARMUP_SECONDS: expected number (got "on")']);
  });
});
