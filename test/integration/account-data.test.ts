/**
 * A user's own data (src/domain/account-data.ts) on every engine: the export holds exactly the
 * user's data; deletion forfeits the money left (the ledger check stays green, later settlement
 * shares too), keeps the username taken, ends log-in, tokens and sessions, takes the things out
 * of the API and search, and leaves other users' listings working; the website's export and
 * deletion pages (wrong and right password); the `tipjar users export` and `users delete` commands.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { runTipjar } from '../helpers/processes.ts';
import { expectError } from '../helpers/errors.ts';
import { buildThing, buildUser, principalOf, uniqueName, type TestUser } from '../helpers/factories.ts';
import { buildClient } from '../helpers/oauth.ts';
import { buildWebUser, html, PASSWORD, WebClient } from '../helpers/web.ts';
import { deleteAccount, exportUserData, forfeitReference, type AccountExport } from '../../src/domain/account-data.ts';
import { checkLedger } from '../../src/domain/money/ledger.ts';
import { settlePeriod } from '../../src/domain/money/settlement.ts';
import { deleteThing } from '../../src/domain/things.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { subscribe } from '../../src/domain/subscriptions.ts';
import { getUser, registerUser, UsernameTakenError, updateProfile } from '../../src/domain/users.ts';
import { NotFoundError } from '../../src/domain/errors.ts';
import { accountBalance } from '../../src/db/repositories/ledger.ts';
import { findUserById } from '../../src/db/repositories/users.ts';
import { listMail } from '../../src/db/repositories/mail.ts';
import { insertAccessToken } from '../../src/db/repositories/tokens.ts';
import { hashSecret, newSecret } from '../../src/domain/secrets.ts';
import { issueToken } from '../../src/auth/tokens.ts';

/** Unix seconds of a UTC date. */
const at = (y: number, m: number, d = 1) => Date.UTC(y, m - 1, d) / 1000;

