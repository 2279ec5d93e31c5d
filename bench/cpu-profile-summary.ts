/**
 * A V8 CPU profile (`node --cpu-prof`, as the GPU kit's run.sh takes with CPUPROF=1) summed by
 * function: self time and inclusive time (a function counted once a sample, however deep it
 * recurs), largest first. For where the host's time goes while the GPU trains.
 *
 *   npx tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--top 30] [--json OUT.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, json: { type: 'string' } } });
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** A function's name with its file's last part (the kit's bundle is one file; Node's own are many). */
function name(n: ProfileNode): string {
  const f = n.callFrame;
  const file = f.url ? f.url.split('/').pop() : '';
  return `${f.functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
}

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, k) => {
  const us = profile.timeDeltas[k] ?? 0;
  total += us;
  const node = byId.get(id)!;
  self.set(name(node), (self.get(name(node)) ?? 0) + us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const nm = name(byId.get(cur)!);
    if (seen.has(nm)) continue;
    seen.add(nm);
    inclusive.set(nm, (inclusive.get(nm) ?? 0) + us);
  }
});

const top = Number(values.top);
const rows = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), share: +(us / total).toFixed(3) }));
const summary = { totalMs: Math.round(total / 1000), self: rows(self), inclusive: rows(inclusive) };
console.log(`total ${summary.totalMs} ms sampled`);
for (const [title, list] of [
  ['self', summary.self],
  ['inclusive', summary.inclusive],
] as const) {
  console.log(`\n${title}:`);
  for (const r of list) console.log(`${(100 * r.share).toFixed(1).padStart(5)}%  ${String(r.ms).padStart(7)} ms  ${r.fn}`);
}
if (values.json) writeFileSync(values.json, `${JSON.stringify(summary, null, 1)}\n`);
