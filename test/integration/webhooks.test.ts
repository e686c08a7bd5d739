/**
 * Partner webhooks end to end (DECISIONS.md "Partners, pending things, webhooks"): a tip
 * on a pending thing writes a `pendingclickcreate` delivery in the tip's transaction; the
 * dispatcher POSTs it form-encoded and signed to a real receiver (an HTTP server on 127.0.0.1 that
 * checks `_event` and the signature with the `standardwebhooks` library, as a partner would),
 * retries with backoff while the receiver fails, gives up after 3 days, and — with the real
 * server killed (SIGKILL) while deliveries are in flight — delivers each exactly once to a
 * receiver that dedupes by `webhook-id` after a restart.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { exited, startTipjar, until, waitForExit } from '../helpers/processes.ts';
import { buildUser, uniqueName } from '../helpers/factories.ts';
import { createPartner } from '../../src/webhooks/partners.ts';
import { deliverDue, retryDelaySeconds, RETRY_WINDOW_SECONDS } from '../../src/webhooks/dispatcher.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { tipUrl } from '../../src/domain/tips.ts';
import { resolveToken } from '../../src/auth/tokens.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  params: Record<string, string>;
  /** the signature checked with standardwebhooks */
  verified: boolean;
}

/**
 * A partner's receiver on 127.0.0.1: verifies each request with `standardwebhooks`, answers
 * `failFirst` requests with 503, then 200 (or waits `holdMs` first), and processes each
 * `webhook-id` once.
 */