describe.each(ENGINES)('account data on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(at(2026, 3, 15));
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const s = () => t.services;
  const db = () => t.db.database.db;
  const principal = (u: TestUser) => principalOf(u.user);
  /** A live token of `user` for the application `clientRowId` (what the consent page would grant). */
  const grant = async (userId: number, clientRowId: number, scope = 'tip thing') => {
    const token = newSecret();
    await insertAccessToken(db(), {
      tokenHash: hashSecret(token),
      userId,
      clientId: clientRowId,
      codeId: null,
      scope,
      now: clock.now(),
    });
    return token;
  };
  const search = async (query: string) => {
    const res = await t.app.inject({ url: `${API}/things/search?${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return json<{ things: { id: number }[] }>(res).things.map((x) => x.id);
  };

  describe('export', () => {
    it("holds every field of the user's own data and nothing of anyone else's", async () => {
      const alice = await buildUser(s());
      const bob = await buildUser(s());
      const carol = await buildUser(s());
      await updateProfile(s(), carol.user.id, {
        firstname: '',
        lastname: '',
        about: '',
        city: '',
        country: '',
        url: '',
        avatar: '',
        hideTips: true,
      });
      await updateProfile(s(), alice.user.id, {
        firstname: 'Alice',
        lastname: 'Liddell',
        about: 'down the hole',
        city: 'Oxford',
        country: 'UK',
        url: 'https://alice.example',
        avatar: 'https://alice.example/a.png',
        hideTips: false,
      });
      const a1 = await buildThing(s(), alice, { tags: 'music,free' });
      const a2 = await buildThing(s(), alice, { hidden: true });
      const a3 = await buildThing(s(), alice);
      await deleteThing(s(), principal(alice), a3);
      const b1 = await buildThing(s(), bob);
      const b2 = await buildThing(s(), bob);
      const b3 = await buildThing(s(), bob);
      await tipThing(s(), principal(alice), b1);
      await subscribe(s(), principal(alice), b2);
      await tipThing(s(), principal(bob), a1);
      await tipThing(s(), principal(carol), a1);
      await tipThing(s(), principal(carol), b3); // someone else's tip on someone else's thing
      const aliceApp = await buildClient(s(), { ownerUserId: alice.user.id, name: 'Alice app' });
      const bobApp = await buildClient(s(), { ownerUserId: bob.user.id, name: 'Bob app' });
      await grant(alice.user.id, bobApp.client.id, 'tip');
      await grant(bob.user.id, aliceApp.client.id, 'thing');

      const doc = await exportUserData(s(), alice.user.id);
      expect(doc.format).toBe('tipjar-account-export');
      expect(doc.version).toBe(1);
      expect(doc.generated_at).toBe(clock.now());
      expect(doc.site_url).toBe(t.config.siteUrl);
      expect(doc.profile).toEqual({
        id: alice.user.id,
        username: alice.user.username,
        email: `${alice.user.username}@example.com`,
        email_verified: false,
        email_verified_at: null,
        firstname: 'Alice',
        lastname: 'Liddell',
        about: 'down the hole',
        city: 'Oxford',
        country: 'UK',
        url: 'https://alice.example',
        avatar: 'https://alice.example/a.png',
        registered_at: alice.user.registeredAt,
        hide_tips: false,
        balance_cents: 1000,
        budget_cents: 500,
        notices: { receipt: true, renewal_skipped: true, thing_created: true, application_authorized: true },
      });
      expect(doc.things.map((x) => [x.id, x.hidden, x.deleted_at])).toEqual([
        [a1, false, null],
        [a2, true, null],
        [a3, false, clock.now()],
      ]);
      expect(doc.things[0]!.tags).toEqual(['music', 'free']);
      expect(doc.things[0]!.tips).toBe(2);
      expect(doc.tips_given.map((x) => [x.thing_id, x.source, x.period])).toEqual([
        [b1, 'api', '2026-03'],
        [b2, 'subscription', '2026-03'],
      ]);
      expect(doc.tips_given[0]!.url).toMatch(/^https:\/\/example\.com\//);
      // Bob's tip names him; Carol hides her tips: no name.
      expect(doc.tips_received.map((x) => [x.thing_id, x.tipper])).toEqual([
        [a1, bob.user.username],
        [a1, null],
      ]);
      expect(doc.subscriptions.map((x) => [x.thing_id, x.active])).toEqual([[b2, true]]);
      expect(doc.ledger.accounts).toEqual([
        { kind: 'balance', balance_cents: 1000 },
        { kind: 'earnings', balance_cents: 0 },
      ]);
      expect(doc.ledger.entries).toEqual([
        expect.objectContaining({ account: 'balance', transaction: 'funding', amount_cents: 1000, tip_id: null }),
      ]);
      expect(doc.authorized_applications).toEqual([
        expect.objectContaining({ client_id: bobApp.clientId, name: 'Bob app', scopes: ['tip'], tokens: 1 }),
      ]);
      expect(doc.applications).toEqual([
        {
          client_id: aliceApp.clientId,
          name: 'Alice app',
          callback_domain: 'app.example.com',
          redirect_uris: [],
          created_at: aliceApp.client.createdAt,
          updated_at: 0,
        },
      ]);
      const text = JSON.stringify(doc);
      expect(text).not.toContain(aliceApp.clientSecret);
      expect(text).not.toContain(aliceApp.client.secretHash);
      expect(text).not.toContain(`${bob.user.username}@example.com`);

      // Bob's export: his things and tips, none of Alice's things or tips given.
      const bobs = await exportUserData(s(), bob.user.id);
      expect(bobs.things.map((x) => x.id)).toEqual([b1, b2, b3]);
      expect(text).not.toContain(bobs.things[2]!.url); // Carol's tip on b3 is none of Alice's business
      expect(bobs.tips_given.map((x) => x.thing_id)).toEqual([a1]);
      expect(bobs.tips_received.map((x) => [x.thing_id, x.tipper])).toEqual([
        [b1, alice.user.username],
        [b2, alice.user.username],
        [b3, null],
      ]);
      expect(bobs.applications.map((x) => x.client_id)).toEqual([bobApp.clientId]);
      expect(bobs.authorized_applications.map((x) => x.client_id)).toEqual([aliceApp.clientId]);
    });
  });

  describe('deletion', () => {
    it('forfeits balance and earnings in a balanced transaction; later shares for its things are forfeited too', async () => {
      clock.set(at(2026, 4, 10));
      const owner = await buildUser(s()); // balance 1000, budget 500
      const fan = await buildUser(s());
      const other = await buildUser(s());
      const o1 = await buildThing(s(), owner);
      const x1 = await buildThing(s(), other);
      await tipThing(s(), principal(fan), o1);
      await tipThing(s(), principal(owner), x1);
      clock.set(at(2026, 5, 2));
      const settled = await settlePeriod(s(), { period: '2026-04' });
      expect(settled.status).toBe('settled');
      // The owner earned the fan's 500 and paid 500 of their own 1000.
      expect(await accountBalance(db(), { kind: 'earnings', userId: owner.user.id })).toBe(500);
      expect(await accountBalance(db(), { kind: 'balance', userId: owner.user.id })).toBe(500);

      // The export names no tipper in the reference of an earnings share.
      const before = await exportUserData(s(), owner.user.id);
      const share = before.ledger.entries.find((e) => e.account === 'earnings')!;
      expect(share).toMatchObject({ transaction: 'settlement', reference: 'settle:2026-04', amount_cents: 500 });
      expect(share.tip_id).not.toBeNull();

      // A tip of May on the owner's thing, settled after the deletion.
      await tipThing(s(), principal(fan), o1);
      await tipThing(s(), principal(owner), x1);
      const forfeitedBefore = await accountBalance(db(), { kind: 'forfeited' });

      const report = await deleteAccount(s(), owner.user.id);
      expect(report).toMatchObject({ userId: owner.user.id, forfeitedCents: 1000, thingsDeleted: 1 });
      expect(await accountBalance(db(), { kind: 'balance', userId: owner.user.id })).toBe(0);
      expect(await accountBalance(db(), { kind: 'earnings', userId: owner.user.id })).toBe(0);
      expect(await accountBalance(db(), { kind: 'forfeited' })).toBe(forfeitedBefore + 1000);
      const forfeit = await db()
        .selectFrom('ledger_transactions')
        .selectAll()
        .where('reference', '=', forfeitReference(owner.user.id))
        .executeTakeFirstOrThrow();
      expect(forfeit.kind).toBe('forfeit');
      expect((await findUserById(db(), owner.user.id))!.balanceCents).toBe(0);
      expect(await checkLedger(s())).toEqual([]);

      clock.set(at(2026, 6, 2));
      expect((await settlePeriod(s(), { period: '2026-05' })).status).toBe('settled');
      // The fan's May budget paid for a tip on the deleted owner's thing: forfeited, not earned.
      expect(await accountBalance(db(), { kind: 'earnings', userId: owner.user.id })).toBe(0);
      expect(await accountBalance(db(), { kind: 'forfeited' })).toBe(forfeitedBefore + 1000 + 500);
      // The deleted owner's own May tip was settled from a balance of 0: the other earned nothing of it.
      expect(await accountBalance(db(), { kind: 'balance', userId: owner.user.id })).toBe(0);
      expect(await checkLedger(s())).toEqual([]);
    });

    it('ends log-in, tokens and sessions; takes the things out of the API and search; keeps the username taken', async () => {
      clock.set(at(2026, 7, 10));
      const word = uniqueName('zqdel').replace(/[^a-z0-9]/g, '');
      const gone = await buildWebUser(s());
      const bystander = await buildUser(s());
      const friend = await buildUser(s());
      const goneApi: TestUser = { user: gone, token: await issueToken(s(), gone.username, 'tip thing extendedread') };
      const d1 = await buildThing(s(), goneApi, { title: `${word} one` });
      const d2 = await buildThing(s(), goneApi, { title: `${word} two`, hidden: true });
      const f1 = await buildThing(s(), friend);
      const f2 = await buildThing(s(), friend);
      await tipThing(s(), principal(goneApi), f1);
      await tipThing(s(), principal(friend), d1);
      await subscribe(s(), principal(goneApi), f2);
      const goneApp = await buildClient(s(), { ownerUserId: gone.id });
      const friendOnGoneApp = await grant(friend.user.id, goneApp.client.id);
      const web = new WebClient(t.app);
      await web.login(gone.username);
      expect(await search(`query=${word}`)).toEqual([d1]);
      expect((await listMail(db(), { userId: gone.id, limit: 10 })).length).toBe(1); // the verification link

      const report = await deleteAccount(s(), gone.id);
      expect(report).toMatchObject({
        thingsDeleted: 2,
        subscriptionsRemoved: 1,
        applicationsDeleted: 1,
        applicationTokensRevoked: 1,
        tokensDeleted: 1,
        sessionsEnded: 1,
      });

      // The row stays, emptied.
      const row = (await findUserById(db(), gone.id))!;
      expect(row).toMatchObject({
        username: gone.username,
        email: '',
        firstname: '',
        emailVerifiedAt: null,
        deletedAt: clock.now(),
        hideTips: true,
      });
      expect(
        (await db().selectFrom('users').select('password_hash').where('id', '=', gone.id).executeTakeFirstOrThrow())
          .password_hash,
      ).toBeNull();
      expect(await listMail(db(), { userId: gone.id, limit: 10 })).toEqual([]);
      expect(await db().selectFrom('account_tokens').selectAll().where('user_id', '=', gone.id).execute()).toEqual([]);

      // Unknown to the API and the website by name; things gone; search forgets them.
      expectError(await t.app.inject({ url: `${API}/users/${gone.username}` }), 404, 'not_found');
      expectError(await t.app.inject({ url: `${API}/users/${gone.username}/things` }), 404, 'not_found');
      expectError(await t.app.inject({ url: `${API}/users/${gone.username}/tips` }), 404, 'not_found');
      expectError(await t.app.inject({ url: `${API}/things/${d1}` }), 404, 'not_found');
      expectError(await t.app.inject({ url: `${API}/things/${d2}` }), 404, 'not_found');
      expect(await search(`query=${word}`)).toEqual([]);
      expectError(await t.app.inject({ url: `${API}/things/search?user=${gone.username}` }), 400, 'invalid_parameters');
      expect((await new WebClient(t.app).get(`/profile/${gone.username}`)).statusCode).toBe(404);

      // Tokens: the user's own and those issued to the user's application.
      expect((await t.app.inject({ url: `${API}/user`, headers: bearer(goneApi.token) })).statusCode).toBe(401);
      expect((await t.app.inject({ url: `${API}/user`, headers: bearer(friendOnGoneApp) })).statusCode).toBe(401);
      expect((await t.app.inject({ url: `${API}/user`, headers: bearer(bystander.token) })).statusCode).toBe(200);
      // Sessions and log-in.
      const settings = await web.get('/settings');
      expect(settings.statusCode).toBe(302);
      expect(settings.headers.location).toBe('/login?return_to=%2Fsettings');
      const login = await new WebClient(t.app).submit('/login', '/login', {
        username: gone.username,
        password: PASSWORD,
      });
      expect(login.statusCode).toBe(401);
      // The username stays taken, in any letter case.
      await expect(registerUser(s(), { username: gone.username.toUpperCase() })).rejects.toThrow(UsernameTakenError);
      // A second deletion finds no one.
      await expect(deleteAccount(s(), gone.id)).rejects.toThrow(NotFoundError);

      // Other users' views: the friend's thing keeps the deleted user's tip counted; listings work.
      const thing = json<{ tips: number }>(await t.app.inject({ url: `${API}/things/${f1}` }));
      expect(thing.tips).toBe(1);
      for (const full of ['false', 'true']) {
        const tips = await t.app.inject({
          url: `${API}/things/${f1}/tips?full=${full}`,
          headers: bearer(friend.token),
        });
        expect(tips.statusCode, tips.body).toBe(200);
        expect(tips.body).not.toContain(gone.username);
      }
      const page = html(await new WebClient(t.app).get(`/thing/${f1}`));
      expect(page).not.toContain(gone.username);
      const incoming = await t.app.inject({
        url: `${API}/user/activities?type=incoming`,
        headers: bearer(friend.token),
      });
      expect(incoming.statusCode, incoming.body).toBe(200);
      expect(incoming.body).not.toContain(gone.username);
      // The friend's export keeps the tips received, without the deleted tipper's name.
      expect((await exportUserData(s(), friend.user.id)).tips_received.map((x) => [x.thing_id, x.tipper])).toEqual([
        [f1, null],
        [f2, null],
      ]);
      // An auto-submit URL naming the deleted user creates nothing.
      const auto = `${t.config.siteUrl}/submit/auto?url=${encodeURIComponent('https://example.com/new-for-gone')}&user_id=${gone.username}`;
      expectError(
        await t.app.inject({
          method: 'POST',
          url: `${API}/tip`,
          headers: bearer(friend.token),
          payload: { url: auto },
        }),
        404,
        'not_found',
      );
      expect(await checkLedger(s())).toEqual([]);
    });
  });

  describe('website', () => {
    it('Settings links both; GET /settings/export downloads the JSON; log-in required', async () => {
      const user = await buildWebUser(s());
      const anonymous = await new WebClient(t.app).get('/settings/export');
      expect(anonymous.statusCode).toBe(302);
      expect(anonymous.headers.location).toBe('/login?return_to=%2Fsettings%2Fexport');

      const web = new WebClient(t.app);
      await web.login(user.username);
      const settings = html(await web.get('/settings'));
      expect(settings).toContain('<a class="button" href="/settings/export">Download my data</a>');
      expect(settings).toContain('<a href="/settings/delete">Delete my account…</a>');
      const res = await web.get('/settings/export');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="tipjar-${user.username}.json"`);
      expect(res.headers['cache-control']).toBe('no-store');
      const doc = JSON.parse(res.body) as AccountExport;
      expect(doc.profile.username).toBe(user.username);
      expect(doc.profile.email).toBe(`${user.username}@example.com`);
    });

    it('GET /settings/delete explains; POST refuses a missing confirmation and a wrong password, then deletes', async () => {
      const user = await buildWebUser(s()); // balance 1000
      const web = new WebClient(t.app);
      await web.login(user.username);
      const page = html(await web.get('/settings/delete'));
      expect(page).toContain('<form method="post" action="/settings/delete">');
      expect(page).toContain('name="password"');
      expect(page).toContain('name="confirm"');
      expect(page).toContain('the balance of €10.00');
      expect(page).not.toContain('<script');

      const unconfirmed = await web.submit('/settings/delete', '/settings/delete', { password: PASSWORD });
      expect(html(unconfirmed, 400)).toContain('Please tick the box');
      const wrong = await web.submit('/settings/delete', '/settings/delete', {
        password: 'not the password',
        confirm: '1',
      });
      expect(html(wrong, 403)).toContain('Wrong password: your account was not deleted.');
      expect((await getUser(s(), user.username)).deletedAt).toBeNull();
      const noCsrf = await web.post('/settings/delete', { password: PASSWORD, confirm: '1' });
      expect(noCsrf.statusCode).toBe(403);
      expect((await getUser(s(), user.username)).deletedAt).toBeNull();

      const done = await web.submit('/settings/delete', '/settings/delete', { password: PASSWORD, confirm: '1' });
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe('/');
      expect(web.cookies.has('tipjar_session')).toBe(false);
      await expect(getUser(s(), user.username)).rejects.toThrow(NotFoundError);
      const home = html(await web.get('/'));
      expect(home).toContain('Your account was deleted.');
      expect(home).not.toContain('You are logged in');
      expect((await web.get('/settings/delete')).statusCode).toBe(302);
      expect(await checkLedger(s())).toEqual([]);
    });
  });
});

