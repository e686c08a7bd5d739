/**
 * The earnings page beyond the settled months: this month's estimate (checked against the
 * settlement of the same month), the SVG chart (well-formed, accessible) and the supporters
 * (tippers who hide their tips left out).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, type TestUser } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { resolveToken } from '../../src/auth/tokens.ts';
import { settlePeriod } from '../../src/domain/money/settlement.ts';
import { getEarningsByPeriod, setMonthlyBudget } from '../../src/domain/money/account.ts';
import { estimatePeriodEarnings } from '../../src/domain/money/earnings.ts';
import { parseProfile, updateProfile } from '../../src/domain/users.ts';
import { axisMax, earningsChartSvg } from '../../src/web/earnings-chart.ts';

const MARCH_15 = Date.UTC(2026, 2, 15) / 1000;
const APRIL_2 = Date.UTC(2026, 3, 2) / 1000;
const APRIL_20 = Date.UTC(2026, 3, 20) / 1000;
const MAY_2 = Date.UTC(2026, 4, 2) / 1000;

/** The page's inline chart, `<svg …>…</svg>`. */
function svgOf(body: string): string {
  const m = /<svg[^>]*class="chart"[\s\S]*?<\/svg>/.exec(body);
  expect(m, 'an inline SVG chart').not.toBeNull();
  return m![0];
}

