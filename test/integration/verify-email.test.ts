/**
 * Verified addresses (src/domain/verification.ts, src/web/routes/verify.ts) on every engine,
 * against a real SMTP server on 127.0.0.1: the link in the message sent at sign-up verifies the
 * address once and expires after 24 hours; a link for an earlier address, an unknown or malformed
 * link verify nothing; the resend form (log-in, CSRF, same-site return_to, per-account limit);
 * the settings page; and the attacker's sequence — sign up with the victim's address, open
 * `/claim/email:<md5>`, confirm → refused — while the victim, verifying through the mailed link,
 * claims the things and the money held for them.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postTransaction, accountBalance } from '../../src/db/repositories/ledger.ts';
import { hashSecret } from '../../src/domain/secrets.ts';
import { VERIFY_TTL } from '../../src/domain/verification.ts';
import { deliverDueMail } from '../../src/mail/dispatcher.ts';
import { smtpTransport, type MailTransport } from '../../src/mail/transport.ts';
import { VERIFICATION_MAILS_PER_HOUR } from '../../src/web/limits.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { linkIn, TestSmtpServer, type ReceivedMail } from '../helpers/smtp.ts';
import { buildWebUser, html, PASSWORD, WebClient } from '../helpers/web.ts';

const FROM = 'Tipjar <no-reply@tipjar.test>';
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const autoSubmit = (params: Record<string, string>) =>
  `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;

describe.each(ENGINES)('verified addresses on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(1_900_000_000);
  const smtp = new TestSmtpServer();
  let transport: MailTransport;
  let tipper: TestUser;
  /** a distinct client address per browser, so the per-IP form limits of one test never touch another */
  let ip = 0;
  const browser = () => new WebClient(t.app, `10.9.${Math.floor(++ip / 250)}.${ip % 250}`);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    await smtp.start();
    transport = smtpTransport(smtp.url, { from: FROM, timeoutMs: 5000 });
    tipper = await buildUser(t.services, { scopes: 'tip' });
  });
  afterAll(async () => {
    transport.close();
    await smtp.stop();
    await t.close();
  });

  /** Sends what is queued; returns the messages received for `address` (case-insensitive), oldest first. */
  async function mailTo(address: string): Promise<ReceivedMail[]> {
    await deliverDueMail(t.services, transport);
    return smtp.received.filter((m) => m.to.toLowerCase() === address.toLowerCase());
  }
  /** The site path of the verification link in the newest message to `address` for `username`. */
  async function verifyPath(address: string, username: string): Promise<string> {
    const mails = (await mailTo(address)).filter((m) => m.text.includes(username));
    expect(mails.length).toBeGreaterThan(0);
    const link = linkIn(mails.at(-1)!, `${PUBLIC_URL}/verify-email/`);
    return new URL(link).pathname;
  }
  const userRow = (id: number) =>
    t.db.database.db
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const outboxTo = async (address: string) =>
    (await t.db.database.db.selectFrom('mail_outbox').select('id').where('recipient', '=', address).execute()).length;

  it('the link in the real message verifies the address once; a second click says it was used (410)', async () => {
    const user = await buildWebUser(t.services);
    expect((await userRow(user.id)).email_verified_at).toBeNull();
    const [mail] = await mailTo(user.email);
    expect(mail!.subject).toBe('Confirm your e-mail address');
    expect(mail!.text).toContain(user.username);
    const path = await verifyPath(user.email, user.username);
    const token = path.split('/').at(-1)!;
    // Stored only as its SHA-256.
    const rows = await t.db.database.db
      .selectFrom('account_tokens')
      .select(['token_hash', 'detail', 'expires_at', 'used_at'])
      .where('purpose', '=', 'verify_email')
      .where('detail', '=', user.email)
      .execute();
    expect(rows).toEqual([
      { token_hash: hashSecret(token), detail: user.email, expires_at: clock.now() + VERIFY_TTL, used_at: null },
    ]);

    const visitor = browser(); // not logged in
    const page = html(await visitor.get(path));
    expect(page).toContain(`Your address <strong>${user.email}</strong> is verified`);
    expect((await userRow(user.id)).email_verified_at).toBe(clock.now());

    const again = html(await visitor.get(path), 410);
    expect(again).toContain('This link has already been used.');
    expect(again).toContain(`<strong>${user.email}</strong> is verified`);
    expect((await userRow(user.id)).email_verified_at).toBe(clock.now());
  });

  it('of two clicks at once on one link, exactly one verifies', async () => {
    const user = await buildWebUser(t.services);
    const path = await verifyPath(user.email, user.username);
    const results = await Promise.all([browser().get(path), browser().get(path), browser().get(path)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 410, 410]);
    expect((await userRow(user.id)).email_verified_at).toBe(clock.now());
  });

  it('a link expires after 24 hours; a logged-in user is offered a new one, which works', async () => {
    const early = await buildWebUser(t.services);
    const late = await buildWebUser(t.services);
    const earlyPath = await verifyPath(early.email, early.username);
    const latePath = await verifyPath(late.email, late.username);
    clock.advance(VERIFY_TTL - 1);
    html(await browser().get(latePath)); // the last second still works
    expect((await userRow(late.id)).email_verified_at).toBe(clock.now());
    clock.advance(1);

    const anonymous = html(await browser().get(earlyPath), 410);
    expect(anonymous).toContain('This link has expired');
    expect(anonymous).toContain('to have a new link sent');
    expect(anonymous).not.toContain('action="/verify-email/resend"');
    expect((await userRow(early.id)).email_verified_at).toBeNull();

    const c = browser();
    await c.login(early.username);
    const offered = html(await c.get(earlyPath), 410);
    expect(offered).toContain('action="/verify-email/resend"');
    expect(offered).toContain(`Send a new link to <strong>${early.email}</strong>?`);
    const sent = await c.submit(earlyPath, '/verify-email/resend', { return_to: '/settings' });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe('/settings');
    expect(html(await c.get(sent.headers.location!))).toContain('A new verification link is on its way');

    const fresh = await verifyPath(early.email, early.username);
    expect(fresh).not.toBe(earlyPath);
    expect(html(await c.get(fresh))).toContain(`Your address <strong>${early.email}</strong> is verified`);
    expect((await userRow(early.id)).email_verified_at).toBe(clock.now());
    // The expired one stays dead, and says the address is verified.
    expect(html(await c.get(earlyPath), 410)).toContain('is verified');
  });

  it('a link sent for an earlier address does not verify the new one (410)', async () => {
    const user = await buildWebUser(t.services);
    const path = await verifyPath(user.email, user.username);
    const changed = `${uniqueName('moved')}@example.org`;
    await t.db.database.db.updateTable('users').set({ email: changed }).where('id', '=', user.id).execute();
    const page = html(await browser().get(path), 410);
    expect(page).toContain('sent for an e-mail address the account no longer has');
    expect(await userRow(user.id)).toEqual({ email: changed, email_verified_at: null });
  });

  it('unknown and malformed links → 400, nothing verified', async () => {
    const user = await buildWebUser(t.services);
    const c = browser();
    await c.login(user.username);
    for (const token of ['A'.repeat(43), 'short', `${'x'.repeat(200)}`, 'a.b.c']) {
      const page = html(await c.get(`/verify-email/${token}`), 400);
      expect(page).toContain('This verification link is not valid.');
      expect(page).toContain('action="/verify-email/resend"'); // logged in and not verified
    }
    expect((await userRow(user.id)).email_verified_at).toBeNull();
  });

  it('the resend form: log-in required, a same-site return_to only, nothing for a verified address, 5 links an hour', async () => {
    const user = await buildWebUser(t.services);
    const anonymous = browser();
    const out = await anonymous.submit('/login', '/verify-email/resend', { return_to: '/settings' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(`/login?return_to=${encodeURIComponent('/settings')}`);
    expect(await outboxTo(user.email)).toBe(1); // the sign-up's

    const c = browser();
    await c.login(user.username);
    const kept = await c.submit('/settings', '/verify-email/resend', { return_to: '/settings?tab=mail' });
    expect(kept.headers.location).toBe('/settings?tab=mail');
    const offsite = await c.submit('/settings', '/verify-email/resend', { return_to: 'https://evil.example/x' });
    expect(offsite.headers.location).toBe('/');
    const fallback = await c.submit('/settings', '/verify-email/resend', {});
    expect(fallback.headers.location).toBe('/settings');
    for (let i = 3; i < VERIFICATION_MAILS_PER_HOUR; i++)
      expect((await c.submit('/settings', '/verify-email/resend')).statusCode).toBe(303);
    expect(await outboxTo(user.email)).toBe(1 + VERIFICATION_MAILS_PER_HOUR);

    const refused = await c.submit('/settings', '/verify-email/resend', { return_to: '/settings' });
    const body = html(refused, 429);
    expect(body).toContain(`A new link was sent ${VERIFICATION_MAILS_PER_HOUR} times in the last hour`);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await outboxTo(user.email)).toBe(1 + VERIFICATION_MAILS_PER_HOUR);

    // Any of them works; the one used ends the others.
    const mails = (await mailTo(user.email)).filter((m) => m.text.includes(user.username));
    expect(mails).toHaveLength(1 + VERIFICATION_MAILS_PER_HOUR);
    const second = new URL(linkIn(mails[1]!, `${PUBLIC_URL}/verify-email/`)).pathname;
    html(await c.get(second));

    // Verified: nothing more is sent, and the request does not count.
    const other = await buildWebUser(t.services);
    const v = browser();
    await v.login(other.username);
    html(await v.get(await verifyPath(other.email, other.username)));
    const done = await v.submit('/settings', '/verify-email/resend', { return_to: '/settings' });
    expect(done.headers.location).toBe('/settings');
    expect(await outboxTo(other.email)).toBe(1);
  });

  it('settings show the address as not verified with a resend button, then as verified', async () => {
    const user = await buildWebUser(t.services);
    const c = browser();
    await c.login(user.username);
    const before = html(await c.get('/settings'));
    expect(before).toContain(`<strong>${user.email}</strong> — not verified`);
    expect(before).toContain('<button type="submit">Resend link</button>');
    html(await c.get(await verifyPath(user.email, user.username)));
    const after = html(await c.get('/settings'));
    expect(after).toContain(`<strong>${user.email}</strong> — verified`);
    expect(after).not.toContain('Resend link');
  });

  it("the attacker's sequence fails; the owner of the address verifies through the mailed link and claims", async () => {
    const address = `${uniqueName('Victim')}@Example.org`;
    const identity = `email:${md5(address.toLowerCase())}`;
    // Things registered for the victim's address, and money held for them.
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: {
        url: autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner: identity, title: 'Mine' }),
      },
    });
    expect(res.statusCode).toBe(200);
    const thingId = json(res).thing.id as number;
    await postTransaction(t.db.database.db, { kind: 'settlement', reference: uniqueName('held'), now: clock.now() }, [
      { account: { kind: 'funding' }, amountCents: -250 },
      { account: { kind: 'held', identity }, amountCents: 250 },
    ]);
    const owner = () =>
      t.db.database.db
        .selectFrom('things')
        .select(['owner_user_id', 'owner_identity'])
        .where('id', '=', thingId)
        .executeTakeFirstOrThrow();
    const identityRow = () =>
      t.db.database.db.selectFrom('identities').selectAll().where('identity', '=', identity).executeTakeFirst();
    const claimPage = `/claim/${encodeURIComponent(identity)}`;

    // The attacker signs up with the victim's address, opens the claim page and confirms.
    const attacker = browser();
    const attackerName = uniqueName('mallory');
    const signup = await attacker.submit('/signup', '/signup', {
      username: attackerName,
      email: address,
      password: PASSWORD,
    });
    expect(signup.statusCode).toBe(303);
    const page = html(await attacker.get(claimPage));
    expect(page).toContain('it is not verified yet');
    expect(page).not.toContain('<button type="submit">Claim</button>');
    const refused = await attacker.submit(claimPage, claimPage);
    expect(html(refused, 403)).toContain('it is not verified yet');
    // Asking for a new link only mails the victim.
    const resent = await attacker.submit(claimPage, '/verify-email/resend', { return_to: claimPage });
    expect(resent.headers.location).toBe(claimPage);
    expect(html(await attacker.get(resent.headers.location!))).toContain('A new verification link is on its way');
    const toVictim = await mailTo(address);
    expect(toVictim.filter((m) => m.text.includes(attackerName))).toHaveLength(2);
    expect(toVictim.every((m) => m.to.toLowerCase() === address.toLowerCase())).toBe(true);
    expect(await owner()).toEqual({ owner_user_id: null, owner_identity: identity });
    expect(await identityRow()).toBeUndefined();
    expect(await accountBalance(t.db.database.db, { kind: 'held', identity })).toBe(250);

    // The victim signs up with the same address (other letter case, spaces around it) and verifies.
    const victim = browser();
    const victimName = uniqueName('victim');
    expect(
      (
        await victim.submit('/signup', '/signup', {
          username: victimName,
          email: `  ${address.toUpperCase()} `,
          password: PASSWORD,
        })
      ).statusCode,
    ).toBe(303);
    const link = await verifyPath(address, victimName);
    expect(html(await victim.get(link))).toContain(`is verified for the account <strong>${victimName}</strong>`);
    const ready = html(await victim.get(claimPage));
    expect(ready).toContain('<button type="submit">Claim</button>');
    const claimed = await victim.submit(claimPage, claimPage);
    expect(claimed.statusCode).toBe(303);
    const victimRow = await t.db.database.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', victimName)
      .executeTakeFirstOrThrow();
    expect(await owner()).toEqual({ owner_user_id: victimRow.id, owner_identity: null });
    expect(await identityRow()).toMatchObject({ user_id: victimRow.id, partner_id: null });
    expect(await accountBalance(t.db.database.db, { kind: 'held', identity })).toBe(0);
    expect(await accountBalance(t.db.database.db, { kind: 'earnings', userId: victimRow.id })).toBe(250);

    // The attacker is left with nothing.
    expect(html(await attacker.get(claimPage))).toContain('already been claimed by another account');
    html(await attacker.submit(claimPage, claimPage), 403);
    expect(await owner()).toEqual({ owner_user_id: victimRow.id, owner_identity: null });
  });
});