class Receiver {
  server!: Server;
  url = '';
  secret = '';
  requests: Received[] = [];
  processed = new Map<string, Record<string, string>>();
  duplicates = 0;
  failFirst = 0;
  holdMs = 0;
  status = 200;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let verified = false;
        try {
          new Webhook(this.secret).verify(body, req.headers as Record<string, string>, { jsonParse: false });
          verified = true;
        } catch (err) {
          if (!(err instanceof WebhookVerificationError)) throw err;
        }
        const params = Object.fromEntries(new URLSearchParams(body));
        this.requests.push({ headers: req.headers, body, params, verified });
        const answer = () => {
          if (req.socket.destroyed) return; // the sender died before the answer: not processed
          if (this.status !== 200) return res.writeHead(this.status).end();
          if (!verified || params._event !== 'pendingclickcreate') return res.writeHead(400).end();
          if (this.failFirst > 0) {
            this.failFirst--;
            return res.writeHead(503).end('try later');
          }
          const id = String(req.headers['webhook-id']);
          if (this.processed.has(id)) this.duplicates++;
          else this.processed.set(id, params);
          res.writeHead(200).end('ok');
        };
        if (this.holdMs > 0) setTimeout(answer, this.holdMs);
        else answer();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/tipjar`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const autoSubmit = (params: Record<string, string>) =>
  `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;

describe('retryDelaySeconds', () => {
  it('doubles from 30 s up to 6 h, with jitter in the upper half', () => {
    expect([1, 2, 3, 4, 10, 11, 20].map((n) => retryDelaySeconds(n, () => 0))).toEqual([
      15, 30, 60, 120, 7680, 10800, 10800,
    ]);
    expect([1, 2, 3, 4, 10, 11, 20].map((n) => retryDelaySeconds(n, () => 0.999999))).toEqual([
      30, 60, 120, 240, 15360, 21600, 21600,
    ]);
  });
});

describe.each(ENGINES)('partner webhooks on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(Math.floor(Date.now() / 1000));
  const receiver = new Receiver();
  let namespace: string;
  let partnerId: number;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    await receiver.start();
    namespace = uniqueName('ns');
    const created = await createPartner(t.services, {
      namespace,
      webhookUrl: receiver.url,
      events: 'pendingclickcreate',
      allowPrivateWebhook: true,
    });
    receiver.secret = created.signingSecret;
    partnerId = created.partner.id;
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  const deliveries = () =>
    t.db.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .orderBy('id')
      .execute();

  it('creates the pending thing on its first tip and writes the delivery in the same transaction', async () => {
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const identity = `partner:${namespace}:42`;
    const url = `https://blog.example.com/${uniqueName('post')}`;
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url: autoSubmit({ url, owner: identity, title: 'A post' }) },
    });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.thing).toMatchObject({ tips: 1, url });
    const id = body.thing.id as number;
    const thing = json(await t.app.inject({ url: `${API}/things/${id}` }));
    expect(thing.owner).toEqual({ type: 'user', resource: '', link: '', username: '', identity });
    const rows = (await deliveries()).filter((d) => JSON.parse(d.payload).thing_id === String(id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event: 'pendingclickcreate',
      status: 'pending',
      attempts: 0,
      next_attempt_at: clock.now(),
      claimed_by: null,
    });
    expect(rows[0]!.message_id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(JSON.parse(rows[0]!.payload)).toEqual({
      _event: 'pendingclickcreate',
      thing_id: String(id),
      thing_owner_id: identity,
      thing_clicks_total: '1',
      tipper_username: tipper.user.username,
      claim_url: `${PUBLIC_URL}/claim/${encodeURIComponent(identity)}`,
    });
    // A refused tip (tip_once) writes nothing.
    const again = await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) });
    expect(again.statusCode).toBe(403);
    expect((await deliveries()).filter((d) => JSON.parse(d.payload).thing_id === String(id))).toHaveLength(1);
  });

  it('delivers signed form posts, retrying with backoff while the receiver fails, and logs every attempt', async () => {
    await deliverDue(t.services); // flush earlier deliveries
    receiver.requests = [];
    const hidden = await buildUser(t.services, { scopes: 'tip' });
    await t.db.database.db.updateTable('users').set({ hide_tips: 1 }).where('id', '=', hidden.user.id).execute();
    const identity = `partner:${namespace}:7`;
    const url = `https://blog.example.com/${uniqueName('post')}`;
    const tipped = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(hidden.token),
      payload: { url: autoSubmit({ url, owner: identity }) },
    });
    expect(tipped.statusCode).toBe(200);
    const thingId = json(tipped).thing.id as number;

    receiver.failFirst = 2;
    const retryDelay = (n: number) => 10 * n;
    const first = await deliverDue(t.services, { retryDelay });
    expect(first).toEqual({ attempted: 1, delivered: 0, retried: 1, failed: 0 });
    let [row] = (await deliveries()).slice(-1);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: clock.now() + 10,
      claimed_by: null,
      claimed_until: null,
      last_error: 'HTTP 503',
    });
    // Not due yet: nothing is sent.
    expect(await deliverDue(t.services, { retryDelay })).toEqual({ attempted: 0, delivered: 0, retried: 0, failed: 0 });
    clock.advance(10);
    expect(await deliverDue(t.services, { retryDelay })).toEqual({ attempted: 1, delivered: 0, retried: 1, failed: 0 });
    [row] = (await deliveries()).slice(-1);
    expect(row).toMatchObject({ attempts: 2, next_attempt_at: clock.now() + 20 });
    clock.advance(20);
    expect(await deliverDue(t.services, { retryDelay })).toEqual({ attempted: 1, delivered: 1, retried: 0, failed: 0 });
    [row] = (await deliveries()).slice(-1);
    expect(row).toMatchObject({
      status: 'delivered',
      attempts: 3,
      delivered_at: clock.now(),
      last_error: null,
      claimed_by: null,
    });

    expect(receiver.requests).toHaveLength(3);
    for (const r of receiver.requests) {
      expect(r.verified).toBe(true);
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(r.headers['webhook-id']).toBe(row!.message_id);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.params).toEqual({
        _event: 'pendingclickcreate',
        thing_id: String(thingId),
        thing_owner_id: identity,
        thing_clicks_total: '1',
        tipper_username: '',
        claim_url: `${PUBLIC_URL}/claim/${encodeURIComponent(identity)}`,
      });
      expect(r.body).toBe(new URLSearchParams(r.params).toString());
    }
    expect(receiver.requests.map((r) => Number(r.headers['webhook-timestamp']))).toEqual([
      clock.now() - 30,
      clock.now() - 20,
      clock.now(),
    ]);
    const attempts = await t.db.database.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', row!.id)
      .orderBy('id')
      .execute();
    expect(attempts.map((a) => [a.attempted_at, a.status_code, a.error])).toEqual([
      [clock.now() - 30, 503, 'HTTP 503'],
      [clock.now() - 20, 503, 'HTTP 503'],
      [clock.now(), 200, null],
    ]);
    // A forged signature is rejected by the receiver's library check.
    expect(() =>
      new Webhook(receiver.secret).verify(
        'a=1',
        {
          'webhook-id': 'msg_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        { jsonParse: false },
      ),
    ).toThrow(WebhookVerificationError);
  });

  it('gives up after 3 days of failures with exponential gaps, and redeliver queues it again', async () => {
    await deliverDue(t.services);
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const tipped = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: {
        url: autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner: `partner:${namespace}:9` }),
      },
    });
    expect(tipped.statusCode).toBe(200);
    const [row] = (await deliveries()).slice(-1);
    const created = row!.created_at;
    receiver.status = 500;
    try {
      for (let i = 0; i < 100; i++) {
        const d = (await deliveries()).find((x) => x.id === row!.id)!;
        if (d.status !== 'pending') break;
        clock.set(Math.max(clock.now(), d.next_attempt_at));
        await deliverDue(t.services);
      }
    } finally {
      receiver.status = 200;
    }
    const done = (await deliveries()).find((x) => x.id === row!.id)!;
    expect(done.status).toBe('failed');
    expect(done.last_error).toBe('HTTP 500');
    const times = (
      await t.db.database.db
        .selectFrom('webhook_attempts')
        .select('attempted_at')
        .where('delivery_id', '=', row!.id)
        .orderBy('id')
        .execute()
    ).map((a) => a.attempted_at);
    expect(times).toHaveLength(done.attempts);
    expect(times.at(-1)! - created).toBeLessThanOrEqual(RETRY_WINDOW_SECONDS);
    for (let i = 1; i < times.length; i++) {
      const base = Math.min(6 * 3600, 30 * 2 ** (i - 1));
      const gap = times[i]! - times[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(base / 2);
      expect(gap).toBeLessThanOrEqual(base);
    }
    expect(done.attempts).toBeGreaterThanOrEqual(15);

    // Back to the real time, so the receiver's signature check (5 min tolerance) passes again.
    clock.set(Math.floor(Date.now() / 1000));
    const { redeliver } = await import('../../src/webhooks/partners.ts');
    await redeliver(t.services, row!.id);
    receiver.requests = [];
    expect(await deliverDue(t.services)).toMatchObject({ attempted: 1, delivered: 1 });
    expect(receiver.requests[0]!.headers['webhook-id']).toBe(row!.message_id);
    expect((await deliveries()).find((x) => x.id === row!.id)).toMatchObject({
      status: 'delivered',
      attempts: done.attempts + 1,
    });
  });

  it('lets each due delivery be claimed by one of several concurrent dispatchers', async () => {
    await deliverDue(t.services);
    receiver.processed.clear();
    receiver.duplicates = 0;
    receiver.requests = [];
    const tippers = await Promise.all(Array.from({ length: 12 }, () => buildUser(t.services, { scopes: 'tip' })));
    const url = autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner: `partner:${namespace}:77` });
    for (const tp of tippers) {
      expect(
        (await t.app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(tp.token), payload: { url } }))
          .statusCode,
      ).toBe(200);
    }
    const reports = await Promise.all([1, 2, 3].map((n) => deliverDue(t.services, { worker: `w${n}`, batchSize: 2 })));
    expect(reports.reduce((n, r) => n + r.delivered, 0)).toBe(12);
    expect(receiver.requests).toHaveLength(12);
    expect(receiver.processed.size).toBe(12);
    expect(receiver.duplicates).toBe(0);
    expect([...receiver.processed.values()].map((p) => Number(p.thing_clicks_total)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
  });

  it('times out a receiver that does not answer, and checks the address again at every attempt', async () => {
    await deliverDue(t.services);
    const tp = await buildUser(t.services, { scopes: 'tip' });
    const tipped = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tp.token),
      payload: {
        url: autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner: `partner:${namespace}:slow` }),
      },
    });
    expect(tipped.statusCode).toBe(200);
    const [row] = (await deliveries()).slice(-1);
    receiver.holdMs = 2000;
    try {
      expect(await deliverDue(t.services, { timeoutMs: 300, retryDelay: () => 5 })).toEqual({
        attempted: 1,
        delivered: 0,
        retried: 1,
        failed: 0,
      });
    } finally {
      receiver.holdMs = 0;
    }
    expect((await deliveries()).find((d) => d.id === row!.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: 'timeout: timed out after 300 ms',
    });

    // The operator withdraws the private-address allowance: the next attempt is refused before connecting.
    await t.db.database.db
      .updateTable('partners')
      .set({ allow_private_webhook: 0 })
      .where('id', '=', partnerId)
      .execute();
    const before = receiver.requests.length;
    clock.advance(5);
    try {
      expect(await deliverDue(t.services, { retryDelay: () => 5 })).toEqual({
        attempted: 1,
        delivered: 0,
        retried: 1,
        failed: 0,
      });
    } finally {
      await t.db.database.db
        .updateTable('partners')
        .set({ allow_private_webhook: 1 })
        .where('id', '=', partnerId)
        .execute();
    }
    expect(receiver.requests.length).toBe(before);
    const attempts = await t.db.database.db
      .selectFrom('webhook_attempts')
      .select(['status_code', 'error'])
      .where('delivery_id', '=', row!.id)
      .orderBy('id')
      .execute();
    expect(attempts).toEqual([
      { status_code: null, error: 'timeout: timed out after 300 ms' },
      { status_code: null, error: 'refused: 127.0.0.1 is a loopback address' },
    ]);
    clock.advance(5);
    expect(await deliverDue(t.services)).toMatchObject({ attempted: 1, delivered: 1 });
  });

  it('creates one pending thing when many users tip its auto-submit URL at once, with one delivery per tip', async () => {
    const tippers = await Promise.all(Array.from({ length: 20 }, () => buildUser(t.services, { scopes: 'tip' })));
    const inner = `https://blog.example.com/${uniqueName('race')}`;
    const url = autoSubmit({ url: inner, owner: `partner:${namespace}:race` });
    const results = await Promise.all(
      tippers.map((tp) =>
        t.app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(tp.token), payload: { url } }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(tippers.map(() => 200));
    const things = await t.db.database.db
      .selectFrom('things')
      .select(['id', 'tips', 'owner_identity'])
      .where('url', '=', inner)
      .execute();
    expect(things).toEqual([{ id: things[0]!.id, tips: 20, owner_identity: `partner:${namespace}:race` }]);
    const payloads = (await deliveries())
      .map((d) => JSON.parse(d.payload) as Record<string, string>)
      .filter((p) => p.thing_id === String(things[0]!.id));
    expect(payloads.map((p) => Number(p.thing_clicks_total)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it('sends email: and twitter: identities to every subscribed partner, partner: ones only to their namespace', async () => {
    await deliverDue(t.services);
    const other = await createPartner(t.services, {
      namespace: uniqueName('other'),
      webhookUrl: 'http://127.0.0.1:9/none',
      events: 'pendingclickcreate',
      allowPrivateWebhook: true,
    });
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const count = async (pid: number) =>
      Number(
        (
          await t.db.database.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('partner_id', '=', pid)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = [await count(partnerId), await count(other.partner.id)];
    const tip = (owner: string) =>
      t.app.inject({
        method: 'POST',
        url: `${API}/tip`,
        headers: bearer(tipper.token),
        payload: { url: autoSubmit({ url: `https://blog.example.com/${uniqueName('p')}`, owner }) },
      });
    expect((await tip('email:0123456789ABCDEF0123456789abcdef')).statusCode).toBe(200);
    expect((await tip('twitter:user:id:12345')).statusCode).toBe(200);
    expect((await tip(`partner:${namespace}:5`)).statusCode).toBe(200);
    expect([await count(partnerId), await count(other.partner.id)]).toEqual([before[0]! + 3, before[1]! + 2]);
    await t.db.database.db.deleteFrom('webhook_deliveries').where('partner_id', '=', other.partner.id).execute();
  });

  it('refuses owners that are not identities, and unknown partner namespaces, with 400 validation', async () => {
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    for (const owner of [
      'email:abc',
      'email:0123456789abcdef0123456789abcdeg',
      'twitter:user:id:',
      'twitter:user:12',
      'partner:UPPER:1',
      'partner:ns',
      'facebook:1',
      '',
      `partner:${namespace}:has space`,
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/tip`,
        headers: bearer(tipper.token),
        payload: { url: autoSubmit({ url: 'https://blog.example.com/x', owner }) },
      });
      expect(res.statusCode, owner).toBe(400);
      expect(json(res).error).toBe('validation');
      const lookup = await t.app.inject({
        url: `${API}/things/lookup?url=${encodeURIComponent(autoSubmit({ url: 'https://blog.example.com/x', owner }))}`,
      });
      expect(lookup.statusCode, owner).toBe(400);
    }
    const unknown = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url: autoSubmit({ url: 'https://blog.example.com/x', owner: 'partner:nobody-here:1' }) },
    });
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).error_description).toBe('Invalid owner: no partner has the namespace "nobody-here"');
    const both = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: {
        url: autoSubmit({
          url: 'https://blog.example.com/x',
          owner: 'twitter:user:id:1',
          user_id: tipper.user.username,
        }),
      },
    });
    expect(both.statusCode).toBe(400);
    expect(
      await t.db.database.db
        .selectFrom('things')
        .select('id')
        .where('url', '=', 'https://blog.example.com/x')
        .execute(),
    ).toEqual([]);
  });

  it('looks up a pending thing by its auto-submit URL, and refuses another owner', async () => {
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const url = `https://blog.example.com/${uniqueName('p')}`;
    const identity = `partner:${namespace}:lookup`;
    const lookup = (owner: string) =>
      t.app.inject({ url: `${API}/things/lookup?url=${encodeURIComponent(autoSubmit({ url, owner }))}` });
    expect((await lookup(identity)).statusCode).toBe(404);
    const tipped = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url: autoSubmit({ url, owner: identity }) },
    });
    const id = json(tipped).thing.id as number;
    const found = await lookup(identity);
    expect(found.statusCode).toBe(302);
    expect(json(found)).toEqual({ message: 'found', location: `${PUBLIC_URL}${API}/things/${id}` });
    const other = await lookup('twitter:user:id:1');
    expect(other.statusCode).toBe(400);
    expect(json(other).error).toBe('validation');
    const otherTip = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url: autoSubmit({ url, owner: 'twitter:user:id:1' }) },
    });
    expect(otherTip.statusCode).toBe(400);
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(ENGINES)('webhook deliveries across a crash of the real server on %s', (engine) => {
  const children = new Set<ChildProcess>();
  const receiver = new Receiver();
  let database: { url: string; remove(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    await receiver.start();
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL,
      LOG_LEVEL: 'warn',
      SCHEDULER: 'off',
      DISCOVERY: 'off',
      WEBHOOKS: 'on',
      WEBHOOKS_INTERVAL_SECONDS: '1',
      WEBHOOKS_TIMEOUT_SECONDS: '5',
      WEBHOOKS_CLAIM_SECONDS: '6',
    };
  });
  afterAll(async () => {
    for (const child of children) {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    }
    await receiver.stop();
    await database.remove();
  });

  const startServer = async () => (await startTipjar(env, children)).child;

  it(
    'delivers every queued event exactly once (deduped by webhook-id) after kill -9 mid-delivery and restart',
    { timeout: 120_000 },
    async () => {
      const TIPS = 6;
      const db = await openDatabase(database.url);
      let messageIds: string[];
      try {
        await migrateToLatest(db);
        const s: Services = {
          database: db,
          clock: systemClock,
          siteUrl: PUBLIC_URL,
          passwordHashing: unboundedHashing,
        };
        const namespace = uniqueName('crash');
        const partner = await createPartner(s, {
          namespace,
          webhookUrl: receiver.url,
          events: 'pendingclickcreate',
          allowPrivateWebhook: true,
        });
        receiver.secret = partner.signingSecret;
        for (let i = 0; i < TIPS; i++) {
          const u = await buildUser(s, { scopes: 'tip' });
          await tipUrl(
            s,
            (await resolveToken(s, u.token))!,
            autoSubmit({ url: `https://blog.example.com/crash/${i}`, owner: `partner:${namespace}:${i}` }),
          );
        }
        messageIds = (await db.db.selectFrom('webhook_deliveries').select('message_id').orderBy('id').execute()).map(
          (r) => r.message_id,
        );
        expect(messageIds).toHaveLength(TIPS);
      } finally {
        await db.close();
      }

      // The receiver holds its answers: the first server dies with its deliveries in flight.
      receiver.holdMs = 60_000;
      const first = await startServer();
      await until('the first delivery to arrive', () => receiver.requests.length > 0);
      first.kill('SIGKILL');
      await waitForExit(first);
      expect(receiver.processed.size).toBe(0);
      const check = await openDatabase(database.url);
      try {
        const rows = await check.db.selectFrom('webhook_deliveries').select(['status', 'claimed_by']).execute();
        expect(rows.filter((r) => r.status === 'pending')).toHaveLength(TIPS);
        expect(rows.some((r) => r.claimed_by !== null)).toBe(true);
      } finally {
        await check.close();
      }

      // Restart with a healthy receiver: every delivery arrives; the claims of the dead process expire first.
      receiver.holdMs = 0;
      const second = await startServer();
      await until('all deliveries to be processed', () => receiver.processed.size === TIPS, 60_000);
      const final = await openDatabase(database.url);
      try {
        await until('all deliveries to be marked delivered', async () => {
          const rows = await final.db.selectFrom('webhook_deliveries').select('status').execute();
          return rows.every((r) => r.status === 'delivered');
        });
      } finally {
        await final.close();
      }
      second.kill('SIGTERM');
      await waitForExit(second);
      expect([...receiver.processed.keys()].sort()).toEqual([...messageIds!].sort());
      expect(receiver.requests.every((r) => r.verified)).toBe(true);
      expect(receiver.requests.length).toBeGreaterThanOrEqual(TIPS + 1);
      expect(receiver.duplicates).toBe(0);
    },
  );
});
