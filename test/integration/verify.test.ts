/**
 * Partner verification and claiming (api-v2.md "Partner verification", DECISIONS.md "Partners,
 * pending things, webhooks"): POST /user/verify and POST /users/:username/verify with `identity`,
 * on both engines — right and wrong namespace, global identities from trusted and untrusted
 * partners, wrong user, not logged in, not a partner's token,
 * malformed identity, already claimed, concurrent claims; success hands over the pending things,
 * their tips and the held shares.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { createPartner, getPartner, updatePartner, type PartnerRecord } from '../../src/webhooks/partners.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { accountBalance, postTransaction } from '../../src/db/repositories/ledger.ts';

const autoSubmit = (params: Record<string, string>) =>
  `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;

describe.each(ENGINES)('partner verification on %s', (engine) => {
  let t: TestApp;
  let a: PartnerRecord;
  let b: PartnerRecord;
  let tipper: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock: fixedClock(Math.floor(Date.now() / 1000)) });
    a = (
      await createPartner(t.services, {
        namespace: uniqueName('a'),
        webhookUrl: 'http://127.0.0.1:9/a',
        events: 'pendingclickcreate',
        allowPrivateWebhook: true,
      })
    ).partner;
    b = (
      await createPartner(t.services, {
        namespace: uniqueName('b'),
        webhookUrl: 'http://127.0.0.1:9/b',
        events: 'pendingclickcreate',
        allowPrivateWebhook: true,
      })
    ).partner;
    tipper = await buildUser(t.services, { scopes: 'tip' });
  });
  afterAll(async () => t.close());

  /** A user with a token issued to `partner`'s OAuth client. */
  async function partnerUser(partner: PartnerRecord): Promise<TestUser & { partnerToken: string }> {
    const u = await buildUser(t.services, { funded: false });
    return { ...u, partnerToken: await issueToken(t.services, u.user.username, 'tip', partner.clientRowId) };
  }

  /** Creates a pending thing of `identity` with one tip; returns its id. */
  async function pendingThing(identity: string): Promise<number> {
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: {
        url: autoSubmit({
          url: `https://partner.example.com/${uniqueName('item')}`,
          owner: identity,
          title: 'Pending item',
        }),
      },
    });
    expect(res.statusCode).toBe(200);
    return json(res).thing.id as number;
  }

  const verify = (token: string | undefined, identity: unknown, username?: string) =>
    t.app.inject({
      method: 'POST',
      url: username === undefined ? `${API}/user/verify` : `${API}/users/${username}/verify`,
      headers: token ? bearer(token) : {},
      payload: identity === undefined ? {} : { identity },
    });

  const identityRow = (identity: string) =>
    t.db.database.db.selectFrom('identities').selectAll().where('identity', '=', identity).executeTakeFirst();
  const thingOwner = async (id: number) =>
    t.db.database.db
      .selectFrom('things')
      .select(['owner_user_id', 'owner_identity', 'tips'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  function expectUnauthorized(
    res: Awaited<ReturnType<typeof verify>>,
    description: string,
    section = 'verification-and-claiming',
  ) {
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="tipjar"');
    expect(json(res)).toEqual({
      error: 'unauthorized',
      error_description: description,
      error_uri: `${PUBLIC_URL}/docs/api#${section}`,
    });
  }

  it('claims every pending thing of the identity with its tips and held shares (POST /users/:username/verify)', async () => {
    const alice = await partnerUser(a);
    const identity = `partner:${a.namespace}:alice-1`;
    const ids = [await pendingThing(identity), await pendingThing(identity)];
    const unrelated = await pendingThing(`partner:${a.namespace}:someone-else`);
    const now = t.clock.now();
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now }, [
      { account: { kind: 'funding' }, amountCents: -300 },
      { account: { kind: 'held', identity }, amountCents: 300 },
    ]);

    const res = await verify(alice.partnerToken, identity, alice.user.username);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
    expect(json(res)).toEqual({
      message: 'ok',
      description: `Identity ${identity} verified; 2 pending things claimed`,
    });

    for (const id of ids) {
      expect(await thingOwner(id)).toEqual({ owner_user_id: alice.user.id, owner_identity: null, tips: 1 });
      const thing = json(await t.app.inject({ url: `${API}/things/${id}` }));
      expect(thing.owner).toEqual({
        type: 'user',
        resource: `${PUBLIC_URL}${API}/users/${alice.user.username}`,
        link: `${PUBLIC_URL}/profile/${alice.user.username}`,
        username: alice.user.username,
      });
      const tips = json(await t.app.inject({ url: `${API}/things/${id}/tips`, headers: bearer(tipper.token) }));
      expect(tips.map((x: { owner: { username: string } }) => x.owner.username)).toEqual([tipper.user.username]);
    }
    expect(await thingOwner(unrelated)).toMatchObject({
      owner_user_id: null,
      owner_identity: `partner:${a.namespace}:someone-else`,
    });
    expect(await identityRow(identity)).toEqual({
      identity,
      user_id: alice.user.id,
      partner_id: a.id,
      claimed_at: t.clock.now(),
    });
    expect(await accountBalance(t.db.database.db, { kind: 'held', identity })).toBe(0);
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: alice.user.id })).toBe(300);

    // Verifying again is a success that changes nothing.
    const again = await verify(alice.partnerToken, identity);
    expect(json(again)).toEqual({
      message: 'ok',
      description: `Identity ${identity} verified; 0 pending things claimed`,
    });
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: alice.user.id })).toBe(300);

    // New auto-submit URLs with the verified identity now belong to the user at once: no pending thing, no webhook.
    const before = await t.db.database.db.selectFrom('webhook_deliveries').select('id').execute();
    const after = await pendingThing(identity);
    expect(await thingOwner(after)).toEqual({ owner_user_id: alice.user.id, owner_identity: null, tips: 1 });
    expect(await t.db.database.db.selectFrom('webhook_deliveries').select('id').execute()).toHaveLength(before.length);
  });

  it('accepts the form-encoded body on POST /user/verify, and global identities from a trusted partner', async () => {
    await updatePartner(t.services, b.namespace, { trusted: true });
    try {
      const carol = await partnerUser(b);
      const identity = 'email:0f343b0931126a20f133d67c2b018a3b';
      const id = await pendingThing(identity);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/user/verify`,
        headers: { ...bearer(carol.partnerToken), 'content-type': 'application/x-www-form-urlencoded' },
        payload: `identity=${encodeURIComponent(identity)}`,
      });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toEqual({
        message: 'ok',
        description: `Identity ${identity} verified; 1 pending thing claimed`,
      });
      expect(await thingOwner(id)).toMatchObject({ owner_user_id: carol.user.id });
      const tw = await verify(carol.partnerToken, 'twitter:user:id:99887766');
      expect(tw.statusCode).toBe(200);
      expect(await identityRow('twitter:user:id:99887766')).toMatchObject({ user_id: carol.user.id, partner_id: b.id });
      // A trusted partner is still limited to its own namespace among partner: identities.
      expectUnauthorized(
        await verify(carol.partnerToken, `partner:${a.namespace}:carol`),
        `Partner "${b.namespace}" may not verify identities of namespace "${a.namespace}"`,
      );
    } finally {
      await updatePartner(t.services, b.namespace, { trusted: false });
    }
  });

  it('refuses global identities (email:, twitter:) from a partner the operator has not trusted: 401, nothing changed', async () => {
    const dora = await partnerUser(a);
    const email = `email:${createHash('md5')
      .update(`${uniqueName('victim')}@example.com`)
      .digest('hex')}`;
    const twitter = `twitter:user:id:${Date.now()}`;
    const id = await pendingThing(email);
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now: t.clock.now() }, [
      { account: { kind: 'funding' }, amountCents: -50 },
      { account: { kind: 'held', identity: email }, amountCents: 50 },
    ]);
    expect((await getPartner(t.services, a.namespace)).trusted).toBe(false);
    for (const [identity, kind] of [
      [email, 'email'],
      [twitter, 'twitter'],
    ] as const) {
      expectUnauthorized(
        await verify(dora.partnerToken, identity, dora.user.username),
        `Partner "${a.namespace}" may not verify ${kind}: identities (only a partner the operator trusts may verify global identities)`,
      );
      expect(await identityRow(identity)).toBeUndefined();
    }
    expect(await thingOwner(id)).toEqual({ owner_user_id: null, owner_identity: email, tips: 1 });
    expect(await accountBalance(t.db.database.db, { kind: 'held', identity: email })).toBe(50);
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: dora.user.id })).toBe(0);

    // Once the operator trusts the partner, the same call works; taken back, it is refused again.
    await updatePartner(t.services, a.namespace, { trusted: true });
    try {
      expect((await verify(dora.partnerToken, email)).statusCode).toBe(200);
      expect(await thingOwner(id)).toMatchObject({ owner_user_id: dora.user.id, owner_identity: null });
      expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: dora.user.id })).toBe(50);
    } finally {
      await updatePartner(t.services, a.namespace, { trusted: false });
    }
    expect((await verify(dora.partnerToken, twitter)).statusCode).toBe(401);
    expect(await identityRow(twitter)).toBeUndefined();
  });

  it('refuses with 401 and changes nothing: not logged in, not a partner token, wrong namespace, malformed identity, wrong user', async () => {
    const dave = await partnerUser(a);
    const identity = `partner:${a.namespace}:dave`;
    const id = await pendingThing(identity);
    expectUnauthorized(
      await verify(undefined, identity),
      'You are unauthorized to access the resource',
      'authentication',
    );
    expectUnauthorized(
      await verify(undefined, identity, dave.user.username),
      'You are unauthorized to access the resource',
      'authentication',
    );
    expectUnauthorized(await verify(dave.token, identity), 'Only a partner application may verify identities');
    const bToken = await issueToken(t.services, dave.user.username, 'tip', b.clientRowId);
    expectUnauthorized(
      await verify(bToken, identity),
      `Partner "${b.namespace}" may not verify identities of namespace "${a.namespace}"`,
    );
    for (const bad of [
      'dave',
      'partner:',
      `partner:${a.namespace}`,
      'email:123',
      'twitter:user:id:x',
      '',
      undefined,
      42,
    ]) {
      expectUnauthorized(
        await verify(dave.partnerToken, bad),
        'Invalid identity: expected email:<md5>, twitter:user:id:<digits> or partner:<namespace>:<id>',
      );
    }
    const other = await partnerUser(a);
    expectUnauthorized(
      await verify(dave.partnerToken, identity, other.user.username),
      `The access token does not belong to ${other.user.username}`,
    );
    expectUnauthorized(
      await verify(dave.partnerToken, identity, 'no-such-user'),
      'The access token does not belong to no-such-user',
    );
    expect(await identityRow(identity)).toBeUndefined();
    expect(await thingOwner(id)).toEqual({ owner_user_id: null, owner_identity: identity, tips: 1 });
    // The right call still works afterwards.
    expect((await verify(dave.partnerToken, identity, dave.user.username.toUpperCase())).statusCode).toBe(200);
  });

  it('refuses an identity already claimed by another user (401), keeping the first owner', async () => {
    const erin = await partnerUser(a);
    const frank = await partnerUser(a);
    const identity = `partner:${a.namespace}:shared`;
    const id = await pendingThing(identity);
    expect((await verify(erin.partnerToken, identity)).statusCode).toBe(200);
    expectUnauthorized(
      await verify(frank.partnerToken, identity),
      `The identity ${identity} has already been verified by another account`,
    );
    expect(await identityRow(identity)).toMatchObject({ user_id: erin.user.id });
    expect(await thingOwner(id)).toMatchObject({ owner_user_id: erin.user.id });
  });

  it('lets exactly one of many concurrent claims of one identity win', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => partnerUser(a)));
    const identity = `partner:${a.namespace}:race`;
    const ids = [await pendingThing(identity), await pendingThing(identity)];
    const now = t.clock.now();
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now }, [
      { account: { kind: 'funding' }, amountCents: -80 },
      { account: { kind: 'held', identity }, amountCents: 80 },
    ]);
    const results = await Promise.all(users.map((u) => verify(u.partnerToken, identity)));
    const winners = users.filter((_, i) => results[i]!.statusCode === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 401)).toHaveLength(7);
    const winner = winners[0]!;
    expect(json(results[users.indexOf(winner)]!).description).toBe(
      `Identity ${identity} verified; 2 pending things claimed`,
    );
    expect(await identityRow(identity)).toMatchObject({ user_id: winner.user.id });
    for (const id of ids)
      expect(await thingOwner(id)).toMatchObject({ owner_user_id: winner.user.id, owner_identity: null });
    for (const u of users)
      expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: u.user.id })).toBe(
        u === winner ? 80 : 0,
      );
  });
});
