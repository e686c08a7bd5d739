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
import { checkWebhookUrl } from '../../src/webhooks/partners.ts';
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

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '172.15.255.255',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
  ])('allows public %s', (address) => {
    expect(forbiddenRange(address)).toBeNull();
  });
});

/**
 * Every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries, plus multicast, the
 * IPv6 space outside global unicast and the IPv6 forms that embed an IPv4 address: one address
 * each (several at the edges), with the range name the guard reports.
 */
describe('forbiddenRange: special-purpose registries', () => {
  it.each([
    // IPv4 Special-Purpose Address Registry
    ['0.0.0.0', 'unspecified'], // 0.0.0.0/8 "this network"
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.0', 'private'],
    ['100.64.0.0', 'carrierGradeNat'], // 100.64.0.0/10 shared address space
    ['100.127.255.255', 'carrierGradeNat'],
    ['127.0.0.0', 'loopback'],
    ['169.254.0.0', 'linkLocal'],
    ['169.254.255.255', 'linkLocal'],
    ['172.16.0.0', 'private'],
    ['192.0.0.0', 'reserved'], // 192.0.0.0/24 IETF protocol assignments
    ['192.0.0.8', 'reserved'], // IPv4 dummy address
    ['192.0.0.9', 'reserved'], // Port Control Protocol anycast
    ['192.0.0.10', 'reserved'], // TURN anycast
    ['192.0.0.170', 'reserved'], // NAT64/DNS64 discovery
    ['192.0.0.171', 'reserved'],
    ['192.0.0.255', 'reserved'],
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['192.31.196.1', 'as112'], // AS112-v4
    ['192.52.193.1', 'amt'], // AMT
    ['192.88.99.1', 'reserved'], // deprecated 6to4 relay anycast
    ['192.168.255.255', 'private'],
    ['192.175.48.1', 'as112'], // direct delegation AS112
    ['198.18.0.0', 'reserved'], // 198.18.0.0/15 benchmarking
    ['198.19.255.255', 'reserved'],
    ['198.51.100.1', 'reserved'], // TEST-NET-2
    ['203.0.113.1', 'reserved'], // TEST-NET-3
    ['240.0.0.0', 'reserved'], // 240.0.0.0/4 reserved
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv4 multicast
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    // IPv4 written as other text that still means an address
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    // IPv6 Special-Purpose Address Registry
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'], // IPv4-mapped: judged by the IPv4 address
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known prefix: judged by the IPv4 address
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b:1::1', 'rfc6052'], // 64:ff9b:1::/48 local-use IPv4/IPv6 translation
    ['64:ff9b:1:ffff::808:808', 'rfc6052'],
    ['100::1', 'discard'], // 100::/64 discard-only
    ['100:0:0:1::1', 'reserved'], // 100:0:0:1::/64 dummy IPv6 prefix (outside 2000::/3)
    ['2001::1', 'teredo'], // 2001::/32 Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:1::1', 'reserved'], // 2001::/23 IETF protocol assignments: PCP anycast
    ['2001:1::2', 'reserved'], // TURN anycast
    ['2001:1::3', 'reserved'], // DNS-SD service registration anycast
    ['2001:1ff:ffff:ffff::1', 'reserved'], // last /64 of 2001::/23
    ['2001:2::1', 'benchmarking'],
    ['2001:3::1', 'amt'],
    ['2001:4:112::1', 'as112v6'],
    ['2001:10::1', 'deprecatedOrchid'],
    ['2001:20::1', 'orchid2'],
    ['2001:30::1', 'droneRemoteIdProtocolEntityTags'],
    ['2001:db8::1', 'reserved'], // documentation
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
    ['2002::1', '6to4'],
    ['2002:7f00:1::1', '6to4'], // 6to4 carrying 127.0.0.1
    ['2620:4f:8000::1', 'as112v6'],
    ['3fff::1', 'reserved'], // 3fff::/20 documentation
    ['3fff:fff:ffff::1', 'reserved'],
    ['5f00::1', 'segmentRouting'],
    ['fc00::1', 'uniqueLocal'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf:ffff::1', 'linkLocal'],
    // IPv6 outside the registry, still not global unicast
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['ff0e::101', 'multicast'],
    ['::7f00:1', 'ipv4Compatible'], // ::127.0.0.1, IPv4-compatible (deprecated)
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'], // refused even with a public IPv4 inside
    ['::ffff:0:7f00:1', 'rfc6145'], // IPv4-translated
    ['::1:0:0:1', 'reserved'], // rest of ::/8
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'], // just below 2000::/3
    ['4000::', 'reserved'], // just above 2000::/3
    ['e000::1', 'reserved'],
  ])('refuses %s (%s)', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each([
    '1.1.1.1',
    '100.63.255.255', // just below 100.64.0.0/10
    '100.128.0.0', // just above it
    '192.0.1.255',
    '192.0.3.0',
    '198.17.255.255', // just below 198.18.0.0/15
    '198.20.0.0', // just above it
    '223.255.255.255', // just below multicast
    '::ffff:8.8.8.8', // IPv4-mapped, public inside
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2001:200::1', // first address after 2001::/23
    '2620:4f:7fff:ffff::1', // just below AS112's 2620:4f:8000::/48
    '2001:4860:4860::8888',
    '2400:cb00:2048:1::c629:d7a2',
    '2620:4f:8001::1',
    '2a00:1450:4001:81c::200e',
    '3ffe::1', // below 3fff::/20, still in 2000::/3
  ])('allows global unicast %s', (address) => {
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
    ['http://[::7f00:1]:3000/hook', 'ipv4Compatible'],
    ['http://[::127.0.0.1]/hook', 'ipv4Compatible'],
    ['http://[64:ff9b::7f00:1]/hook', 'loopback'],
    ['http://[2002:a9fe:a9fe::1]/latest/meta-data', '6to4'],
    ['http://100.64.1.1/hook', 'carrierGradeNat'],
    ['http://0x7f.1/hook', 'loopback'],
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
    ['compatible.test', ['::7f00:1'], 'ipv4Compatible'],
    ['nat64.test', ['64:ff9b::a9fe:a9fe'], 'linkLocal'],
    ['sixtofour.test', ['2002:7f00:1::1'], '6to4'],
    ['teredo.test', ['2001:0:4136:e378:8000:63bf:3fff:fdd2'], 'teredo'],
    ['cgnat.test', ['100.100.100.100'], 'carrierGradeNat'],
    ['benchmark.test', ['198.18.0.1'], 'reserved'],
    ['docs.test', ['2001:db8::10'], 'reserved'],
    ['dual.test', ['93.184.216.34', '2001:db8::1'], 'reserved'],
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

  it('accepts a name resolving to NAT64 and IPv4-mapped forms of public addresses, connecting to them as given', async () => {
    const resolver = stubResolver({ 'v6only.test': ['64:ff9b::5db8:d822', '::ffff:93.184.216.34'] });
    const target = await resolveTarget('https://v6only.test/hook', { resolver });
    expect(target.addresses).toEqual([
      { address: '64:ff9b::5db8:d822', family: 6 },
      { address: '::ffff:93.184.216.34', family: 6 },
    ]);
  });

  it('lets private addresses through only with allowPrivate', async () => {
    const resolver = stubResolver({ 'intranet.test': ['10.0.0.1'], 'compat.test': ['::7f00:1'] });
    const target = await resolveTarget('http://intranet.test/hook', { resolver, allowPrivate: true });
    expect(target.addresses).toEqual([{ address: '10.0.0.1', family: 4 }]);
    await expect(resolveTarget('http://compat.test/hook', { resolver })).rejects.toThrow(
      'refused: compat.test resolves to ::7f00:1, a ipv4Compatible address',
    );
    const compat = await resolveTarget('http://compat.test/hook', { resolver, allowPrivate: true });
    expect(compat.addresses).toEqual([{ address: '::7f00:1', family: 6 }]);
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
    await expect(checkWebhookUrl('https://hooks.internal.test/tipjar', true, resolver)).resolves.toBe(
      'https://hooks.internal.test/tipjar',
    );
    await expect(checkWebhookUrl('http://[::1]/x', false, resolver)).rejects.toThrow(/a loopback address/);
    await expect(checkWebhookUrl('http://[::7f00:1]/x', false, resolver)).rejects.toThrow(
      'webhook-url: refused: ::7f00:1 is a ipv4Compatible address',
    );
    await expect(checkWebhookUrl('http://[64:ff9b::a00:1]/x', false, resolver)).rejects.toThrow(
      'webhook-url: refused: 64:ff9b::a00:1 is a private address',
    );
    await expect(checkWebhookUrl('http://[::7f00:1]/x', true, resolver)).resolves.toBe('http://[::7f00:1]/x');
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
    const err = await guardedRequest({
      url: `${base}/hook`,
      method: 'POST',
      body: 'a=1',
      timeoutMs: 2000,
      maxBytes: 1024,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('refused');
    expect(hits).toBe(0);
  });

  it('blocks a name that resolves to loopback, and lets it through when allowed (connecting to the checked address)', async () => {
    const port = (target.address() as AddressInfo).port;
    const resolver = stubResolver({ 'sneaky.test': ['127.0.0.1'] });
    hits = 0;
    const refused = await guardedRequest({
      url: `http://sneaky.test:${port}/`,
      method: 'GET',
      timeoutMs: 2000,
      maxBytes: 1024,
      resolver,
    }).catch((e: unknown) => e);
    expect((refused as FetchError).kind).toBe('refused');
    expect(hits).toBe(0);
    const allowed = await guardedRequest({
      url: `http://sneaky.test:${port}/`,
      method: 'GET',
      timeoutMs: 2000,
      maxBytes: 1024,
      resolver,
      allowPrivate: true,
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.toString()).toBe('secret');
    expect(hits).toBe(1);
  });

  it('refuses a redirect to a loopback address: every hop is checked again', async () => {
    // Only the front server's URL is allowed; the hop it redirects to (the target) is not.
    const frontPort = (front.address() as AddressInfo).port;
    const onlyFront = (u: URL) => u.port === String(frontPort);
    hits = 0;
    const err = await guardedRequest({
      url: `${frontBase}/`,
      method: 'GET',
      timeoutMs: 2000,
      maxBytes: 1024,
      allowPrivate: onlyFront,
      maxRedirects: 3,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).kind).toBe('refused');
    expect((err as FetchError).message).toBe('refused: 127.0.0.1 is a loopback address');
    expect(hits).toBe(0);
    // With both allowed, the same redirect is followed to the target.
    const ok = await guardedRequest({
      url: `${frontBase}/`,
      method: 'GET',
      timeoutMs: 2000,
      maxBytes: 1024,
      allowPrivate: true,
      maxRedirects: 3,
    });
    expect(ok.status).toBe(200);
    expect(ok.finalUrl).toBe(`${base}/admin`);
    expect(hits).toBe(1);
  });

  it('never follows redirects unless asked (webhooks): the 3xx itself is the answer', async () => {
    hits = 0;
    const res = await guardedRequest({
      url: `${frontBase}/`,
      method: 'POST',
      body: 'x=1',
      timeoutMs: 2000,
      maxBytes: 1024,
      allowPrivate: true,
    });
    expect(res.status).toBe(302);
    expect(hits).toBe(0);
  });
});
