/**
 * The notices people expect, sent through a real SMTP server on 127.0.0.1, on every engine: the
 * monthly receipt after a settlement (amounts cross-checked with the ledger; one message per user,
 * both parts in one; a re-run queues nothing), a subscription renewal skipped for lack of money
 * (mailed once per user and period, shown on the money page), a thing created in the user's name
 * through an auto-submit URL (and the owner hiding and deleting it from its page), the first
 * authorization of an application; the settings form; one-click unsubscription (RFC 8058); and
 * no notice at all to an unverified address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { listMail, type MailRecord } from '../../src/db/repositories/mail.ts';
import { UNSUBSCRIBE_TTL } from '../../src/domain/mail.ts';
import { setMonthlyBudget } from '../../src/domain/money/account.ts';
import { settlePeriod } from '../../src/domain/money/settlement.ts';
import type { UserRecord } from '../../src/domain/records.ts';
import { renewSubscriptions, subscribe } from '../../src/domain/subscriptions.ts';
import { createThing, getThing } from '../../src/domain/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { getUserById } from '../../src/domain/users.ts';
import { markEmailVerified } from '../../src/domain/verification.ts';
import { queueReceipts } from '../../src/domain/money/receipts.ts';
import { deliverDueMail } from '../../src/mail/dispatcher.ts';
import { smtpTransport, type MailTransport } from '../../src/mail/transport.ts';
import { API, bearer, buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, principalOf, uniqueName } from '../helpers/factories.ts';
import { authorizeCode, buildClient, REDIRECT_URI } from '../helpers/oauth.ts';
import { linkIn, TestSmtpServer, type ReceivedMail } from '../helpers/smtp.ts';
import { buildWebUser, csrfOf, html, WebClient } from '../helpers/web.ts';

const FROM = 'Tipjar <no-reply@tipjar.test>';
const MARCH_15 = Date.UTC(2026, 2, 15) / 1000;
const APRIL_2 = Date.UTC(2026, 3, 2) / 1000;
const MAY_1 = Date.UTC(2026, 4, 1, 0, 0, 30) / 1000;

describe.each(ENGINES)('notices on %s', (engine) => {
  let t: TestApp;
  const smtp = new TestSmtpServer();
  let transport: MailTransport;
  const clock = fixedClock(MARCH_15);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    await smtp.start();
    transport = smtpTransport(smtp.url, { from: FROM, timeoutMs: 2000 });
  });
  afterAll(async () => {
    transport.close();
    await smtp.stop();
    await t.close();
  });

  const s = () => t.services;
  const db = () => t.db.database.db;
  const deliver = () => deliverDueMail(s(), transport);
  /** The outbox rows of a user of one kind, newest first. */
  const queued = async (userId: number, kind: string): Promise<MailRecord[]> =>
    (await listMail(db(), { userId, limit: 100 })).filter((m) => m.kind === kind);
  const reload = (u: UserRecord) => getUserById(s(), u.id);
  /** The messages received at `address` but the sign-up's verification link, oldest first. */
  const noticesTo = (address: string) => smtp.to(address).filter((m) => m.subject !== 'Confirm your e-mail address');
  /** The value of a header as sent (unfolded), or undefined. */
  const headerOf = (mail: ReceivedMail, name: string) => {
    const line = mail.parsed.headerLines.find((h) => h.key === name)?.line;
    return line
      ?.slice(line.indexOf(':') + 1)
      .replace(/\r?\n\s+/g, ' ')
      .trim();
  };

  /** A user with a password and means (balance 1000, budget 500 cents) whose address is verified. */
  async function verifiedUser(): Promise<UserRecord> {
    const user = await buildWebUser(s());
    await markEmailVerified(s(), user.username);
    return reload(user);
  }
  async function thingOf(owner: UserRecord, title: string): Promise<number> {
    return createThing(
      s(),
      principalOf(owner),
      parseNewThing({ url: `https://example.org/${uniqueName('t')}`, title }),
    );
  }
  const tip = (u: UserRecord, thingId: number) => tipThing(s(), principalOf(u), thingId);
  async function loggedIn(user: UserRecord): Promise<WebClient> {
    const c = new WebClient(t.app);
    await c.login(user.username);
    return c;
  }
  /** POST an urlencoded body as given (repeated fields) with the client's cookies. */
  const postRaw = (c: WebClient, url: string, body: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url,
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: body,
    });
  /** Tips `innerUrl` through an auto-submit URL naming `owner`, as `tipper` (the API's POST /tip). */
  async function autoSubmit(tipperToken: string, owner: UserRecord, innerUrl: string, title: string) {
    const url = `${s().siteUrl}/submit/auto?${new URLSearchParams({ url: innerUrl, user_id: owner.username, title })}`;
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipperToken),
      payload: { url },
    });
    expect(res.statusCode, res.body).toBe(200);
    return (await db().selectFrom('things').select('id').where('url', '=', innerUrl).executeTakeFirstOrThrow()).id;
  }

  /** What the ledger says a tipper's settlement paid per thing in a period, in cents. */
  async function ledgerPaid(tipperId: number, period: string): Promise<Map<number, number>> {
    const rows = await db()
      .selectFrom('ledger_entries as e')
      .innerJoin('tips', 'tips.id', 'e.tip_id')
      .select(['tips.thing_id', 'e.amount_cents'])
      .where('tips.tipper_id', '=', tipperId)
      .where('tips.period', '=', period)
      .execute();
    return new Map(rows.map((r) => [r.thing_id, r.amount_cents]));
  }
  /** What the ledger says a user's earnings account got per thing from a period's settlement. */
  async function ledgerEarned(userId: number, period: string): Promise<Map<number, number>> {
    const rows = await db()
      .selectFrom('ledger_entries as e')
      .innerJoin('tips', 'tips.id', 'e.tip_id')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['tips.thing_id', 'e.amount_cents'])
      .where('a.account_key', '=', `earnings:user:${userId}`)
      .where('tips.period', '=', period)
      .execute();
    const out = new Map<number, number>();
    for (const r of rows) out.set(r.thing_id, (out.get(r.thing_id) ?? 0) + r.amount_cents);
    return out;
  }
  type Line = { thingId: number; title: string; url: string; cents: number };
  const asMap = (lines: Line[]) => new Map(lines.map((l) => [l.thingId, l.cents]));

  it('after a settlement: one receipt per tipper and owner, amounts as in the ledger, both parts in one; a re-run queues none', async () => {
    clock.set(MARCH_15);
    const creator = await verifiedUser();
    const both = await verifiedUser();
    const tipper = await verifiedUser();
    const unverified = await buildWebUser(s());
    const one = await thingOf(creator, 'Creator one');
    const two = await thingOf(creator, 'Creator two');
    const mine = await thingOf(both, 'Both one');
    // tipper: 500 over three tips (167, 167, 166 in tip order); both and unverified: 500 each on one tip.
    for (const thing of [one, two, mine]) await tip(tipper, thing);
    await tip(both, one);
    await tip(unverified, two);

    clock.set(APRIL_2);
    const report = await settlePeriod(s(), { period: '2026-03' });
    expect(report.status).toBe('settled');
    expect(report.receiptsQueued).toBeGreaterThanOrEqual(3);

    const [tipperRow, ...moreTipper] = await queued(tipper.id, 'receipt');
    expect(moreTipper).toEqual([]);
    const tp = tipperRow!.params as { period: string; budgetCents: number; paid: Line[]; earned: Line[] };
    expect(tp.period).toBe('2026-03');
    expect(tp.budgetCents).toBe(500);
    expect(tp.paid.map((l) => [l.thingId, l.title, l.cents])).toEqual([
      [one, 'Creator one', 167],
      [two, 'Creator two', 167],
      [mine, 'Both one', 166],
    ]);
    expect(asMap(tp.paid)).toEqual(await ledgerPaid(tipper.id, '2026-03'));
    expect(tp.earned).toEqual([]);

    const [bothRow, ...moreBoth] = await queued(both.id, 'receipt');
    expect(moreBoth).toEqual([]);
    const bp = bothRow!.params as { paid: Line[]; earned: Line[] };
    expect(asMap(bp.paid)).toEqual(new Map([[one, 500]]));
    expect(asMap(bp.paid)).toEqual(await ledgerPaid(both.id, '2026-03'));
    expect(asMap(bp.earned)).toEqual(new Map([[mine, 166]]));
    expect(asMap(bp.earned)).toEqual(await ledgerEarned(both.id, '2026-03'));

    const [creatorRow, ...moreCreator] = await queued(creator.id, 'receipt');
    expect(moreCreator).toEqual([]);
    const cp = creatorRow!.params as { paid: Line[]; earned: Line[] };
    expect(cp.paid).toEqual([]);
    // one: 167 (tipper) + 500 (both); two: 167 (tipper) + 500 (the unverified tipper's share counts).
    expect(asMap(cp.earned)).toEqual(
      new Map([
        [one, 667],
        [two, 667],
      ]),
    );
    expect(asMap(cp.earned)).toEqual(await ledgerEarned(creator.id, '2026-03'));
    expect(await queued(unverified.id, 'receipt')).toEqual([]);

    await deliver();
    const [tipperMail, ...tipperMore] = noticesTo(tipper.email);
    expect(tipperMore).toEqual([]);
    expect(tipperMail!.subject).toBe('Your Tipjar receipt for 2026-03');
    expect(tipperMail!.text).toContain('Your monthly budget of €5.00 paid:');
    expect(tipperMail!.text).toMatch(/- Creator one \(https:\/\/example\.org\/[^)]+\): €1\.67/);
    expect(tipperMail!.text).toMatch(/- Both one \(https:\/\/example\.org\/[^)]+\): €1\.66/);
    expect(tipperMail!.text).toContain('Total: €5.00');
    expect(tipperMail!.text).not.toContain('Your things earned');
    const [bothMail, ...bothMore] = noticesTo(both.email);
    expect(bothMore).toEqual([]);
    expect(bothMail!.text).toContain('Your monthly budget of €5.00 paid:');
    expect(bothMail!.text).toContain('Your things earned:');
    expect(bothMail!.text).toMatch(/- Both one \(https:\/\/example\.org\/[^)]+\): €1\.66/);
    const [creatorMail, ...creatorMore] = noticesTo(creator.email);
    expect(creatorMore).toEqual([]);
    expect(creatorMail!.text).not.toContain('Your monthly budget');
    expect(creatorMail!.text).toMatch(/- Creator two \(https:\/\/example\.org\/[^)]+\): €6\.67/);
    expect(creatorMail!.text).toContain('Total: €13.34');
    expect(linkIn(creatorMail!, `${s().siteUrl}/notices/unsubscribe/`)).toBeTruthy();
    expect(noticesTo(unverified.email)).toEqual([]);

    const again = await settlePeriod(s(), { period: '2026-03' });
    expect(again).toMatchObject({ alreadySettled: true, receiptsQueued: 0 });
    for (const u of [tipper, both, creator]) expect(await queued(u.id, 'receipt')).toHaveLength(1);
  });

  it('a renewal skipped for lack of money: one message per user and period listing the things, and the money page says so', async () => {
    clock.set(APRIL_2 + 3600);
    const owner = await buildUser(s());
    const r1 = await thingOf(owner.user, 'Renewed one');
    const r2 = await thingOf(owner.user, 'Renewed two');
    const r3 = await thingOf(owner.user, 'Renewed three');
    const poor = await verifiedUser();
    for (const thing of [r1, r2]) expect((await subscribe(s(), principalOf(poor), thing)).tip).toBe('tipped');
    await setMonthlyBudget(s(), poor.id, 5000); // above the balance of 1000: no means from May on

    clock.set(MAY_1);
    const report = await renewSubscriptions(s());
    expect(report.renewals.filter((r) => r.userId === poor.id)).toEqual([
      { userId: poor.id, thingId: r1, outcome: 'no_means' },
      { userId: poor.id, thingId: r2, outcome: 'no_means' },
    ]);
    const [row, ...more] = await queued(poor.id, 'renewal_skipped');
    expect(more).toEqual([]);
    expect(row!.params).toMatchObject({
      period: '2026-05',
      things: [
        { thingId: r1, title: 'Renewed one' },
        { thingId: r2, title: 'Renewed two' },
      ],
    });
    await deliver();
    const [mail, ...others] = noticesTo(poor.email);
    expect(others).toEqual([]);
    expect(mail!.subject).toBe('Your Tipjar subscriptions were not renewed for 2026-05');
    expect(mail!.text).toContain(`- Renewed one: ${s().siteUrl}/thing/${r1}`);
    expect(mail!.text).toContain(`- Renewed two: ${s().siteUrl}/thing/${r2}`);
    expect(linkIn(mail!, `${s().siteUrl}/settings`)).toBe(`${s().siteUrl}/settings`);

    // Run again, and a later skip in the same period: the period's message was sent already.
    await renewSubscriptions(s());
    expect((await subscribe(s(), principalOf(poor), r3)).tip).toBe('no_means');
    const later = await renewSubscriptions(s());
    expect(later.renewals.filter((r) => r.userId === poor.id)).toEqual([
      { userId: poor.id, thingId: r3, outcome: 'no_means' },
    ]);
    expect(await queued(poor.id, 'renewal_skipped')).toHaveLength(1);

    const c = await loggedIn(poor);
    const body = html(await c.get('/settings'));
    expect(body).toContain('Not renewed in 2026-05 for lack of money: ');
    expect(body).toContain(`<a href="/thing/${r1}">Renewed one</a>, <a href="/thing/${r2}">Renewed two</a>, `);
    expect(body).toContain(`<a href="/thing/${r3}">Renewed three</a>`);
    expect(body).toContain('<a href="/funds">Add money</a> or lower your monthly budget');
    expect(body).toContain('<section id="money">');

    // Someone with means sees no such line.
    const rich = await loggedIn(await verifiedUser());
    expect(html(await rich.get('/settings'))).not.toContain('Not renewed in');
  });

  it('receipts in batches of 2: every user who tipped or earned gets exactly one, as the ledger says', async () => {
    clock.set(MAY_1 + 3600);
    // Ids interleaved: owners only, tippers only, and users who do both.
    const users: { user: UserRecord; role: 'owner' | 'tipper' | 'both' }[] = [];
    for (let i = 0; i < 9; i++)
      users.push({ user: await verifiedUser(), role: (['owner', 'tipper', 'both'] as const)[i % 3]! });
    const things = new Map<number, number[]>();
    for (const { user, role } of users)
      if (role !== 'tipper') things.set(user.id, [await thingOf(user, 'Batch a'), await thingOf(user, 'Batch b')]);
    const unverifiedOwner = await buildWebUser(s());
    const hers = await thingOf(unverifiedOwner, 'Unverified owner');
    const idle = await verifiedUser();
    let k = 0;
    for (const { user, role } of users) {
      if (role === 'owner') continue;
      const others = [...things].filter(([owner]) => owner !== user.id).flatMap(([, ids]) => ids);
      for (let j = 0; j <= k % 3; j++) await tip(user, others[(k + j * 3) % others.length]!);
      k++;
    }
    await tip(users[1]!.user, hers);

    clock.set(Date.UTC(2026, 5, 2) / 1000);
    const report = await settlePeriod(s(), { period: '2026-05', receiptBatch: 2 });
    expect(report.receiptsQueued).toBe(users.length);
    for (const { user, role } of users) {
      const rows = await queued(user.id, 'receipt');
      expect(rows.map((r) => (r.params as { period: string }).period)).toEqual(['2026-05']);
      const p = rows[0]!.params as { paid: Line[]; earned: Line[] };
      expect(asMap(p.paid)).toEqual(await ledgerPaid(user.id, '2026-05'));
      expect(asMap(p.earned)).toEqual(await ledgerEarned(user.id, '2026-05'));
      expect(p.paid.length > 0).toBe(role !== 'owner');
    }
    expect(await queued(unverifiedOwner.id, 'receipt')).toEqual([]);
    expect(await queued(idle.id, 'receipt')).toEqual([]);

    // A run that died midway and is run again: the receipts missing are queued, none twice.
    const lost = users.slice(0, 3).map((u) => u.user.id);
    await db().deleteFrom('mail_outbox').where('kind', '=', 'receipt').where('user_id', 'in', lost).execute();
    expect(await queueReceipts(s(), '2026-05', 2)).toBe(lost.length);
    expect(await queueReceipts(s(), '2026-05', 2)).toBe(0);
    for (const { user } of users) expect(await queued(user.id, 'receipt')).toHaveLength(1);
  });

  it('a thing created in your name through an auto-submit URL mails you once; you can hide and delete it from its page', async () => {
    const owner = await verifiedUser();
    const tipper = await buildUser(s());
    const inner = `https://blog.example/${uniqueName('post')}`;
    const id = await autoSubmit(tipper.token, owner, inner, 'My post');
    const second = await buildUser(s());
    await autoSubmit(second.token, owner, inner, 'My post');
    expect(await queued(owner.id, 'thing_created')).toHaveLength(1);

    await deliver();
    const [mail, ...more] = noticesTo(owner.email);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('A thing was registered in your name: My post');
    expect(mail!.text).toContain(inner);
    const link = linkIn(mail!, `${s().siteUrl}/thing/`);
    expect(link).toBe(`${s().siteUrl}/thing/${id}`);

    // Another user sees no owner's buttons and cannot use them.
    const stranger = await loggedIn(await verifiedUser());
    const strangerPage = html(await stranger.get(`/thing/${id}`));
    expect(strangerPage).not.toContain('Delete this thing');
    html(await stranger.submit(`/thing/${id}`, `/thing/${id}/hide`, { hidden: '1' }), 403);
    html(await stranger.get(`/thing/${id}/delete`), 403);
    html(await stranger.submit(`/thing/${id}`, `/thing/${id}/delete`, { confirm: '1' }), 403);
    expect((await getThing(s(), id)).hidden).toBe(false);

    const c = await loggedIn(owner);
    const page = html(await c.get(new URL(link).pathname));
    expect(page).toContain('Hide it');
    expect(page).toContain('Delete this thing');
    const hidden = await c.submit(`/thing/${id}`, `/thing/${id}/hide`, { hidden: '1' });
    expect(hidden.statusCode).toBe(303);
    expect(hidden.headers.location).toBe(`/thing/${id}`);
    expect((await getThing(s(), id)).hidden).toBe(true);
    expect(html(await c.get(`/thing/${id}`))).toContain('Show it again');

    // Delete goes through its confirmation page; a POST without the confirmation changes nothing.
    expect(page).toContain(`<a class="button secondary" href="/thing/${id}/delete">Delete this thing…</a>`);
    const confirmation = html(await c.get(`/thing/${id}/delete`));
    expect(confirmation).toContain('<h1>Delete “My post”?</h1>');
    expect(confirmation).toContain(`<form method="post" action="/thing/${id}/delete">`);
    expect(confirmation).toContain('<input type="hidden" name="confirm" value="1">');
    expect(confirmation).toContain(`<a class="button secondary" href="/thing/${id}">Cancel</a>`);
    const refused = html(await c.submit(`/thing/${id}`, `/thing/${id}/delete`, {}), 400);
    expect(refused).toContain('Nothing was changed: confirm with the button below.');
    expect((await getThing(s(), id)).id).toBe(id);
    const deleted = await c.submit(`/thing/${id}/delete`, `/thing/${id}/delete`, { confirm: '1' });
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe('/');
    html(await c.get(`/thing/${id}`), 404);
  });

  it('the first authorization of an application mails the user; authorizing it again does not', async () => {
    const user = await verifiedUser();
    const app = await buildClient(s(), { name: 'Reader <App>' });
    const c = await loggedIn(user);
    const approve = async () => {
      const page = html(
        await c.get(
          `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT_URI, scope: 'tip extendedread' })}`,
        ),
      );
      const signed = /name="request" value="([^"]+)"/.exec(page)![1]!;
      const res = await c.post('/oauth/authorize', { _csrf: csrfOf(page), request: signed, decision: 'approve' });
      expect(res.statusCode).toBe(303);
    };
    await approve();
    await approve();
    const [row, ...more] = await queued(user.id, 'application_authorized');
    expect(more).toEqual([]);
    expect(row!.params).toMatchObject({ application: 'Reader <App>', scopes: 'tip extendedread' });
    await deliver();
    const [mail, ...others] = noticesTo(user.email);
    expect(others).toEqual([]);
    expect(mail!.subject).toBe('You authorized Reader <App> on Tipjar');
    expect(mail!.text).toContain('(scopes: tip extendedread)');
    expect(mail!.html).toContain('Reader &lt;App&gt;');
    expect(linkIn(mail!, `${s().siteUrl}/authorized`)).toBe(`${s().siteUrl}/authorized`);

    // Another application is new again.
    await authorizeCode(s(), await buildClient(s()), user.id);
    expect(await queued(user.id, 'application_authorized')).toHaveLength(2);
  });

  it('settings: unchecking a notice stops it; an unknown notice or a missing CSRF token changes nothing', async () => {
    const owner = await verifiedUser();
    const tipper = await buildUser(s());
    const c = await loggedIn(owner);
    const before = html(await c.get('/settings'));
    expect(before).toContain('<section id="notices">');
    for (const kind of ['receipt', 'renewal_skipped', 'thing_created', 'application_authorized'])
      expect(before).toContain(`name="notice" value="${kind}" checked>`);
    expect(before).not.toContain('yours is not verified yet');

    const csrf = csrfOf(before);
    const saved = await c.post(
      '/settings/notices',
      new URLSearchParams([
        ['_csrf', csrf],
        ['notice', 'receipt'],
        ['notice', 'renewal_skipped'],
        ['notice', 'application_authorized'],
      ]),
    );
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/settings');
    const after = html(await c.get('/settings'));
    expect(after).toContain('Your e-mail notices were saved.');
    expect(after).toContain('name="notice" value="thing_created">');
    expect(after).toContain('name="notice" value="receipt" checked>');
    expect((await reload(owner)).notices).toEqual({
      receipt: true,
      renewal_skipped: true,
      thing_created: false,
      application_authorized: true,
    });

    await autoSubmit(tipper.token, owner, `https://blog.example/${uniqueName('off')}`, 'Not told');
    expect(await queued(owner.id, 'thing_created')).toEqual([]);

    const unknown = await postRaw(c, '/settings/notices', `_csrf=${encodeURIComponent(csrf)}&notice=everything`);
    expect(html(unknown, 400)).toContain('Unknown notice: &quot;everything&quot;');
    html(await postRaw(c, '/settings/notices', 'notice=receipt'), 403);
    expect((await reload(owner)).notices.thing_created).toBe(false);
    expect((await reload(owner)).notices.application_authorized).toBe(true);

    // Everything off (no box ticked), then on again.
    expect((await postRaw(c, '/settings/notices', `_csrf=${encodeURIComponent(csrf)}`)).statusCode).toBe(303);
    expect(Object.values((await reload(owner)).notices)).toEqual([false, false, false, false]);
    await c.submit('/settings', '/settings/notices', { notice: 'thing_created' });
    expect((await reload(owner)).notices.thing_created).toBe(true);
    await autoSubmit(tipper.token, owner, `https://blog.example/${uniqueName('on')}`, 'Told');
    expect(await queued(owner.id, 'thing_created')).toHaveLength(1);
  });

  it('an unverified address gets no notice at all', async () => {
    const owner = await buildWebUser(s());
    expect(owner.emailVerifiedAt).toBeNull();
    const tipper = await buildUser(s());
    await autoSubmit(tipper.token, owner, `https://blog.example/${uniqueName('u')}`, 'Unverified');
    await authorizeCode(s(), await buildClient(s()), owner.id);
    // Only the sign-up's verification link was queued for this user.
    expect((await listMail(db(), { userId: owner.id, limit: 10 })).map((m) => m.kind)).toEqual(['verify_email']);
    const c = await loggedIn(owner);
    expect(html(await c.get('/settings'))).toContain('yours is not verified yet');
  });

  it('one-click unsubscription (RFC 8058): GET changes nothing, POST without cookie or CSRF turns the notice off, bad tokens are 404', async () => {
    const user = await verifiedUser();
    await authorizeCode(s(), await buildClient(s()), user.id);
    const tipper = await buildUser(s());
    await autoSubmit(tipper.token, user, `https://blog.example/${uniqueName('k')}`, 'Kept');
    await deliver();
    const mails = noticesTo(user.email);
    const appMail = mails.find((m) => m.subject.startsWith('You authorized')) as ReceivedMail;
    const thingMail = mails.find((m) => m.subject.startsWith('A thing was registered')) as ReceivedMail;
    const appLink = linkIn(appMail, `${s().siteUrl}/notices/unsubscribe/`);
    const thingLink = linkIn(thingMail, `${s().siteUrl}/notices/unsubscribe/`);
    expect(headerOf(appMail, 'list-unsubscribe')).toBe(`<${appLink}>`);
    expect(headerOf(appMail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const appPath = new URL(appLink).pathname;
    const thingPath = new URL(thingLink).pathname;

    // A scanner (or the person) opens the link: a page with a button, nothing changed.
    const anonymous = new WebClient(t.app);
    const page = html(await anonymous.get(appPath));
    expect(page).toContain('I authorized a new application');
    expect(page).toContain(`<form method="post" action="${appPath}">`);
    expect(page).toContain('name="List-Unsubscribe" value="One-Click"');
    expect((await reload(user)).notices.application_authorized).toBe(true);

    // What a mail client sends: the one field, no cookie, no CSRF token.
    const oneClick = (path: string, payload: string, type = 'application/x-www-form-urlencoded') =>
      t.app.inject({ method: 'POST', url: path, headers: { 'content-type': type }, payload });
    const done = await oneClick(appPath, 'List-Unsubscribe=One-Click');
    expect(html(done)).toContain('You are unsubscribed');
    expect((await reload(user)).notices).toMatchObject({ application_authorized: false, thing_created: true });
    html(await oneClick(appPath, 'List-Unsubscribe=One-Click')); // again: the same answer
    await authorizeCode(s(), await buildClient(s()), user.id);
    expect(await queued(user.id, 'application_authorized')).toHaveLength(1);

    // Without the one-click field: the button again, nothing changed.
    expect(html(await oneClick(thingPath, ''), 400)).toContain('Use the button below to unsubscribe.');
    expect((await reload(user)).notices.thing_created).toBe(true);
    // multipart/form-data, as in RFC 8058's example.
    const boundary = '---FormBoundaryjWmhtjORrn';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    html(await oneClick(thingPath, multipart, `multipart/form-data; boundary=${boundary}`));
    expect((await reload(user)).notices).toEqual({
      receipt: true,
      renewal_skipped: true,
      thing_created: false,
      application_authorized: false,
    });

    // Unknown, malformed and expired tokens.
    html(await anonymous.get('/notices/unsubscribe/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 404);
    html(
      await oneClick('/notices/unsubscribe/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'List-Unsubscribe=One-Click'),
      404,
    );
    html(await anonymous.get('/notices/unsubscribe/x'), 404);
    clock.advance(UNSUBSCRIBE_TTL + 1);
    html(await anonymous.get(appPath), 404);
    html(await oneClick(thingPath, 'List-Unsubscribe=One-Click'), 404);
  });
});
