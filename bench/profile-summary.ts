/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `BENCH_CPU_PROF=1 npm run bench`):
 * self time by area (each npm package, each src/ file, node internals, GC, idle) and the top
 * functions by self time, and inclusive time of the project's own (src/) functions.
 *   node --import tsx bench/profile-summary.ts bench/results/prof/<file>.cpuprofile [top=25]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

// Self time per node from the samples and their time deltas (µs).
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function area(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const src = /\/(src\/.*|bin\/.*|bench\/.*)$/.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return url;
}

const areas = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  const a = area(n.callFrame.url, n.callFrame.functionName);
  areas.set(a, (areas.get(a) ?? 0) + us);
  const f = `${n.callFrame.functionName || '(anonymous)'}  ${a}:${n.callFrame.lineNumber + 1}`;
  fns.set(f, (fns.get(f) ?? 0) + us);
}
// Inclusive time of src/ functions: each sample counts once per distinct src frame on its stack.
const incl = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    if (!a.startsWith('src/')) continue;
    const f = `${n.callFrame.functionName || '(anonymous)'}  ${a}:${n.callFrame.lineNumber + 1}`;
    if (seen.has(f)) continue;
    seen.add(f);
    incl.set(f, (incl.get(f) ?? 0) + us);
  }
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('self time by area', areas);
print('self time by function', fns);
print('inclusive time of src/ functions', incl);