describe.each(ENGINES)('tipjar users export and delete on %s', (engine) => {
  let database: { url: string; remove(): Promise<void> };
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    dir = await mkdtemp(join(tmpdir(), 'tipjar-export-'));
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL: 'http://tipjar.test',
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(async () => {
    await database.remove();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the real CLI on the test database. */
  const cli = (...args: string[]) => runTipjar(args, env);

  it(
    'exports to stdout and to a file; deletes only with --yes; the ledger check stays green',
    { timeout: 120_000 },
    async () => {
      const name = uniqueName('cli');
      expect((await cli('users', 'create', name, '--email', `${name}@example.com`)).code).toBe(0);
      expect((await cli('users', 'fund', name, '--cents', '700', '--budget', '100')).code).toBe(0);

      const out = await cli('users', 'export', name);
      expect(out.code, out.stderr).toBe(0);
      const doc = JSON.parse(out.stdout) as AccountExport;
      expect(doc.profile).toMatchObject({ username: name, email: `${name}@example.com`, balance_cents: 700 });
      expect(doc.ledger.entries).toEqual([
        expect.objectContaining({ account: 'balance', transaction: 'funding', amount_cents: 700 }),
      ]);

      const file = join(dir, 'export.json');
      const toFile = await cli('users', 'export', name, '--output', file);
      expect(toFile.code, toFile.stderr).toBe(0);
      expect(toFile.stdout).toBe('');
      expect((JSON.parse(await readFile(file, 'utf8')) as AccountExport).profile.username).toBe(name);
      expect((await stat(file)).mode & 0o777).toBe(0o600);

      const refused = await cli('users', 'delete', name);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('run again with --yes');
      expect((await cli('users', 'export', name)).code).toBe(0);

      const deleted = await cli('users', 'delete', name, '--yes');
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toContain(`deleted user ${name}`);
      expect(deleted.stdout).toContain('700 cents forfeited');

      const after = await cli('users', 'export', name);
      expect(after.code).toBe(1);
      expect(after.stderr.trim()).toBe('error: User not found');
      const check = await cli('ledger', 'check');
      expect(check.stdout.trim()).toBe('ledger check: OK');
      expect(check.code).toBe(0);
      const again = await cli('users', 'create', name);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('is taken');
    },
  );
});
