/**
 * Property tests (fast-check) for the redirect_uri check (RFC 6749 §3.1.2, DECISIONS.md "OAuth 2")
 * and callback-domain normalisation: whatever the input, an accepted redirect URI never leads
 * outside the callback domain, never uses plain http off the loopback hosts, and never carries a
 * fragment or user info.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkRedirectUri,
  chooseRedirectUri,
  defaultRedirectUri,
  isRegisteredRedirectUri,
  RESERVED_RESPONSE_PARAMETERS,
} from '../../../../src/auth/oauth/redirect.ts';
import { normalizeCallbackDomain } from '../../../../src/auth/oauth/clients.ts';
import { ValidationError } from '../../../../src/domain/errors.ts';

const DOMAINS = ['example.com', 'app.example.com', 'localhost', '127.0.0.1'];
const PIECES = [
  'https://',
  'http://',
  'HTTPS://',
  'javascript:',
  'https:',
  '//',
  '/',
  '\\',
  '@',
  '#',
  '?',
  ':',
  '.',
  '%2e',
  '%40',
  '%23',
  'example.com',
  'app.example.com',
  'evil.com',
  'example.com.evil.com',
  'localhost',
  '127.0.0.1',
  '0x7f.1',
  '[::1]',
  'user:pw',
  '8080',
  'cb',
  'a',
  '-',
  ' ',
  '\t',
  '\u0000',
  'ex\u0430mple.com',
  'EXAMPLE.COM',
  '?code=1',
  '&state=x',
  '?app=1',
  '=',
  '&',
  'iss',
  '%63ode',
  'scope',
];

/** Strings assembled from URL-ish pieces: mostly near-misses of valid redirect URIs. */
const uriLike = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((p) => p.join(''));

function inDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

