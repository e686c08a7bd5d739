/**
 * Money in on the website: `/funds` credits through the demo payment provider once per form
 * (idempotency key), refuses bad amounts, keys and missing CSRF tokens, needs a log-in, and is
 * off with PAYMENT_PROVIDER=none; amounts show in CURRENCY; the budget is typed in currency units;
 * every money page says the demo money is simulated; "no means" links to `/funds`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { checkLedger } from '../../src/domain/money/ledger.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser } from '../helpers/factories.ts';
import { buildWebUser, csrfOf, html, WebClient } from '../helpers/web.ts';

const DEMO_NOTICE = 'money added here is simulated';

/** The idempotency key of the funds form on a page. */
function keyOf(body: string): string {
  const m = /name="key" value="([^"]+)"/.exec(body);
  if (!m) throw new Error(`no key field on the page:\n${body.slice(0, 500)}`);
  return m[1]!;
}

describe.each(ENGINES)('adding money on the website on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const balance = async (id: number) =>
    (await db().selectFrom('users').select('balance_cents').where('id', '=', id).executeTakeFirstOrThrow())
      .balance_cents;
  const budgetOf = async (id: number) =>
    (await db().selectFrom('users').select('budget_cents').where('id', '=', id).executeTakeFirstOrThrow()).budget_cents;
  const demoCredits = async (id: number) =>
    db()
      .selectFrom('ledger_transactions')
      .select(['reference', 'kind', 'description'])
      .where('reference', 'like', `demo:${id}:%`)
      .execute();

  async function loggedIn(opts: { funded?: boolean } = {}) {
    const user = await buildWebUser(t.services, opts);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  it('GET and POST /funds without a session → the log-in page, then back; nothing credited', async () => {
    const visitor = new WebClient(t.app);
    const page = await visitor.get('/funds');
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('/login?return_to=%2Ffunds');
    const before = await db().selectFrom('ledger_transactions').select('id').execute();
    const res = await visitor.post('/funds', {
      _csrf: await visitor.csrf('/login'),
      amount: '10.00',
      key: 'k'.repeat(24),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/login?return_to=%2Ffunds');
    expect(await db().selectFrom('ledger_transactions').select('id').execute()).toEqual(before);
  });

  it('shows the balance, the budget, the form with a fresh key per rendering, and says the money is simulated', async () => {
    const { c } = await loggedIn({ funded: false });
    const body = html(await c.get('/funds'));
    expect(body).toContain('<h1>Add money</h1>');
    expect(body).toContain(DEMO_NOTICE);
    expect(body).toContain('<dt>Balance</dt><dd>€0.00</dd>');
    expect(body).toContain('<label for="amount">Amount in EUR</label>');
    expect(body).toContain('<form method="post" action="/funds">');
    expect(body).toContain('href="/settings#money"');
    expect(body).not.toContain('<script');
    expect(keyOf(body)).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(keyOf(html(await c.get('/funds')))).not.toBe(keyOf(body));
  });

  it('credits once per form: sending the same form again adds nothing; a new form adds again; the ledger balances', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const page = html(await c.get('/funds'));
    const fields = { _csrf: csrfOf(page), key: keyOf(page), amount: '10.50' };
    const first = await c.post('/funds', fields);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/funds');
    expect(await balance(user.id)).toBe(1050);
    const again = await c.post('/funds', fields);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/funds');
    expect(await balance(user.id)).toBe(1050);
    const credits = await demoCredits(user.id);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ kind: 'funding', description: `demo (simulated) funding of ${user.username}` });

    const done = html(await c.get('/funds'));
    expect(done).toContain('The money was added to your balance.');
    expect(done).toContain('<dt>Balance</dt><dd>€10.50</dd>');
    const second = await c.post('/funds', { _csrf: csrfOf(done), key: keyOf(done), amount: '7' });
    expect(second.statusCode).toBe(303);
    expect(await balance(user.id)).toBe(1750);
    expect(await demoCredits(user.id)).toHaveLength(2);
    expect(await checkLedger(t.services)).toEqual([]);
  });

  it('the same form sent twice at once credits once', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const page = html(await c.get('/funds'));
    const fields = { _csrf: csrfOf(page), key: keyOf(page), amount: '3.00' };
    const answers = await Promise.all([c.post('/funds', fields), c.post('/funds', fields), c.post('/funds', fields)]);
    expect(answers.map((r) => r.statusCode)).toEqual([303, 303, 303]);
    expect(await balance(user.id)).toBe(300);
    expect(await demoCredits(user.id)).toHaveLength(1);
    expect(await checkLedger(t.services)).toEqual([]);
  });

  it("one user's key does not block another user's credit", async () => {
    const a = await loggedIn({ funded: false });
    const b = await loggedIn({ funded: false });
    const page = html(await a.c.get('/funds'));
    const key = keyOf(page);
    expect((await a.c.post('/funds', { _csrf: csrfOf(page), key, amount: '1.00' })).statusCode).toBe(303);
    expect((await b.c.post('/funds', { _csrf: await b.c.csrf('/funds'), key, amount: '2.00' })).statusCode).toBe(303);
    expect([await balance(a.user.id), await balance(b.user.id)]).toEqual([100, 200]);
  });

  it.each(['', 'abc', '0', '0.00', '-1', '10.001', '10,00', '1,000.00', '1000.01', '5000', '1e3', '+5', '.5', '１０'])(
    'refuses the amount %j with 400 and the reason, crediting nothing, and keeps the form',
    async (amount) => {
      const { user, c } = await loggedIn({ funded: false });
      const page = html(await c.get('/funds'));
      const key = keyOf(page);
      const res = await c.post('/funds', { _csrf: csrfOf(page), key, amount });
      const body = html(res, 400);
      expect(body).toContain('The amount must be a number from 0.01 to 1000.00');
      expect(keyOf(body)).toBe(key);
      expect(await balance(user.id)).toBe(0);
      expect(await demoCredits(user.id)).toHaveLength(0);
    },
  );

  it('accepts the largest amount, 1000.00', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const page = html(await c.get('/funds'));
    expect((await c.post('/funds', { _csrf: csrfOf(page), key: keyOf(page), amount: ' 1000.00 ' })).statusCode).toBe(
      303,
    );
    expect(await balance(user.id)).toBe(100_000);
  });

  it.each([undefined, '', 'short', 'x'.repeat(65), 'has spaces in it!!!!'])(
    'refuses a missing or malformed key %j with 400, crediting nothing',
    async (key) => {
      const { user, c } = await loggedIn({ funded: false });
      const fields: Record<string, string> = { _csrf: await c.csrf('/funds'), amount: '10.00' };
      if (key !== undefined) fields.key = key;
      const body = html(await c.post('/funds', fields), 400);
      expect(body).toContain('reload the page and try again');
      expect(await balance(user.id)).toBe(0);
    },
  );

  it('refuses a form without a valid CSRF token with 403, crediting nothing', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const page = html(await c.get('/funds'));
    const res = await c.post('/funds', { key: keyOf(page), amount: '10.00' });
    expect(html(res, 403)).toContain('<h1>This form has expired</h1>');
    const wrong = await c.post('/funds', { _csrf: 'x'.repeat(43), key: keyOf(page), amount: '10.00' });
    expect(wrong.statusCode).toBe(403);
    expect(await balance(user.id)).toBe(0);
  });

  it('settings: demo notice, balance and budget in euros, a link to /funds, what this month’s tips cost; budget typed in units', async () => {
    const { user, c } = await loggedIn();
    let body = html(await c.get('/settings'));
    expect(body).toContain('balances are simulated');
    expect(body).toContain('<a class="button" href="/funds">Add money</a>');
    expect(body).toContain('<label for="budget">Monthly budget in EUR</label>');
    expect(body).toContain('name="budget" value="5.00"');
    expect(body).toContain("your first tip fixes this month's budget at €5.00");

    const owner = await buildUser(t.services);
    const [a, b] = [await buildThing(t.services, owner), await buildThing(t.services, owner)];
    expect((await c.submit(`/thing/${a}`, `/thing/${a}/tip`)).statusCode).toBe(303);
    expect((await c.submit(`/thing/${b}`, `/thing/${b}/tip`)).statusCode).toBe(303);
    body = html(await c.get('/settings'));
    expect(body).toContain("<dt>This month's tips cost</dt><dd>€5.00 in all, shared evenly among your 2 tips");

    const res = await c.submit('/settings', '/settings/budget', { budget: '7.5' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/settings');
    const row = await db()
      .selectFrom('users')
      .select('budget_cents')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.budget_cents).toBe(750);
    expect(html(await c.get('/settings'))).toContain('<dt>Monthly budget</dt><dd>€7.50</dd>');
  });

  it.each(['7.555', '-1', 'abc', '', '10000.01', '7,50'])(
    'refuses the budget %j in units with 400, changing nothing',
    async (budget) => {
      const { user, c } = await loggedIn();
      const res = await c.submit('/settings', '/settings/budget', { budget });
      expect(html(res, 400)).toContain('The monthly budget must be a number from 0 to 10000.00');
      const row = await db()
        .selectFrom('users')
        .select('budget_cents')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.budget_cents).toBe(500);
    },
  );

  it('the earnings page says the money is simulated', async () => {
    const { c } = await loggedIn();
    expect(html(await c.get('/earnings'))).toContain('balances and earnings are simulated');
  });

  it('a tip refused for lack of means links to /funds and to the budget in Settings', async () => {
    const { c } = await loggedIn({ funded: false });
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const body = html(await c.submit(`/thing/${id}`, `/thing/${id}/tip`), 401);
    expect(body).toContain('You have no means to tip yet');
    expect(body).toContain(`<a href="/funds?return_to=%2Fthing%2F${id}">Add money</a>`);
    expect(body).toContain('<a href="/settings#money">Monthly budget in Settings</a>');
  });

  it('money and a budget in one form, then back to the thing that was refused: the tip goes through', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const page = html(await c.get(`/funds?return_to=${encodeURIComponent(`/thing/${id}`)}`));
    expect(page).toContain(`<input type="hidden" name="return_to" value="/thing/${id}">`);
    expect(page).toContain('<label for="budget">Monthly budget in EUR</label>');
    const res = await c.post('/funds', {
      _csrf: csrfOf(page),
      key: keyOf(page),
      amount: '10.00',
      budget: '4.50',
      return_to: `/thing/${id}`,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/thing/${id}`);
    expect(await balance(user.id)).toBe(1000);
    expect(await budgetOf(user.id)).toBe(450);
    const back = html(await c.get(`/thing/${id}`));
    expect(back).toContain('The money was added to your balance and your monthly budget was saved.');
    const tip = await c.submit(`/thing/${id}`, `/thing/${id}/tip`);
    expect(tip.statusCode).toBe(303);
    expect(html(await c.get(`/thing/${id}`))).toContain('Thank you — you tipped this thing.');
    // the budget field now shows the budget; an empty one keeps it
    const again = html(await c.get('/funds'));
    expect(again).toContain('<label for="budget">Monthly budget in EUR (now €4.50)</label>');
    expect(again).toContain('name="budget" value="4.50"');
    await c.post('/funds', { _csrf: csrfOf(again), key: keyOf(again), amount: '1.00', budget: '' });
    expect(await budgetOf(user.id)).toBe(450);
    expect(await balance(user.id)).toBe(1100);
  });

  it('a bad budget adds no money; another site as return_to goes back to /funds', async () => {
    const { user, c } = await loggedIn({ funded: false });
    const page = html(await c.get('/funds'));
    const refused = html(
      await c.post('/funds', { _csrf: csrfOf(page), key: keyOf(page), amount: '10.00', budget: '5.001' }),
      400,
    );
    expect(refused).toContain('The monthly budget must be a number from 0 to');
    expect(refused).toContain('name="budget" value="5.001"');
    expect(await balance(user.id)).toBe(0);
    expect(await budgetOf(user.id)).toBe(0);
    const fields = { _csrf: csrfOf(refused), key: keyOf(refused), amount: '2.00', return_to: 'https://evil.example/' };
    expect((await c.post('/funds', fields)).headers.location).toBe('/funds');
    expect(html(await c.get('/funds?return_to=//evil.example/'))).toContain(
      '<input type="hidden" name="return_to" value="/funds">',
    );
  });
});

describe.each(ENGINES)('PAYMENT_PROVIDER=none and CURRENCY=USD on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine, { env: { PAYMENT_PROVIDER: 'none', CURRENCY: 'usd' } });
  });
  afterAll(async () => t.close());

  async function loggedIn(opts: { funded?: boolean } = {}) {
    const user = await buildWebUser(t.services, opts);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  it('/funds says the operator adds money and has no form; POST → 403, nothing credited', async () => {
    const { user, c } = await loggedIn();
    const body = html(await c.get('/funds'));
    expect(body).toContain('money is added to balances by its operator');
    expect(body).not.toContain('action="/funds"');
    expect(body).not.toContain('simulated');
    expect(body).toContain('<dt>Balance</dt><dd>$10.00</dd>');
    const res = await c.post('/funds', { _csrf: csrfOf(body), key: 'k'.repeat(24), amount: '10.00' });
    expect(html(res, 403)).toContain('Adding money is turned off');
    const row = await t.db.database.db
      .selectFrom('users')
      .select('balance_cents')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.balance_cents).toBe(1000);
  });

  it('settings and earnings show dollars, no demo notice and no /funds link', async () => {
    const { c } = await loggedIn();
    const settings = html(await c.get('/settings'));
    expect(settings).toContain('<dt>Balance</dt><dd>$10.00</dd>');
    expect(settings).toContain('<label for="budget">Monthly budget in USD</label>');
    expect(settings).toContain('Money is added to balances by the operator of this site.');
    expect(settings).not.toContain('href="/funds"');
    expect(settings).not.toContain('simulated');
    expect(html(await c.get('/earnings'))).not.toContain('simulated');
  });

  it('a tip refused for lack of means links to Settings only', async () => {
    const { c } = await loggedIn({ funded: false });
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const body = html(await c.submit(`/thing/${id}`, `/thing/${id}/tip`), 401);
    expect(body).toContain('<a href="/settings#money">Monthly budget in Settings</a>');
    expect(body).not.toContain('href="/funds"');
  });
});

describe('CURRENCY and PAYMENT_PROVIDER settings', () => {
  it('default to EUR and demo; refuse an unknown currency or provider by name', () => {
    const config = loadConfig({});
    expect([config.currency, config.paymentProvider]).toEqual(['EUR', 'demo']);
    expect(loadConfig({ CURRENCY: 'gbp' }).currency).toBe('GBP');
    expect(() => loadConfig({ CURRENCY: 'XYZ' })).toThrow(/CURRENCY: expected an ISO 4217 code/);
    expect(() => loadConfig({ CURRENCY: 'EURO' })).toThrow(/CURRENCY:/);
    expect(() => loadConfig({ PAYMENT_PROVIDER: 'stripe' })).toThrow(
      /PAYMENT_PROVIDER: one of demo, none \(got "stripe"\)/,
    );
  });
});
