/** Identity forms (src/domain/identities.ts, notes §15) and the e-mail match of the claim page. */
import { describe, expect, it } from 'vitest';
import { claimUrl, parseIdentity } from '../../src/domain/identities.ts';
import { emailMatchesIdentity } from '../../src/domain/partners.ts';

describe('parseIdentity', () => {
  it.each([
    ['email:05f8b3480b04f6a516bb1a46e556323c', { kind: 'email', identity: 'email:05f8b3480b04f6a516bb1a46e556323c' }],
    ['email:05F8B3480B04F6A516BB1A46E556323C', { kind: 'email', identity: 'email:05f8b3480b04f6a516bb1a46e556323c' }],
    ['twitter:user:id:123', { kind: 'twitter', identity: 'twitter:user:id:123' }],
    [
      'partner:customnamespace:123',
      { kind: 'partner', identity: 'partner:customnamespace:123', namespace: 'customnamespace' },
    ],
    ['partner:ns-1_x:a:b@c.d', { kind: 'partner', identity: 'partner:ns-1_x:a:b@c.d', namespace: 'ns-1_x' }],
  ])('accepts %s', (raw, expected) => {
    expect(parseIdentity(raw)).toEqual(expected);
  });

  it.each([
    'email:05f8b3480b04f6a516bb1a46e556323',
    'email:05f8b3480b04f6a516bb1a46e556323c0',
    'email:05f8b3480b04f6a516bb1a46e556323g',
    'email:foo@example.com',
    'twitter:user:id:',
    'twitter:user:id:12a',
    'twitter:user:id:123456789012345678901',
    'twitter:123',
    'partner:ns',
    'partner:ns:',
    'partner::1',
    'partner:NS:1',
    'partner:-ns:1',
    `partner:ns:${'x'.repeat(201)}`,
    'partner:ns:a b',
    'partner:ns:é',
    'facebook:1',
    ' email:05f8b3480b04f6a516bb1a46e556323c',
    '',
  ])('refuses %j', (raw) => {
    expect(parseIdentity(raw)).toBeNull();
  });

  it('refuses non-strings', () => {
    for (const v of [undefined, null, 42, ['twitter:user:id:1'], {}]) expect(parseIdentity(v)).toBeNull();
  });
});

describe('claim page helpers', () => {
  it('builds claim_url with the identity URL-encoded', () => {
    expect(claimUrl('http://tipjar.test', 'partner:ns:a/b c')).toBe(
      'http://tipjar.test/claim/partner%3Ans%3Aa%2Fb%20c',
    );
  });
  it('matches an address to its email: identity case- and space-insensitively', () => {
    // md5("foo@example.com")
    const identity = 'email:b48def645758b95537d4424c84d1a9ff';
    expect(emailMatchesIdentity('foo@example.com', identity)).toBe(true);
    expect(emailMatchesIdentity('  Foo@Example.COM ', identity)).toBe(true);
    expect(emailMatchesIdentity('bar@example.com', identity)).toBe(false);
    expect(emailMatchesIdentity('', 'email:d41d8cd98f00b204e9800998ecf8427e')).toBe(false);
    expect(emailMatchesIdentity('foo@example.com', 'twitter:user:id:1')).toBe(false);
  });
});