describe('RFC 6749 §3.1.2 redirect_uri check (properties)', () => {
  it('an accepted URI is https (or http on a loopback host), inside the domain, without fragment or user info', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DOMAINS),
        fc.oneof(uriLike, fc.webUrl({ withFragments: true, withQueryParameters: true })),
        (domain, uri) => {
          const r = checkRedirectUri({ callbackDomain: domain }, uri);
          if (!r.ok) return;
          const url = new URL(uri);
          expect(inDomain(url.hostname, domain)).toBe(true);
          expect(
            url.protocol === 'https:' ||
              (url.protocol === 'http:' && ['localhost', '127.0.0.1'].includes(url.hostname)),
          ).toBe(true);
          expect(uri.includes('#')).toBe(false);
          expect(url.username + url.password).toBe('');
          for (const name of url.searchParams.keys()) expect(RESERVED_RESPONSE_PARAMETERS).not.toContain(name);
          expect(r.url.href).toBe(url.href);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('accepts every https URL on the domain or a subdomain, with any port, path and query', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('example.com', 'app.example.com'),
        fc.array(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/), { maxLength: 3 }),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        fc.webPath(),
        (domain, labels, port, path) => {
          const host = [...labels, domain].join('.');
          const uri = `https://${host}${port ? `:${port}` : ''}${path.startsWith('/') ? path : `/${path}`}`;
          fc.pre(!uri.includes('#') && !/[\s\\]/.test(uri));
          expect(checkRedirectUri({ callbackDomain: domain }, uri).ok).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('the default redirect URI of any domain passes its own check', () => {
    for (const d of DOMAINS)
      expect(checkRedirectUri({ callbackDomain: d }, defaultRedirectUri({ callbackDomain: d })).ok).toBe(true);
  });
});

describe('RFC 9700 §4.1.3 registered redirect URIs', () => {
  const registered = ['https://app.example.com/cb', 'http://localhost/native', 'http://127.0.0.1:8000/n?x=1'];

  it('match as strings, with no normalisation', () => {
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/cb')).toBe(true);
    for (const uri of [
      'https://app.example.com/cb/',
      'HTTPS://app.example.com/cb',
      'https://app.example.com:443/cb',
      'https://app.example.com/c%62',
      'https://app.example.com/cb?',
    ]) {
      expect(isRegisteredRedirectUri(registered, uri), uri).toBe(false);
    }
  });

  it('a loopback http URI matches with any port or none (RFC 8252 §7.3), the rest as strings', () => {
    for (const uri of [
      'http://localhost/native',
      'http://localhost:1/native',
      'http://localhost:65535/native',
      'http://127.0.0.1/n?x=1',
      'http://127.0.0.1:9/n?x=1',
    ]) {
      expect(isRegisteredRedirectUri(registered, uri), uri).toBe(true);
    }
    for (const uri of [
      'https://localhost:1/native',
      'http://localhost:1/native/',
      'http://localhost.evil:1/native',
      'http://127.0.0.1:9/n',
      'http://localhost:1@evil/native',
    ]) {
      expect(isRegisteredRedirectUri(registered, uri), uri).toBe(false);
    }
  });

  it('chooseRedirectUri: registered ones only; without redirect_uri the only one, the domain root, or a refusal', () => {
    const none = { callbackDomain: 'app.example.com', redirectUris: [] };
    const one = { callbackDomain: 'app.example.com', redirectUris: ['https://app.example.com/cb'] };
    const two = {
      callbackDomain: 'app.example.com',
      redirectUris: ['https://app.example.com/cb', 'https://app.example.com/cb2'],
    };
    expect(chooseRedirectUri(none, undefined)).toEqual({
      ok: true,
      redirectUri: 'https://app.example.com/',
      given: false,
    });
    expect(chooseRedirectUri(none, 'https://x.app.example.com/any')).toEqual({
      ok: true,
      redirectUri: 'https://x.app.example.com/any',
      given: true,
    });
    expect(chooseRedirectUri(one, undefined)).toEqual({
      ok: true,
      redirectUri: 'https://app.example.com/cb',
      given: false,
    });
    expect(chooseRedirectUri(one, 'https://app.example.com/cb')).toEqual({
      ok: true,
      redirectUri: 'https://app.example.com/cb',
      given: true,
    });
    expect(chooseRedirectUri(one, 'https://app.example.com/other')).toMatchObject({ ok: false });
    expect(chooseRedirectUri(one, 'https://app.example.com/cb?code=x')).toEqual({
      ok: false,
      reason: 'redirect_uri must not carry "code" in its query: the authorization response adds its own',
    });
    expect(chooseRedirectUri(two, undefined)).toEqual({
      ok: false,
      reason: 'redirect_uri is required: the application registered several redirect URIs',
    });
    expect(chooseRedirectUri(two, 'https://app.example.com/cb2')).toEqual({
      ok: true,
      redirectUri: 'https://app.example.com/cb2',
      given: true,
    });
  });

  it('whatever is asked, a chosen URI is a registered one when any are registered (property)', () => {
    fc.assert(
      fc.property(
        fc.subarray(['https://app.example.com/cb', 'https://app.example.com/cb?app=1', 'http://localhost/n'], {
          minLength: 1,
        }),
        fc.option(fc.oneof(uriLike, fc.webUrl()), { nil: undefined }),
        (uris, asked) => {
          const r = chooseRedirectUri(
            {
              callbackDomain: uris.some((u) => u.includes('localhost')) ? 'localhost' : 'app.example.com',
              redirectUris: uris,
            },
            asked,
          );
          if (r.ok) expect(isRegisteredRedirectUri(uris, r.redirectUri)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('callback domain normalisation (properties)', () => {
  it('either refuses with a ValidationError or returns a lower-case host name that normalises to itself', () => {
    fc.assert(
      fc.property(fc.oneof(uriLike, fc.domain(), fc.string({ maxLength: 30 })), (raw) => {
        let d: string;
        try {
          d = normalizeCallbackDomain(raw);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          return;
        }
        expect(d).toMatch(/^[a-z0-9.-]+$/);
        expect(normalizeCallbackDomain(d)).toBe(d);
        expect(new URL(`https://${d}/`).hostname).toBe(d);
      }),
      { numRuns: 3000 },
    );
  });
});
