/**
 * How good conll03's distant labels are on the first N training sentences (the user-scale
 * settings' labeled data), scored against the gold labels: span P/R/F1 per type, and each type's
 * wrong spans by kind (the right span with another type; overlapping a gold span, and by the type
 * of the gold span it lies inside; no gold span near), and how many spans there are. Diagnosis
 * only: no setting reads train gold for a choice.
 * `npx tsx bench/distant-label-quality.ts [N=3000] [DATA]`.
 */
import { readFileSync } from 'node:fs';
import { dataFolder } from '../src/cli/dataFolder';
import { scoreSpans } from '../src/core/metrics';
import { tagsToSpans } from '../src/core/tagScheme';

const n = Number(process.argv[2] ?? 3000);
const D = `${dataFolder(process.argv[3])}/conll03-distant/`;
const read = (f: string) =>
  readFileSync(D + f, 'utf8')
    .split('\n')
    .slice(0, n)
    .map((l) => l.trim().split(/\s+/));
const distant = read('train_label_dist.txt').map((t) => tagsToSpans(t));
const gold = read('train_label_true.txt').map((t) => tagsToSpans(t));
const s = scoreSpans(gold, distant);
const kinds: Record<string, { otherType: number; overlap: number; none: number; inside: Record<string, number> }> = {};
distant.forEach((ds, k) => {
  for (const d of ds) {
    if (gold[k].some((g) => g.start === d.start && g.end === d.end && g.label === d.label)) continue;
    const c = (kinds[d.label] ??= { otherType: 0, overlap: 0, none: 0, inside: {} });
    if (gold[k].some((g) => g.start === d.start && g.end === d.end)) c.otherType++;
    else if (gold[k].some((g) => g.start < d.end && d.start < g.end)) {
      c.overlap++;
      // Part of a longer gold span ("Benjamin" of "Benjamin Netanyahu"): by the gold span's type.
      const around = gold[k].find((g) => g.start <= d.start && d.end <= g.end);
      if (around) c.inside[around.label] = (c.inside[around.label] ?? 0) + 1;
    } else c.none++;
  }
});
const pct = (x: number) => (100 * x).toFixed(1);
const spans = distant.reduce((a, ds) => a + ds.length, 0);
console.log(
  `distant labels on the first ${n} conll03 training sentences: ${spans} spans; P ${pct(s.overall.precision)} R ${pct(s.overall.recall)} F1 ${pct(s.overall.f1)}`,
);
for (const [type, x] of Object.entries(s.perType).sort()) {
  const c = kinds[type] ?? { otherType: 0, overlap: 0, none: 0, inside: {} };
  const inside = Object.entries(c.inside)
    .sort()
    .map(([t, m]) => `${m} ${t}`)
    .join(', ');
  console.log(
    `${type}: P ${pct(x.precision)} R ${pct(x.recall)} F1 ${pct(x.f1)}; wrong spans: ${c.otherType} another type, ${c.overlap} overlapping a gold span (inside one: ${inside || 'none'}), ${c.none} no gold span`,
  );
}
