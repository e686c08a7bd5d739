/**
 * The website's claim page (notes §15 `claim_url`) on both engines: a logged-in user
 * whose verified address hashes to an `email:` identity claims its pending things, their tips and
 * held shares; others (an unverified or another address) are told why they cannot, and the domain
 * refuses them too; `partner:`/`twitter:` identities go through the partner. The whole sequence with
 * the real verification mail is in verify-email.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { accountBalance, postTransaction } from '../../src/db/repositories/ledger.ts';
import { claimIdentity, UnverifiedAddressError } from '../../src/domain/partners.ts';
import { markEmailVerified } from '../../src/domain/verification.ts';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const autoSubmit = (params: Record<string, string>) =>
  `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;

describe.each(ENGINES)('claim page on %s', (engine) => {
  let t: TestApp;
  let tipper: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    tipper = await buildUser(t.services, { scopes: 'tip' });
  });
  afterAll(async () => t.close());

  async function pendingThing(identity: string, title: string): Promise<number> {
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url: autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner: identity, title }) },
    });
    expect(res.statusCode).toBe(200);
    return json(res).thing.id as number;
  }
  const owner = (id: number) =>
    t.db.database.db
      .selectFrom('things')
      .select(['owner_user_id', 'owner_identity', 'tips'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('walks the owner of the address through claiming: log in, claim, things and held shares move', async () => {
    const user = await buildWebUser(t.services);
    const identity = `email:${md5(user.email.toLowerCase())}`;
    const id = await pendingThing(identity, 'My <pending> post');
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now: t.clock.now() }, [
      { account: { kind: 'funding' }, amountCents: -120 },
      { account: { kind: 'held', identity }, amountCents: 120 },
    ]);
    const page = `/claim/${encodeURIComponent(identity)}/owner/${encodeURIComponent(user.email)}`;
    const browser = new WebClient(t.app);
    const anonymous = html(await browser.get(page));
    expect(anonymous).toContain('My &lt;pending&gt; post');
    expect(anonymous).toContain(`<strong>${user.email}</strong>`);
    expect(anonymous).toContain(`<a href="/login?return_to=${encodeURIComponent(page)}">Log in</a>`);
    expect(anonymous).not.toContain('<button type="submit">Claim</button>');

    await browser.login(user.username);
    // The address matches but is not verified yet: the page says why and offers a new link; no claim.
    const unverified = html(await browser.get(page));
    expect(unverified).toContain('it is not verified yet');
    expect(unverified).toContain('action="/verify-email/resend"');
    expect(unverified).not.toContain('<button type="submit">Claim</button>');
    html(await browser.submit(page, `/claim/${encodeURIComponent(identity)}`), 403);
    expect(await owner(id)).toEqual({ owner_user_id: null, owner_identity: identity, tips: 1 });

    await markEmailVerified(t.services, user.username);
    const ready = html(await browser.get(page));
    expect(ready).toContain('<button type="submit">Claim</button>');
    const res = await browser.submit(page, `/claim/${encodeURIComponent(identity)}`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/claim/${encodeURIComponent(identity)}`);
    expect(await owner(id)).toEqual({ owner_user_id: user.id, owner_identity: null, tips: 1 });
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: user.id })).toBe(120);
    expect(
      await t.db.database.db.selectFrom('identities').selectAll().where('identity', '=', identity).executeTakeFirst(),
    ).toMatchObject({ user_id: user.id, partner_id: null });
    const after = html(await browser.get(res.headers.location as string));
    expect(after).toContain('Claimed: these things and their tips are now yours.');
    expect(after).toContain('This identity is yours');
    // Anyone else now sees it taken, and cannot claim it.
    const stranger = new WebClient(t.app);
    await stranger.login((await buildWebUser(t.services)).username);
    expect(html(await stranger.get(page))).toContain('This identity has already been claimed by another account.');
  });

  it('claimIdentity itself refuses a claim without a partner for an unverified or another address, changing nothing', async () => {
    const user = await buildWebUser(t.services);
    const identity = `email:${md5(user.email.toLowerCase())}`;
    const id = await pendingThing(identity, 'Guarded');
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now: t.clock.now() }, [
      { account: { kind: 'funding' }, amountCents: -70 },
      { account: { kind: 'held', identity }, amountCents: 70 },
    ]);
    await expect(claimIdentity(t.services, user.id, identity, null)).rejects.toBeInstanceOf(UnverifiedAddressError);
    const other = await buildWebUser(t.services);
    await markEmailVerified(t.services, other.username);
    await expect(claimIdentity(t.services, other.id, identity, null)).rejects.toThrow(
      `The e-mail address of the account is not the one of ${identity}`,
    );
    expect(await owner(id)).toEqual({ owner_user_id: null, owner_identity: identity, tips: 1 });
    expect(await accountBalance(t.db.database.db, { kind: 'held', identity })).toBe(70);
    expect(
      await t.db.database.db.selectFrom('identities').selectAll().where('identity', '=', identity).executeTakeFirst(),
    ).toBeUndefined();
    // Verified, the same call claims.
    await markEmailVerified(t.services, user.username);
    expect(await claimIdentity(t.services, user.id, identity, null)).toEqual([id]);
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: user.id })).toBe(70);
  });

  it('refuses a user whose address does not match (403, nothing changed)', async () => {
    const other = await buildWebUser(t.services);
    const identity = `email:${md5(`${uniqueName('someone')}@example.com`)}`;
    const id = await pendingThing(identity, 'Not yours');
    const browser = new WebClient(t.app);
    await browser.login(other.username);
    const page = `/claim/${encodeURIComponent(identity)}`;
    expect(html(await browser.get(page))).toContain('The e-mail address of your account is not the one');
    const res = await browser.submit(page, page);
    html(res, 403);
    expect(await owner(id)).toMatchObject({ owner_user_id: null, owner_identity: identity });
  });

  it('sends partner and twitter identities to the partner, and 404 for malformed identities', async () => {
    const browser = new WebClient(t.app);
    const body = html(await browser.get(`/claim/${encodeURIComponent('twitter:user:id:5')}`));
    expect(body).toContain('claimed through the site that registered them');
    expect(body).not.toContain('<button type="submit">Claim</button>');
    html(await browser.get('/claim/bogus'), 404);
  });

  it('opens the claim URL of the longest identities (a path segment past 100 characters)', async () => {
    const browser = new WebClient(t.app);
    const identity = `partner:${'n'.repeat(63)}:${'i'.repeat(200)}`;
    const body = html(await browser.get(`/claim/${encodeURIComponent(identity)}`));
    expect(body).toContain('claimed through the site that registered them');
    const address = `${'a'.repeat(64)}@${'b'.repeat(180)}.example`;
    const owned = html(await browser.get(`/claim/email:${md5(address)}/owner/${encodeURIComponent(address)}`));
    expect(owned).toContain(address);
  });
});
