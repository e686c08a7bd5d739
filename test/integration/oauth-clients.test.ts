/**
 * Client applications (src/auth/oauth/clients.ts, api-v2.md "Authentication" 2, DECISIONS.md
 * "OAuth 2") and the `tipjar apps` commands, on every engine: registration and its validation, the
 * secret stored hashed, rotation, soft deletion, authorized apps and their revocation.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { buildUser, uniqueName } from '../helpers/factories.ts';
import { authorizeCode, buildClient } from '../helpers/oauth.ts';
import {
  authenticateClient,
  createClient,
  deleteClient,
  findClientByClientId,
  listAuthorizedApps,
  listClientsOwnedBy,
  revokeAuthorization,
  rotateClientSecret,
  setClientRedirectUris,
  verifyClientSecret,
} from '../../src/auth/oauth/clients.ts';
import { approveAuthorization, validateAuthorizationRequest } from '../../src/auth/oauth/authorize.ts';
import { checkRedirectUri } from '../../src/auth/oauth/redirect.ts';
import { NotFoundError, ValidationError } from '../../src/domain/errors.ts';

const START = 1_767_225_600;
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const run = promisify(execFile);

describe.each(ENGINES)('OAuth client applications on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(START);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const clientCount = async () =>
    Number(
      (
        await t.db.database.db
          .selectFrom('oauth_clients')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const works = async (token: string) =>
    (await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode === 200;
  /** An implicit-flow token of `clientId` for `userId` with `scope`. */
  async function grant(clientId: string, userId: number, scope = 'tip'): Promise<string> {
    const request = await validateAuthorizationRequest(t.services, {
      response_type: 'token',
      client_id: clientId,
      scope,
    });
    return new URLSearchParams(new URL(await approveAuthorization(t.services, request, userId)).hash.slice(1)).get(
      'access_token',
    )!;
  }

  describe('registration (api-v2.md "Authentication" 2)', () => {
    it('returns a client id and a secret shown once; the database keeps only its SHA-256', async () => {
      const owner = await buildUser(t.services);
      const r = await createClient(t.services, {
        name: '  My App  ',
        callbackDomain: 'App.Example.COM',
        ownerUserId: owner.user.id,
      });
      expect(Object.keys(r).sort()).toEqual(['client', 'clientId', 'clientSecret']);
      expect(r.clientId).toMatch(/^[0-9a-f]{40}$/);
      expect(r.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(r.client).toMatchObject({
        clientId: r.clientId,
        name: 'My App',
        callbackDomain: 'app.example.com',
        ownerUserId: owner.user.id,
        createdAt: START,
        updatedAt: 0,
      });
      const row = await t.db.database.db
        .selectFrom('oauth_clients')
        .selectAll()
        .where('client_id', '=', r.clientId)
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).toBe(sha256(r.clientSecret));
      expect(JSON.stringify(row)).not.toContain(r.clientSecret);
      expect(await findClientByClientId(t.services, r.clientId)).toEqual(r.client);
    });

    it('accepts localhost, IPv4 addresses, deep subdomains and converts international names to xn--', async () => {
      for (const [given, stored] of [
        ['localhost', 'localhost'],
        ['127.0.0.1', '127.0.0.1'],
        ['a.b-c.example.co.uk', 'a.b-c.example.co.uk'],
        ['bücher.example', 'xn--bcher-kva.example'],
      ]) {
        expect((await buildClient(t.services, { callbackDomain: given })).client.callbackDomain).toBe(stored);
      }
    });

    it('refuses a callback domain that is not a bare host name → ValidationError, storing nothing', async () => {
      const before = await clientCount();
      for (const bad of [
        '',
        '   ',
        'https://app.example.com',
        'app.example.com/callback',
        'app.example.com:8080',
        'user@app.example.com',
        'app..example.com',
        '-app.example.com',
        'app_x.example.com',
        'app.example.com.',
        'app example.com',
        '1.2.3',
        '0x7f.1',
        `${'a'.repeat(64)}.com`,
        'app.example.com?x',
        'app.example.com#x',
      ]) {
        await expect(
          createClient(t.services, { name: 'x', callbackDomain: bad, ownerUserId: null }),
          bad,
        ).rejects.toBeInstanceOf(ValidationError);
      }
      await expect(
        createClient(t.services, { name: 'x', callbackDomain: 42, ownerUserId: null }),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(await clientCount()).toBe(before);
    });

    it('refuses an empty, too long or control-character name → ValidationError', async () => {
      for (const name of ['', '   ', 'x'.repeat(101), 'a\u0000b', 'a\nb', undefined]) {
        await expect(
          createClient(t.services, { name, callbackDomain: 'example.com', ownerUserId: null }),
        ).rejects.toMatchObject({ code: 'validation' });
      }
      expect((await buildClient(t.services, { name: 'x'.repeat(100) })).client.name).toHaveLength(100);
    });

    it('refuses an unknown owner → NotFoundError', async () => {
      await expect(
        createClient(t.services, { name: 'x', callbackDomain: 'example.com', ownerUserId: 999_999 }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('exact redirect URIs (RFC 9700 §2.1)', () => {
    const rowUris = async (clientId: string) =>
      (
        await t.db.database.db
          .selectFrom('oauth_clients')
          .select('redirect_uris')
          .where('client_id', '=', clientId)
          .executeTakeFirstOrThrow()
      ).redirect_uris;

    it('registers them trimmed, in order, without empty entries or repeats; as a list or as text with one per line', async () => {
      const a = await createClient(t.services, {
        name: 'Exact',
        callbackDomain: 'app.example.com',
        redirectUris: [' https://app.example.com/cb ', '', 'https://app.example.com/cb2', 'https://app.example.com/cb'],
        ownerUserId: null,
      });
      expect(a.client.redirectUris).toEqual(['https://app.example.com/cb', 'https://app.example.com/cb2']);
      expect(JSON.parse(await rowUris(a.clientId))).toEqual([
        'https://app.example.com/cb',
        'https://app.example.com/cb2',
      ]);
      expect((await findClientByClientId(t.services, a.clientId))?.redirectUris).toEqual([
        'https://app.example.com/cb',
        'https://app.example.com/cb2',
      ]);

      const b = await createClient(t.services, {
        name: 'Text',
        callbackDomain: 'app.example.com',
        redirectUris: '\r\nhttps://app.example.com/a\r\n  https://x.app.example.com/b?app=1\n\n',
        ownerUserId: null,
      });
      expect(b.client.redirectUris).toEqual(['https://app.example.com/a', 'https://x.app.example.com/b?app=1']);
      expect((await buildClient(t.services)).client.redirectUris).toEqual([]);
    });

    it('refuses a URI the redirect_uri rules refuse, naming it, and more than 10 → ValidationError, storing nothing', async () => {
      const before = await clientCount();
      for (const [uri, reason] of [
        ['https://evil.example/cb', "redirect_uri must lie in the application's callback domain app.example.com"],
        ['http://app.example.com/cb', 'redirect_uri must use https (plain http only for localhost and 127.0.0.1)'],
        ['https://app.example.com/cb#x', 'redirect_uri must not contain a fragment (#)'],
        [
          'https://app.example.com/cb?code=1',
          'redirect_uri must not carry "code" in its query: the authorization response adds its own',
        ],
        [
          'https://app.example.com/cb?x=1&iss=me',
          'redirect_uri must not carry "iss" in its query: the authorization response adds its own',
        ],
        ['/cb', 'redirect_uri is not an absolute URL'],
      ]) {
        await expect(
          createClient(t.services, {
            name: 'x',
            callbackDomain: 'app.example.com',
            redirectUris: ['https://app.example.com/ok', uri],
            ownerUserId: null,
          }),
        ).rejects.toMatchObject({
          code: 'validation',
          message: `Redirect URI ${JSON.stringify(uri)} refused: ${reason}`,
        });
      }
      const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
      await expect(
        createClient(t.services, {
          name: 'x',
          callbackDomain: 'app.example.com',
          redirectUris: eleven,
          ownerUserId: null,
        }),
      ).rejects.toMatchObject({ message: 'At most 10 redirect URIs' });
      expect(
        (
          await createClient(t.services, {
            name: 'ten',
            callbackDomain: 'app.example.com',
            redirectUris: eleven.slice(0, 10),
            ownerUserId: null,
          })
        ).client.redirectUris,
      ).toHaveLength(10);
      for (const bad of [42, [42], { a: 1 }]) {
        await expect(
          createClient(t.services, {
            name: 'x',
            callbackDomain: 'app.example.com',
            redirectUris: bad,
            ownerUserId: null,
          }),
        ).rejects.toBeInstanceOf(ValidationError);
      }
      expect(await clientCount()).toBe(before + 1);
    });

    it('changes them for the owner (time recorded), clears them, and refuses others or bad URIs without a change', async () => {
      const owner = await buildUser(t.services);
      const other = await buildUser(t.services);
      const c = await buildClient(t.services, {
        ownerUserId: owner.user.id,
        redirectUris: ['https://app.example.com/one'],
      });
      clock.advance(5);
      const changed = await setClientRedirectUris(
        t.services,
        c.clientId,
        ['https://app.example.com/two', 'https://app.example.com/three'],
        owner.user.id,
      );
      expect(changed).toMatchObject({
        redirectUris: ['https://app.example.com/two', 'https://app.example.com/three'],
        updatedAt: clock.now(),
      });
      expect(await findClientByClientId(t.services, c.clientId)).toEqual(changed);

      await expect(
        setClientRedirectUris(t.services, c.clientId, ['https://app.example.com/mine'], other.user.id),
      ).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        setClientRedirectUris(t.services, c.clientId, ['https://elsewhere.example/'], owner.user.id),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(setClientRedirectUris(t.services, 'no-such-client', [])).rejects.toBeInstanceOf(NotFoundError);
      expect((await findClientByClientId(t.services, c.clientId))?.redirectUris).toEqual([
        'https://app.example.com/two',
        'https://app.example.com/three',
      ]);

      expect((await setClientRedirectUris(t.services, c.clientId, '')).redirectUris).toEqual([]);
      expect(await rowUris(c.clientId)).toBe('[]');
      await deleteClient(t.services, c.clientId);
      await expect(setClientRedirectUris(t.services, c.clientId, [])).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('client secrets: constant-time verification and rotation', () => {
    it('verifies the right secret only', async () => {
      const c = await buildClient(t.services);
      expect(verifyClientSecret(c.client, c.clientSecret)).toBe(true);
      expect(verifyClientSecret(c.client, `${c.clientSecret}x`)).toBe(false);
      expect(verifyClientSecret(c.client, '')).toBe(false);
      expect((await authenticateClient(t.services, c.clientId, c.clientSecret))?.id).toBe(c.client.id);
      expect(await authenticateClient(t.services, c.clientId, 'wrong')).toBeUndefined();
      expect(await authenticateClient(t.services, 'unknown', c.clientSecret)).toBeUndefined();
    });

    it('rotation replaces the secret at once and records the time; tokens already issued keep working', async () => {
      const owner = await buildUser(t.services);
      const c = await buildClient(t.services, { ownerUserId: owner.user.id });
      const token = await grant(c.clientId, owner.user.id);
      clock.advance(10);
      const { clientSecret } = await rotateClientSecret(t.services, c.clientId, owner.user.id);
      expect(clientSecret).not.toBe(c.clientSecret);
      expect(await authenticateClient(t.services, c.clientId, c.clientSecret)).toBeUndefined();
      const now = await authenticateClient(t.services, c.clientId, clientSecret);
      expect(now?.updatedAt).toBe(clock.now());
      expect(await works(token)).toBe(true);
    });

    it("another user cannot rotate or delete someone's client → NotFoundError", async () => {
      const owner = await buildUser(t.services);
      const other = await buildUser(t.services);
      const c = await buildClient(t.services, { ownerUserId: owner.user.id });
      await expect(rotateClientSecret(t.services, c.clientId, other.user.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(deleteClient(t.services, c.clientId, other.user.id)).rejects.toBeInstanceOf(NotFoundError);
      expect(await authenticateClient(t.services, c.clientId, c.clientSecret)).toBeDefined();
    });
  });

  describe('deletion (soft) revokes every token of the client', () => {
    it('hides the client, stops its tokens and keeps the row', async () => {
      const owner = await buildUser(t.services);
      const u2 = await buildUser(t.services);
      const c = await buildClient(t.services, { ownerUserId: owner.user.id });
      const keep = await buildClient(t.services, { ownerUserId: owner.user.id });
      const tokens = [await grant(c.clientId, owner.user.id), await grant(c.clientId, u2.user.id)];
      const other = await grant(keep.clientId, u2.user.id);
      expect(await deleteClient(t.services, c.clientId, owner.user.id)).toEqual({ revokedTokens: 2 });
      for (const tok of tokens) expect(await works(tok)).toBe(false);
      expect(await works(other)).toBe(true);
      expect(await works(owner.token)).toBe(true);
      expect(await findClientByClientId(t.services, c.clientId)).toBeUndefined();
      expect((await listClientsOwnedBy(t.services, owner.user.id)).map((x) => x.clientId)).toEqual([keep.clientId]);
      const row = await t.db.database.db
        .selectFrom('oauth_clients')
        .select('deleted_at')
        .where('client_id', '=', c.clientId)
        .executeTakeFirstOrThrow();
      expect(Number(row.deleted_at)).toBe(clock.now());
      await expect(deleteClient(t.services, c.clientId)).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('"Your applications" and "Authorized applications"', () => {
    it('lists the live clients a user owns, oldest first', async () => {
      const owner = await buildUser(t.services);
      const a = await buildClient(t.services, { ownerUserId: owner.user.id });
      clock.advance(1);
      const b = await buildClient(t.services, { ownerUserId: owner.user.id });
      await buildClient(t.services);
      expect((await listClientsOwnedBy(t.services, owner.user.id)).map((x) => x.clientId)).toEqual([
        a.clientId,
        b.clientId,
      ]);
      expect(await listClientsOwnedBy(t.services, (await buildUser(t.services)).user.id)).toEqual([]);
    });

    it('lists clients with live tokens: union of scopes, first and last grant, token count; not CLI tokens', async () => {
      const u = await buildUser(t.services);
      const a = await buildClient(t.services, { name: 'Alpha' });
      const b = await buildClient(t.services, { name: 'Beta' });
      const t0 = clock.now();
      await grant(a.clientId, u.user.id, 'tip');
      clock.advance(100);
      await grant(a.clientId, u.user.id, 'thing,tip');
      clock.advance(100);
      const bt = await grant(b.clientId, u.user.id, 'extendedread');
      const apps = await listAuthorizedApps(t.services, u.user.id);
      expect(apps.map((x) => ({ ...x, client: x.client.name, scopes: [...x.scopes].sort() }))).toEqual([
        { client: 'Alpha', scopes: ['thing', 'tip'], firstAuthorizedAt: t0, lastAuthorizedAt: t0 + 100, tokens: 2 },
        {
          client: 'Beta',
          scopes: ['extendedread'],
          firstAuthorizedAt: t0 + 200,
          lastAuthorizedAt: t0 + 200,
          tokens: 1,
        },
      ]);
      expect(Object.keys(apps[0]!).sort()).toEqual([
        'client',
        'firstAuthorizedAt',
        'lastAuthorizedAt',
        'scopes',
        'tokens',
      ]);

      expect(await revokeAuthorization(t.services, u.user.id, a.clientId)).toEqual({ revokedTokens: 2 });
      expect((await listAuthorizedApps(t.services, u.user.id)).map((x) => x.client.name)).toEqual(['Beta']);
      expect(await works(bt)).toBe(true);
      expect(await revokeAuthorization(t.services, u.user.id, a.clientId)).toEqual({ revokedTokens: 0 });
    });

    it("revokeAuthorization leaves other users' tokens of the same client alone; unknown client → NotFoundError", async () => {
      const c = await buildClient(t.services);
      const u1 = await buildUser(t.services);
      const u2 = await buildUser(t.services);
      const t1 = await grant(c.clientId, u1.user.id);
      const t2 = await grant(c.clientId, u2.user.id);
      await revokeAuthorization(t.services, u1.user.id, c.clientId);
      expect(await works(t1)).toBe(false);
      expect(await works(t2)).toBe(true);
      await expect(revokeAuthorization(t.services, u1.user.id, 'unknown')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('revokeAuthorization also expires codes approved but not yet exchanged', async () => {
      const c = await buildClient(t.services);
      const u = await buildUser(t.services);
      const other = await buildUser(t.services);
      const { code } = await authorizeCode(t.services, c, u.user.id);
      const { code: otherCode } = await authorizeCode(t.services, c, other.user.id);
      await revokeAuthorization(t.services, u.user.id, c.clientId);
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'https://app.example.com/callback',
          client_id: c.clientId,
          client_secret: c.clientSecret,
        },
      });
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_grant' });
      const ok = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'authorization_code',
          code: otherCode,
          redirect_uri: 'https://app.example.com/callback',
          client_id: c.clientId,
          client_secret: c.clientSecret,
        },
      });
      expect(ok.statusCode).toBe(200);
    });

    it('codes count for nothing until exchanged', async () => {
      const c = await buildClient(t.services);
      const u = await buildUser(t.services);
      await authorizeCode(t.services, c, u.user.id);
      expect(await listAuthorizedApps(t.services, u.user.id)).toEqual([]);
    });
  });

  describe('RFC 6749 §3.1.2 checkRedirectUri', () => {
    it('explains each refusal', () => {
      const client = { callbackDomain: 'example.com' };
      expect(checkRedirectUri(client, 'https://example.com/cb').ok).toBe(true);
      expect(checkRedirectUri(client, 'https://x.example.com/cb').ok).toBe(true);
      expect(checkRedirectUri(client, 'https://notexample.com/cb')).toEqual({
        ok: false,
        reason: "redirect_uri must lie in the application's callback domain example.com",
      });
      expect(checkRedirectUri(client, 'http://example.com/cb')).toEqual({
        ok: false,
        reason: 'redirect_uri must use https (plain http only for localhost and 127.0.0.1)',
      });
      expect(checkRedirectUri(client, 'https://example.com/#')).toEqual({
        ok: false,
        reason: 'redirect_uri must not contain a fragment (#)',
      });
      expect(checkRedirectUri(client, '')).toEqual({ ok: false, reason: 'redirect_uri is empty' });
    });
  });

  describe('tipjar apps (operator command)', () => {
    const cli = (...args: string[]) =>
      run(process.execPath, ['bin/tipjar.js', ...args], {
        env: { ...process.env, DATABASE_URL: t.db.url, LOG_LEVEL: 'silent' },
        timeout: 60_000,
      });

    it('apps create prints a client id and a secret that authenticate; apps list shows it; bad input exits 1', async () => {
      const owner = await buildUser(t.services, { username: uniqueName('cli') });
      const { stdout } = await cli(
        'apps',
        'create',
        '--name',
        'CLI app',
        '--callback-domain',
        'cli.example.com',
        '--owner',
        owner.user.username,
      );
      const id = /^client_id: +([0-9a-f]{40})$/m.exec(stdout)?.[1];
      const secret = /^client_secret: +(\S{43})$/m.exec(stdout)?.[1];
      expect(id && secret, stdout).toBeTruthy();
      const client = await authenticateClient(t.services, id!, secret!);
      expect(client).toMatchObject({ name: 'CLI app', callbackDomain: 'cli.example.com', ownerUserId: owner.user.id });

      const listed = await cli('apps', 'list', '--owner', owner.user.username);
      expect(listed.stdout.trim().split('\t')).toEqual([
        id,
        'cli.example.com',
        new Date(client!.createdAt * 1000).toISOString().replace('.000Z', 'Z'),
        'CLI app',
      ]);

      const bad = await cli('apps', 'create', '--name', 'x', '--callback-domain', 'https://x.com/').catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect((bad as { code: number }).code).toBe(1);
      expect((bad as { stderr: string }).stderr).toContain('callback_domain must be a host name');
    }, 60_000);

    it('apps create --redirect-uri (repeatable) registers exact redirect URIs; apps redirect-uris shows, replaces and clears them', async () => {
      const failed = (e: unknown) => e as { code: number; stderr: string };
      const { stdout } = await cli(
        'apps',
        'create',
        '--name',
        'Exact CLI',
        '--callback-domain',
        'cli.example.com',
        '--redirect-uri',
        'https://cli.example.com/a',
        '--redirect-uri',
        'https://cli.example.com/b',
      );
      const id = /^client_id: +([0-9a-f]{40})$/m.exec(stdout)![1]!;
      expect(stdout).toContain('redirect_uri:  https://cli.example.com/a\nredirect_uri:  https://cli.example.com/b\n');
      expect((await findClientByClientId(t.services, id))?.redirectUris).toEqual([
        'https://cli.example.com/a',
        'https://cli.example.com/b',
      ]);

      expect((await cli('apps', 'redirect-uris', id)).stdout).toBe(
        'https://cli.example.com/a\nhttps://cli.example.com/b\n',
      );
      expect((await cli('apps', 'redirect-uris', id, '--redirect-uri', 'https://cli.example.com/c')).stdout).toBe(
        'https://cli.example.com/c\n',
      );
      expect((await findClientByClientId(t.services, id))?.redirectUris).toEqual(['https://cli.example.com/c']);

      const outside = failed(
        await cli('apps', 'redirect-uris', id, '--redirect-uri', 'https://evil.example/c').catch((e) => e),
      );
      expect(outside.code).toBe(1);
      expect(outside.stderr).toContain(
        `Redirect URI "https://evil.example/c" refused: redirect_uri must lie in the application's callback domain cli.example.com`,
      );
      const both = failed(
        await cli('apps', 'redirect-uris', id, '--clear', '--redirect-uri', 'https://cli.example.com/d').catch(
          (e) => e,
        ),
      );
      expect(both.code).toBe(1);
      expect(both.stderr).toContain('give --redirect-uri or --clear, not both');
      const reserved = failed(
        await cli(
          'apps',
          'create',
          '--name',
          'x',
          '--callback-domain',
          'cli.example.com',
          '--redirect-uri',
          'https://cli.example.com/cb?state=1',
        ).catch((e) => e),
      );
      expect(reserved.code).toBe(1);
      expect(reserved.stderr).toContain('must not carry "state" in its query');
      expect((await findClientByClientId(t.services, id))?.redirectUris).toEqual(['https://cli.example.com/c']);

      expect((await cli('apps', 'redirect-uris', id, '--clear')).stdout).toBe(
        `${id} has no redirect URIs: any redirect_uri in its callback domain cli.example.com matches\n`,
      );
      expect((await findClientByClientId(t.services, id))?.redirectUris).toEqual([]);
      const unknown = failed(await cli('apps', 'redirect-uris', 'no-such-client').catch((e) => e));
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No such application');
    }, 120_000);
  });
});
