/**
 * The bench's catalogues at a scale: `197k` is shared/data/npm-packages.tsv as it is; `1m` is a
 * catalogue of 1,000,000 packages derived from it, deterministically (the same file on every
 * machine and run), written once next to the bench databases and reused.
 *
 * The derived file holds every real package first (so the 197k catalogue is a part of the 1M one
 * and a search asks the same things of both), then synthetic packages made of real parts, so their
 * words, tags and popularity are distributed as the real ones are:
 * - the name: a real package's name (scope included when it has one) with one of its words
 *   replaced by a word of another real name (`react-tooltip` + `vue-table` → `react-table`),
 *   numbered when that name is taken (`react-table-2`); so the words of names — and the tags the
 *   importer derives from them (`npm`, the scope, the name's words) — keep their real frequencies;
 * - the summary: the summary of a third real package (real prose, real word frequencies);
 * - version and monthly downloads: those of that third package (the real, heavy-tailed popularity
 *   distribution: median ≈ 5k, top 1 % ≥ 50M a month).
 * The pseudo-random choices come from a fixed-seed generator (SplitMix32), by row number.
 */
import { createReadStream, createWriteStream, existsSync, readFileSync, renameSync } from 'node:fs';
import { once } from 'node:events';

/** The catalogue scales the bench knows, by their BENCH_SCALE name, in things. */
export const SCALES = { '197k': 0, '1m': 1_000_000 } as const;
export type Scale = keyof typeof SCALES;

/** Parses BENCH_SCALE ('197k' default, '1m'). @throws Error for any other value */
export function parseScale(raw: string | undefined): Scale {
  const v = (raw ?? '').trim().toLowerCase() || '197k';
  if (v in SCALES) return v as Scale;
  throw new Error(`BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}, got "${raw}"`);
}

/** SplitMix32: a small, fast, fixed-seed generator; returns floats in [0, 1). */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 2 ** 32;
  };
}

interface Row {
  name: string;
  version: string;
  downloads: string;
  summary: string;
}

function readRows(source: string): Row[] {
  const rows: Row[] = [];
  const lines = readFileSync(source, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if ((i === 0 && line.startsWith('name\t')) || line.trim() === '') continue;
    const [name = '', version = '', downloads = '', ...summary] = line.split('\t');
    rows.push({ name, version, downloads, summary: summary.join(' ') });
  }
  return rows;
}

/** A real name split into its scope (with `@…/`, or '') and the words and separators of the rest. */
function splitName(name: string): { scope: string; parts: string[] } {
  const m = /^(@[^/]+\/)(.+)$/.exec(name);
  const bare = m ? m[2]! : name;
  return { scope: m ? m[1]! : '', parts: bare.split(/([-_.]+)/) };
}

/**
 * Writes the derived catalogue of `count` packages to `target` (TSV with the source's header),
 * unless it is there already; written to a temporary file first, so a run stopped midway leaves
 * no partial catalogue behind.
 * @returns the path of the catalogue to import
 */
export async function deriveCatalogue(
  source: string,
  target: string,
  count: number,
  log: (msg: string) => void,
): Promise<string> {
  if (existsSync(target)) return target;
  const started = Date.now();
  const rows = readRows(source);
  const taken = new Set(rows.map((r) => r.name.toLowerCase()));
  const words = rows.map((r) => splitName(r.name).parts.filter((p, i) => i % 2 === 0 && /^[a-z0-9]{2,}$/i.test(p)));
  const tmp = `${target}.partial`;
  const out = createWriteStream(tmp);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('name\tversion\tdownloads_a_month\tsummary\n');
  for (const r of rows) await write(`${r.name}\t${r.version}\t${r.downloads}\t${r.summary}\n`);
  for (let i = rows.length; i < count; i++) {
    const random = splitmix32(i * 2654435761);
    const pick = () => Math.floor(random() * rows.length);
    const base = rows[pick()]!;
    let donorWords = words[pick()]!;
    while (donorWords.length === 0) donorWords = words[pick()]!;
    const prose = rows[pick()]!;
    const { scope, parts } = splitName(base.name);
    const slots = parts.map((_, j) => j).filter((j) => j % 2 === 0 && /^[a-z0-9]{2,}$/i.test(parts[j]!));
    const word = donorWords[Math.floor(random() * donorWords.length)]!.toLowerCase();
    if (slots.length > 0 && (slots.length > 1 || random() < 0.5))
      parts[slots[Math.floor(random() * slots.length)]!] = word;
    else parts.push('-', word);
    let name = scope + parts.join('');
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${scope}${parts.join('')}-${n}`;
    taken.add(name.toLowerCase());
    await write(`${name}\t${prose.version}\t${prose.downloads}\t${prose.summary}\n`);
    if ((i + 1) % 200_000 === 0) log(`  catalogue: ${i + 1} of ${count} packages written`);
  }
  out.end();
  await once(out, 'finish');
  renameSync(tmp, target);
  log(
    `catalogue: ${count} packages derived from ${rows.length} in ${((Date.now() - started) / 1000).toFixed(1)} s → ${target}`,
  );
  return target;
}

/** Counts a TSV file's data rows the way the importer reads them (header and blank lines left out). */
export async function countCatalogueRows(path: string): Promise<number> {
  let rows = 0;
  let first = true;
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (first && line.startsWith('name\t')) {
        first = false;
        continue;
      }
      first = false;
      if (line.trim() !== '') rows++;
    }
  }
  if (rest.trim() !== '') rows++;
  return rows;
}
