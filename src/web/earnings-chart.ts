/**
 * The earnings chart of `/earnings`: an inline SVG bar chart of the cents earned per settled
 * period, drawn on the server (no JavaScript). Accessible: `role="img"` labelled by its `<title>`
 * and `<desc>`, every bar with its own `<title>`, both axes labelled; the page's table holds the
 * same numbers as text.
 */

/** One bar: a period 'YYYY-MM' and the cents earned in it (≥ 0). */
export interface ChartBar {
  period: string;
  cents: number;
}

/** How many periods the chart shows at most (the latest ones). */
export const CHART_PERIODS = 12;

const WIDTH = 480;
const HEIGHT = 260;
const LEFT = 80;
const RIGHT = 12;
const TOP = 16;
const BOTTOM = 56;
const TICKS = 4;

/** Escapes text for XML content and attribute values. */
function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The smallest "round" value (1, 2 or 5 × a power of ten) of cents ≥ `max`, at least 100. */
export function axisMax(max: number): number {
  let step = 100;
  for (;;) {
    for (const m of [1, 2, 5]) if (step * m >= max) return step * m;
    step *= 10;
  }
}

/**
 * The chart's SVG markup for `bars` (oldest first; only the latest CHART_PERIODS are drawn), with
 * amounts formatted by `money` (cents → text, e.g. `€12.50`) and the currency code in the y axis'
 * label. Returns '' when there are no bars.
 */
export function earningsChartSvg(bars: ChartBar[], money: (cents: number) => string, currency: string): string {
  const shown = bars.slice(-CHART_PERIODS);
  if (shown.length === 0) return '';
  const top = axisMax(Math.max(...shown.map((b) => b.cents)));
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / shown.length;
  const barW = Math.min(48, slot * 0.7);
  const y = (cents: number) => TOP + plotH - (cents / top) * plotH;
  const f = (n: number) => n.toFixed(1);
  const first = shown[0]!.period;
  const last = shown[shown.length - 1]!.period;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc">`,
    `<title id="chart-title">Earnings per month</title>`,
    `<desc id="chart-desc">${xml(`Bar chart of what your things earned in each settled month from ${first} to ${last}; the table below lists the same amounts.`)}</desc>`,
  );
  for (let i = 0; i <= TICKS; i++) {
    const v = (top / TICKS) * i;
    const yy = f(y(v));
    out.push(
      `<line class="grid" x1="${LEFT}" y1="${yy}" x2="${WIDTH - RIGHT}" y2="${yy}"/>`,
      `<text class="tick" x="${LEFT - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${xml(money(Math.round(v)))}</text>`,
    );
  }
  shown.forEach((b, i) => {
    const x = LEFT + slot * i + (slot - barW) / 2;
    const h = TOP + plotH - y(b.cents);
    out.push(
      `<rect class="bar" x="${f(x)}" y="${f(y(b.cents))}" width="${f(barW)}" height="${f(h)}"><title>${xml(`${b.period}: ${money(b.cents)}`)}</title></rect>`,
    );
    // With many bars every other month is labelled (each bar keeps its own title), so labels never overlap.
    const labelled = shown.length <= 6 || (shown.length - 1 - i) % 2 === 0;
    if (labelled)
      out.push(
        `<text class="tick" x="${f(LEFT + slot * i + slot / 2)}" y="${TOP + plotH + 18}" text-anchor="middle">${xml(b.period)}</text>`,
      );
  });
  out.push(
    `<line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + plotH}"/>`,
    `<line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${WIDTH - RIGHT}" y2="${TOP + plotH}"/>`,
    `<text class="label" x="${LEFT + plotW / 2}" y="${HEIGHT - 8}" text-anchor="middle">Month</text>`,
    `<text class="label" x="14" y="${TOP + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${TOP + plotH / 2})">${xml(`Earned (${currency})`)}</text>`,
    `</svg>`,
  );
  return out.join('\n');
}