describe.each(ENGINES)('earnings: estimate, chart and supporters on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(MARCH_15);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const tip = async (u: TestUser, thingId: number) =>
    tipThing(t.services, (await resolveToken(t.services, u.token))!, thingId);

  it("this month's estimate is what settling the month credits; then the chart and the supporters", async () => {
    clock.set(MARCH_15);
    const owner = await buildWebUser(t.services);
    const ownerToken = await tokenWith(t.services, owner.username, 'thing');
    const a = await buildThing(t.services, { user: owner, token: ownerToken }, { title: 'A' });
    const b = await buildThing(t.services, { user: owner, token: ownerToken }, { title: 'B' });
    const other = await buildUser(t.services);
    const x = await buildThing(t.services, other, { title: 'X' });

    // budget 500 each unless set: one tip → 500; three tips (A, B, X) → 167 + 167 (+166 to X);
    // budget 333 over X then A → (167 to X) + 166; a tipper who hides their tips: B → 500.
    const [single, triple, odd, shy] = await Promise.all([
      buildUser(t.services),
      buildUser(t.services),
      buildUser(t.services),
      buildUser(t.services),
    ]);
    await tip(single, a);
    await tip(triple, a);
    await tip(triple, b);
    await tip(triple, x);
    await setMonthlyBudget(t.services, odd.user.id, 333);
    await tip(odd, x);
    await tip(odd, a);
    await updateProfile(t.services, shy.user.id, parseProfile({ hideTips: 'true' }));
    await tip(shy, b);

    const estimate = await estimatePeriodEarnings(t.services, owner.id);
    expect(estimate).toEqual({ period: '2026-03', cents: 500 + 334 + 166 + 500, tips: 5, tippers: 4 });

    const c = new WebClient(t.app);
    await c.login(owner.username);
    const march = html(await c.get('/earnings'));
    expect(march).toContain('Estimate: <strong>€15.00</strong> from 5 tips by 4 tippers.');
    expect(march).not.toContain('class="chart"');
    expect(march).toContain('<a href="/things/new">Add a thing</a>');
    const month = /<ul class="plain" id="supporters-month">([\s\S]*?)<\/ul>/.exec(march)![1]!;
    expect(month).toContain(`>${triple.user.username}</a> <span class="muted">· 2 tips</span>`);
    expect(month).toContain(`>${single.user.username}</a> <span class="muted">· 1 tip</span>`);
    expect(month).toContain(`>${odd.user.username}</a>`);
    expect(month.indexOf(triple.user.username)).toBeLessThan(month.indexOf(single.user.username));
    expect(march).not.toContain(shy.user.username);
    expect(march).not.toContain(other.user.username);

    // settled with a fixed clock, the month credits exactly the estimate
    clock.set(APRIL_2);
    await settlePeriod(t.services, { period: '2026-03' });
    expect(await getEarningsByPeriod(t.services, owner.id)).toEqual([
      { period: '2026-03', cents: estimate.cents, tips: estimate.tips },
    ]);

    // April: one more tip; March's supporters stay in "all time" only
    clock.set(APRIL_20);
    await tip(single, b);
    clock.set(MAY_2);
    await settlePeriod(t.services, { period: '2026-04' });
    await c.login(owner.username);
    const may = html(await c.get('/earnings'));
    expect(may).toContain('No tips on your things this month yet.');
    expect(may).toContain('<tr><td>2026-03</td><td>5</td><td>€15.00</td></tr>');
    expect(may).toContain('<tr><td>2026-04</td><td>1</td><td>€5.00</td></tr>');
    expect(may).not.toContain('id="supporters-month"');
    const all = /<ul class="plain" id="supporters-all">([\s\S]*?)<\/ul>/.exec(may)![1]!;
    expect(all).toContain(`>${single.user.username}</a> <span class="muted">· 2 tips</span>`);
    expect(all).not.toContain(shy.user.username);

    const svg = svgOf(may);
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(svg);
    expect(doc.svg['@role']).toBe('img');
    expect(doc.svg['@aria-labelledby']).toBe('chart-title chart-desc');
    expect(doc.svg.title).toMatchObject({ '#text': 'Earnings per month', '@id': 'chart-title' });
    expect(doc.svg.desc['#text']).toContain('from 2026-03 to 2026-04');
    const bars = [doc.svg.rect].flat();
    expect(bars.map((r: { title: string }) => r.title)).toEqual(['2026-03: €15.00', '2026-04: €5.00']);
    // €15.00 is the tallest bar, under an axis topped at €20.00: three quarters of the plot
    const heights = bars.map((r: Record<string, string>) => Number(r['@height']));
    expect(heights[0]! / heights[1]!).toBeCloseTo(3, 1);
    const texts = [doc.svg.text]
      .flat()
      .map((x: unknown) => (typeof x === 'string' ? x : (x as { '#text': string })['#text']));
    expect(texts).toEqual(expect.arrayContaining(['Month', 'Earned (EUR)', '€0.00', '€20.00', '2026-03', '2026-04']));
  });

  it('another owner sees none of it; without a session → the log-in page', async () => {
    const stranger = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(stranger.username);
    const body = html(await c.get('/earnings'));
    expect(body).toContain('No tips on your things this month yet.');
    expect(body).toContain('Nothing yet');
    expect(body.match(/None listed yet\./g)).toHaveLength(2);
    const res = await new WebClient(t.app).get('/earnings');
    expect(res.statusCode).toBe(302);
  });
});

describe('the earnings chart', () => {
  it('escapes its texts, keeps the latest twelve months and rounds the axis up', () => {
    expect(axisMax(0)).toBe(100);
    expect(axisMax(1500)).toBe(2000);
    expect(axisMax(2001)).toBe(5000);
    expect(axisMax(5001)).toBe(10000);
    expect(earningsChartSvg([], (c) => String(c), 'EUR')).toBe('');
    const bars = Array.from({ length: 14 }, (_, i) => ({
      period: `2025-${String((i % 12) + 1).padStart(2, '0')}`,
      cents: i * 10,
    }));
    const svg = earningsChartSvg(bars, (c) => `<${c}&>`, 'E"R');
    expect(XMLValidator.validate(svg)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(svg);
    expect(doc.svg.rect).toHaveLength(12);
    expect(svg).toContain('&#60;130&#38;&#62;');
    // the latest month is labelled, then every other one
    expect(svg).toContain('>2025-02</text>');
    expect(svg).not.toContain('>2025-03</text>');
    expect(svg).toContain('Earned (E&#34;R)');
  });
});
