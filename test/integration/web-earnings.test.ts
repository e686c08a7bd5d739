/**
 * The earnings page: an owner sees, per settled period, the tips paid for and the
 * cents credited — computed here by hand from the settlement rule (DECISIONS.md "Money").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { resolveToken } from '../../src/auth/tokens.ts';
import { settlePeriod } from '../../src/domain/money/settlement.ts';

const MARCH_15 = Date.UTC(2026, 2, 15) / 1000;
const APRIL_2 = Date.UTC(2026, 3, 2) / 1000;

describe.each(ENGINES)('earnings page on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(MARCH_15);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  it('without a session → the log-in page, then back', async () => {
    const res = await new WebClient(t.app).get('/earnings');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login?return_to=%2Fearnings');
  });

  it('shows nothing before a settlement, then the settled month with its tips and cents', async () => {
    const owner = await buildWebUser(t.services);
    const ownerToken = await tokenWith(t.services, owner.username, 'thing');
    const thingId = await buildThing(t.services, { user: owner, token: ownerToken }, { title: 'Owned' });
    const other = await buildUser(t.services);
    const otherThing = await buildThing(t.services, other, { title: 'Elsewhere' });

    // Three funded tippers (budget 500 cents each); the first also tips another owner's thing.
    const tippers = await Promise.all([buildUser(t.services), buildUser(t.services), buildUser(t.services)]);
    for (const tipper of tippers) await tipThing(t.services, (await resolveToken(t.services, tipper.token))!, thingId);
    await tipThing(t.services, (await resolveToken(t.services, tippers[0]!.token))!, otherThing);

    const c = new WebClient(t.app);
    await c.login(owner.username);
    expect(html(await c.get('/earnings'))).toContain('Nothing yet');

    clock.set(APRIL_2);
    await settlePeriod(t.services, { period: '2026-03' });
    await c.login(owner.username); // sessions last 14 days; the clock moved on 18
    const body = html(await c.get('/earnings'));
    // 500 + 500 from the two single-tip tippers, 250 of the third's 500 split over two tips.
    expect(body).toContain('<tr><td>2026-03</td><td>3</td><td>€12.50</td></tr>');
    expect(body).toContain('<tfoot><tr><th scope="row" colspan="2">Total</th><td>€12.50</td></tr></tfoot>');
    expect(body).toContain('<a href="/earnings">Earnings</a>');
  });
});
