/**
 * The URL guard against server-side request forgery (DECISIONS.md "Partners, pending things,
 * webhooks" and "Discovery"): the service only sends requests to globally routable unicast
 * addresses. An address is allowed only when it is
 * - IPv4 outside every range of the IANA IPv4 Special-Purpose Address Registry, multicast
 *   (224/4), reserved (240/4) and broadcast: every range ipaddr.js does not call `unicast`;
 * - IPv6 inside global unicast `2000::/3` and outside every range of the IANA IPv6
 *   Special-Purpose Address Registry (documentation, benchmarking, ORCHID, AMT, AS112, 6to4,
 *   Teredo, …, all named by ipaddr.js's `range()`); everything outside `2000::/3` (loopback,
 *   unique-local, link-local, multicast, discard, IPv4-compatible `::/96`, unassigned space) is
 *   refused whatever ipaddr.js calls it;
 * - or an IPv6 form with an IPv4 address inside that the packet really goes to: IPv4-mapped
 *   `::ffff:0:0/96` and the NAT64 well-known prefix `64:ff9b::/96` are judged by that embedded
 *   IPv4 address. Other forms embedding IPv4 (`::/96`, `::ffff:0:0:0/96`, `64:ff9b:1::/48`,
 *   6to4, Teredo) are refused.
 * A host name is refused when ANY of its addresses is.
 *
 * The check runs on the addresses a request will actually connect to: `resolveTarget` resolves
 * once, checks, and `pinnedLookup` hands exactly those checked addresses to the socket, so a name
 * that resolves differently a moment later (DNS rebinding) cannot slip through.
 * `allowPrivate` (a partner's `--allow-private-webhook`, or DISCOVERY_ALLOW_PRIVATE for tests)
 * switches the address check off; the scheme check stays.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to every address it has (IPv4 and IPv6). Injected in tests. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, like every other client on the machine). */
export const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Whether private addresses are let through: a partner's or the operator's yes/no, or (tests) a
 * decision per URL, e.g. to allow one local server and prove a redirect to another is refused.
 */
export type PrivateAllowance = boolean | ((url: URL) => boolean);

/** A URL the guard refuses, with the reason (shown to operators, stored in attempt logs). */
export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** IPv6 global unicast (RFC 4291 §2.4): the only IPv6 space a guarded request may reach. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Deprecated IPv4-compatible IPv6 addresses (RFC 4291 §2.5.5.1), `::a.b.c.d`. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** The NAT64 well-known prefix (RFC 6052 §2.1): `64:ff9b::a.b.c.d` reaches the IPv4 address a.b.c.d. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * The range name of a forbidden address, or null when the address is globally routable unicast
 * (the rules in this file's header).
 * @param address an IPv4 or IPv6 address as text (an IPv6 zone id is allowed).
 * @returns null, or ipaddr.js's range name ('loopback', 'private', 'linkLocal', 'uniqueLocal',
 *   'reserved', '6to4', 'teredo', …), 'ipv4Compatible' for `::/96`, 'reserved' for IPv6 outside
 *   `2000::/3` that ipaddr.js has no name for, and 'invalid' for text that is not an IP address.
 *   IPv4-mapped and NAT64 addresses yield the range of their embedded IPv4 address.
 */
export function forbiddenRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes its IPv4 address
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) return forbiddenRange(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (v6.match(GLOBAL_UNICAST_V6)) return null;
  return v6.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'reserved';
}

/** The host of a URL as an address or name: IPv6 literals lose their brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** What a guarded request connects to: the URL and the checked addresses of its host. */
export interface ResolvedTarget {
  url: URL;
  addresses: { address: string; family: 4 | 6 }[];
}

/**
 * Checks a URL: http or https, a host, and (unless `allowPrivate`) only public unicast addresses
 * for that host — an IP literal directly, a name through `resolver`.
 * @returns the parsed URL and its checked addresses, for `pinnedLookup`.
 * @throws UnsafeUrlError naming the refused address and its range, or an unresolvable name.
 */
export async function resolveTarget(
  raw: string | URL,
  opts: { allowPrivate?: PrivateAllowance; resolver?: Resolver } = {},
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new UnsafeUrlError(`not an absolute URL: ${String(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeUrlError(`only http and https URLs are allowed (got ${url.protocol})`);
  const host = hostOf(url);
  if (!host) throw new UnsafeUrlError('the URL has no host');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolver ?? systemResolver)(host);
    } catch (err) {
      throw new UnsafeUrlError(`cannot resolve ${host}: ${(err as Error).message}`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`cannot resolve ${host}: no addresses`);
  }
  const allowed = typeof opts.allowPrivate === 'function' ? opts.allowPrivate(url) : opts.allowPrivate === true;
  if (!allowed) {
    for (const a of addresses) {
      const range = forbiddenRange(a);
      if (range)
        throw new UnsafeUrlError(
          host === a ? `refused: ${a} is a ${range} address` : `refused: ${host} resolves to ${a}, a ${range} address`,
        );
    }
  }
  return {
    url,
    addresses: addresses.map((address) => {
      const p = ipaddr.parse(address);
      return { address: p.kind() === 'ipv6' ? address : p.toString(), family: p.kind() === 'ipv6' ? 6 : 4 };
    }),
  };
}

/**
 * A `lookup` for http.request/net.connect that answers with the already-checked addresses only
 * (never asking DNS again), in the shape the caller asks for (`all` or one address).
 */
export function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return ((
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    const fam =
      options?.family === 6 || options?.family === 'IPv6'
        ? 6
        : options?.family === 4 || options?.family === 'IPv4'
          ? 4
          : 0;
    const list: LookupAddress[] = target.addresses.filter((a) => fam === 0 || a.family === fam);
    if (list.length === 0) {
      const err = Object.assign(new Error(`no ${fam ? `IPv${fam} ` : ''}address for ${target.url.hostname}`), {
        code: 'ENOTFOUND',
      });
      if (options?.all) callback(err, []);
      else callback(err, '', 0);
      return;
    }
    if (options?.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  }) as unknown as LookupFunction;
}
