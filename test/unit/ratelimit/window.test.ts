/**
 * Rate-limit window arithmetic, key choice and the rate-limit settings (DECISIONS.md "Rate limits").
 */
import { describe, expect, it } from 'vitest';
import { httpDate, statusOf, windowAt } from '../../../src/ratelimit/window.ts';
import { clientNetwork, subjectKey, subjectOf } from '../../../src/ratelimit/limiter.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';

describe('windowAt', () => {
  it('is [floor(now/3600)*3600, +3600): aligned to the hour, start inclusive, end exclusive', () => {
    expect(windowAt(1342521939)).toEqual({ start: 1342519200, end: 1342522800 });
    expect(windowAt(1342519200)).toEqual({ start: 1342519200, end: 1342522800 });
    expect(windowAt(1342522799)).toEqual({ start: 1342519200, end: 1342522800 });
    expect(windowAt(1342522800)).toEqual({ start: 1342522800, end: 1342526400 });
    expect(windowAt(0)).toEqual({ start: 0, end: 3600 });
  });
});

describe('statusOf', () => {
  it('remaining + current = limit; Retry-After is the seconds to the window end', () => {
    expect(statusOf(1000, 14, 1342521939)).toEqual({
      limit: 1000,
      remaining: 986,
      current: 14,
      reset: 1342522800,
      retryAfter: 861,
      exceeded: false,
    });
    expect(statusOf(3, 3, 1342522799)).toEqual({
      limit: 3,
      remaining: 0,
      current: 3,
      reset: 1342522800,
      retryAfter: 1,
      exceeded: false,
    });
  });
  it('over the limit: exceeded, current capped at the limit and remaining never below 0', () => {
    expect(statusOf(3, 9, 1342521939)).toEqual({
      limit: 3,
      remaining: 0,
      current: 3,
      reset: 1342522800,
      retryAfter: 861,
      exceeded: true,
    });
  });
  it('nothing counted yet: remaining is the limit', () => {
    expect(statusOf(5000, 0, 1342522800)).toMatchObject({ remaining: 5000, current: 0, reset: 1342526400 });
  });
});

describe('httpDate', () => {
  it('is the RFC 7231 IMF-fixdate of a Unix time', () => {
    expect(httpDate(1342521939)).toBe('Tue, 17 Jul 2012 10:45:39 GMT');
    expect(httpDate(1342522800)).toBe('Tue, 17 Jul 2012 11:00:00 GMT');
  });
});

describe('subjects and keys', () => {
  const principal = { userId: 7, username: 'u', scopes: new Set<string>(), clientId: 3, tokenId: 11 };
  it('a valid token counts against (user, client); no token against the IP', () => {
    expect(subjectOf(principal, '10.0.0.1')).toEqual({ kind: 'token', userId: 7, clientId: 3 });
    expect(subjectOf(undefined, '10.0.0.1')).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
  });
  it('anonymous clients: IPv4 as is (also IPv4-mapped), IPv6 by its /64', () => {
    expect(clientNetwork('192.0.2.1')).toBe('192.0.2.1');
    expect(clientNetwork('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientNetwork('2001:db8:0:1:2:3:4:5')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('2001:DB8:0000:0001::5')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('2001:db8:0:1::')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientNetwork('::ffff:c000:201')).toBe('0:0:0:0::/64');
    expect(subjectOf(undefined, '2001:db8:0:1::7')).toEqual({ kind: 'anonymous', ip: '2001:db8:0:1::/64' });
  });
  it('subject keys; operator tokens (no client) have client "none"', () => {
    expect(subjectKey({ kind: 'token', userId: 7, clientId: 3 })).toBe('user:7:client:3');
    expect(subjectKey({ kind: 'token', userId: 7, clientId: null })).toBe('user:7:client:none');
    expect(subjectKey({ kind: 'anonymous', ip: '::1' })).toBe('ip:::1');
  });
});

describe('rate-limit settings', () => {
  const base = { DATABASE_URL: 'sqlite::memory:' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (e) {
      if (e instanceof ConfigError) return e.problems;
      throw e;
    }
    return [];
  };

  it('defaults: 1000 anonymous, 5000 with a token, in memory, proxies not trusted', () => {
    const c = loadConfig(base);
    expect([c.rateLimitAnonymous, c.rateLimitAuthenticated, c.redisUrl, c.rateLimitKeyPrefix, c.trustProxy]).toEqual([
      1000,
      5000,
      undefined,
      'tipjar:ratelimit',
      false,
    ]);
  });

  it('reads the limits, REDIS_URL and the key prefix', () => {
    const c = loadConfig({
      ...base,
      RATE_LIMIT_ANONYMOUS: '1000000000',
      RATE_LIMIT_AUTHENTICATED: '7',
      REDIS_URL: 'redis://127.0.0.1:6379/2',
      RATE_LIMIT_KEY_PREFIX: 'x',
    });
    expect([c.rateLimitAnonymous, c.rateLimitAuthenticated, c.redisUrl, c.rateLimitKeyPrefix]).toEqual([
      1000000000,
      7,
      'redis://127.0.0.1:6379/2',
      'x',
    ]);
  });

  it('TRUST_PROXY: false, true, a hop count, or addresses/CIDRs', () => {
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: 'FALSE' }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, ::1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      'loopback',
    ]);
  });

  it('refuses bad values, naming each setting', () => {
    expect(
      problems({
        RATE_LIMIT_ANONYMOUS: '0',
        RATE_LIMIT_AUTHENTICATED: 'many',
        REDIS_URL: 'localhost:6379',
        TRUST_PROXY: 'proxy.example',
      })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['RATE_LIMIT_ANONYMOUS', 'RATE_LIMIT_AUTHENTICATED', 'REDIS_URL', 'TRUST_PROXY']);
    expect(problems({ TRUST_PROXY: '10.0.0.0/8/1' })).toHaveLength(1);
  });
});
