/**
 * The URL guard (src/webhooks/guard.ts, DECISIONS.md "Partners, pending things, webhooks" and
 * "Discovery"). Names are resolved by a stub resolver at the address-check level; the only real
 * requests go to servers this file starts on 127.0.0.1 — proving the guard blocks the real request
 * and that the explicit allowance (`--allow-private-webhook`) lets it through.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbiddenRange, resolveTarget, UnsafeUrlError, type Resolver } from '../../src/webhooks/guard.ts';
import { FetchError, guardedRequest } from '../../src/webhooks/fetch.ts';
import { checkWebhookUrl } from '../../src/domain/partners.ts';
import { ValidationError } from '../../src/domain/errors.ts';

/** A resolver that knows a few names and records what it was asked. */
function stubResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const fn = (async (host: string) => {
    asked.push(host);
    const a = table[host];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return a;
  }) as Resolver & { asked: string[] };
  fn.asked = asked;
  return fn;
}

describe('forbiddenRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '172.15.255.255', '192.169.0.1', '11.0.0.1', '2606:4700:4700::1111'])('allows public %s', (address) => {
    expect(forbiddenRange(address)).toBeNull();
  });
});

describe('resolveTarget', () => {
  it.each([
    ['http://127.0.0.1/hook', 'loopback'],
    ['http://10.1.2.3/hook', 'private'],
    ['http://172.16.5.4:8080/hook', 'private'],
    ['https://192.168.0.10/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['http://[::1]:3000/hook', 'loopback'],
    ['http://[fe80::1]/hook', 'linkLocal'],
    ['http://[fc00::5]/hook', 'uniqueLocal'],
  ])('refuses the literal address in %s without resolving', async (url, range) => {
    const resolver = stubResolver({});
    await expect(resolveTarget(url, { resolver })).rejects.toThrow(new RegExp(`a ${range} address`));
    expect(resolver.asked).toEqual([]);
  });

  it.each([
    ['loopback.test', ['127.0.0.1'], 'loopback'],
    ['ten.test', ['10.0.0.7'], 'private'],
    ['one-seventy-two.test', ['172.20.1.1'], 'private'],
    ['home.test', ['192.168.178.1'], 'private'],
    ['metadata.test', ['169.254.169.254'], 'linkLocal'],
    ['six.test', ['::1'], 'loopback'],
    ['mixed.test', ['93.184.216.34', '10.0.0.1'], 'private'],
  ])('refuses the name %s resolving to %j', async (host, addresses, range) => {
    const resolver = stubResolver({ [host]: addresses });
    const err = await resolveTarget(`https://${host}/hook`, { resolver }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as Error).message).toContain(`a ${range} address`);
    expect(resolver.asked).toEqual([host]);
  });

  it('accepts a name whose every address is public and returns exactly those addresses', async () => {
    const resolver = stubResolver({ 'partner.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    const target = await resolveTarget('https://partner.test/hook', { resolver });
    expect(target.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('refuses other schemes, unresolvable names and malformed URLs', async () => {
    const resolver = stubResolver({});
    await expect(resolveTarget('ftp://93.184.216.34/x', { resolver })).rejects.toThrow(/only http and https/);
    await expect(resolveTarget('file:///etc/passwd', { resolver })).rejects.toThrow(/only http and https/);
    await expect(resolveTarget('https://nowhere.test/', { resolver })).rejects.toThrow(/cannot resolve nowhere\.test/);
    await expect(resolveTarget('not a url', { resolver })).rejects.toThrow(/not an absolute URL/);
  });

  it('lets private addresses through only with allowPrivate', async () => {
    const resolver = stubResolver({ 'intranet.test': ['10.0.0.1'] });
    const target = await resolveTarget('http://intranet.test/hook', { resolver, allowPrivate: true });
    expect(target.addresses).toEqual([{ address: '10.0.0.1', family: 4 }]);
  });
});

describe('partner webhook URL at registration', () => {
  it('is refused with a validation error naming the reason, unless allowed', async () => {
    const resolver = stubResolver({ 'hooks.internal.test': ['192.168.1.20'] });
    const err = await checkWebhookUrl('https://hooks.internal.test/tipjar', false, resolver).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('validation');
    expect((err as Error).message).toBe(
      'webhook-url: refused: hooks.internal.test resolves to 192.168.1.20, a private address (an operator may allow it with --allow-private-webhook)',
    );
    await expect(checkWebhookUrl('https://hooks.internal.test/tipjar', true, resolver)).resolves.toBe('https://hooks.internal.test/tipjar');
    await expect(checkWebhookUrl('http://[::1]/x', false, resolver)).rejects.toThrow(/a loopback address/);
  });
});

describe('real requests to 127.0.0.1', () => {
  let target: Server;
  let hits = 0;
  let base = '';
  /** a "public" front that redirects into the loopback server */
  let front: Server;
  let frontBase = '';

  beforeAll(async () => {
    target = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('secret');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    front = createServer((_req, res) => res.writeHead(302, { location: `${base}/admin` }).end());
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    frontBase = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => target.close(() => r()));
    await new Promise<void>((r) => front.close(() => r()));
  });

  it('blocks a request to a loopback literal before connecting', async () => {
    hits = 0;
    const err = await guardedRequest({ url: `${base}/hook`, method: 'POST', body: 'a=1', timeoutMs: 2000, maxBytes: 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('refused');
    expect(hits).toBe(0);
  });

  it('blocks a name that resolves to loopback, and lets it through when allowed (connecting to the checked address)', async () => {
    const port = (target.address() as AddressInfo).port;
    const resolver = stubResolver({ 'sneaky.test': ['127.0.0.1'] });
    hits = 0;
    const refused = await guardedRequest({ url: `http://sneaky.test:${port}/`, method: 'GET', timeoutMs: 2000, maxBytes: 1024, resolver }).catch((e: unknown) => e);
    expect((refused as FetchError).kind).toBe('refused');
    expect(hits).toBe(0);
    const allowed = await guardedRequest({ url: `http://sneaky.test:${port}/`, method: 'GET', timeoutMs: 2000, maxBytes: 1024, resolver, allowPrivate: true });
    expect(allowed.status).toBe(200);
    expect(allowed.body.toString()).toBe('secret');
    expect(hits).toBe(1);
  });

  it('refuses a redirect to a loopback address: every hop is checked again', async () => {
    // Only the front server's URL is allowed; the hop it redirects to (the target) is not.
    const frontPort = (front.address() as AddressInfo).port;
    const onlyFront = (u: URL) => u.port === String(frontPort);
    hits = 0;
    const err = await guardedRequest({ url: `${frontBase}/`, method: 'GET', timeoutMs: 2000, maxBytes: 1024, allowPrivate: onlyFront, maxRedirects: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('refused');
    expect((err as FetchError).message).toBe('refused: 127.0.0.1 is a loopback address');
    expect(hits).toBe(0);
    // With both allowed, the same redirect is followed to the target.
    const ok = await guardedRequest({ url: `${frontBase}/`, method: 'GET', timeoutMs: 2000, maxBytes: 1024, allowPrivate: true, maxRedirects: 3 });
    expect(ok.status).toBe(200);
    expect(ok.finalUrl).toBe(`${base}/admin`);
    expect(hits).toBe(1);
  });

  it('never follows redirects unless asked (webhooks): the 3xx itself is the answer', async () => {
    hits = 0;
    const res = await guardedRequest({ url: `${frontBase}/`, method: 'POST', body: 'x=1', timeoutMs: 2000, maxBytes: 1024, allowPrivate: true });
    expect(res.status).toBe(302);
    expect(hits).toBe(0);
  });
});
