/**
 * The demo's dev and test splits side by side, as the Weak labels page labels them (the HMM fitted
 * on every document): each label model's span F1, the weak labels' P / R per type, and the share
 * of gold mentions whose string is a dictionary phrase. What BENCHMARKS.md's demo bullets quote.
 *   npx tsx bench/demo-splits.ts
 */
import { demoCorpora, demoWeakSources, type DemoAsset } from '../src/core/demoAsset';
import { readFileSync } from 'node:fs';
import { scoreSpans } from '../src/core/metrics';
import { tokenTexts } from '../src/core/types';
import { LABEL_MODEL_ORDER } from '../src/core/weak/aggregate';
import { WeakLabeler } from '../src/core/weak/pipeline';

const demo = JSON.parse(readFileSync('public/demo/bc5cdr-demo.json', 'utf8')) as DemoAsset;
const corpora = demoCorpora(demo);
const docs = corpora.flatMap((c) => c.docs);
const gold = corpora.flatMap((c) => c.layers[0]?.annotations ?? c.docs.map(() => null));
const sources = demoWeakSources(demo);
const { gazetteers } = sources;
const phrases = new Set(gazetteers.flatMap((g) => g.entries.map((e) => e.phrase.toLowerCase())));
const labeler = new WeakLabeler(docs.map((d) => ({ text: d.text, offsets: d.offsets, tokens: tokenTexts(d), sentenceStarts: d.sentenceStarts })));
const request = sources;
const results = Object.fromEntries(LABEL_MODEL_ORDER.map((m) => [m, labeler.run({ ...request, method: m })]));
const pct = (x: number) => (100 * x).toFixed(2);
for (const split of ['dev', 'test']) {
  const idx = docs.flatMap((d, k) => (d.split === split ? [k] : []));
  const g = idx.map((k) => gold[k]!.spans);
  const f1 = LABEL_MODEL_ORDER.map(
    (m) =>
      `${m} ${pct(
        scoreSpans(
          g,
          idx.map((k) => results[m].aggregate[k].spans),
        ).overall.f1,
      )}`,
  );
  const hmm = scoreSpans(
    g,
    idx.map((k) => results.hmm.aggregate[k].spans),
  );
  const perType = Object.entries(hmm.perType).map(([t, v]) => `${t} P ${pct(v.precision)} R ${pct(v.recall)} (${v.tp} correct, ${v.fp} spurious)`);
  const mentions = idx.flatMap((k) => gold[k]!.spans.map((s) => tokenTexts(docs[k]).slice(s.start, s.end).join(' ').toLowerCase()));
  const covered = mentions.filter((p) => phrases.has(p)).length;
  console.log(
    `${split}: weak-label F1 ${f1.join(', ')}; the HMM's per type: ${perType.join('; ')}; ${mentions.length} gold mentions, ${pct(covered / mentions.length)} % a dictionary phrase`,
  );
}
