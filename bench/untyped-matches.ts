/**
 * Where the HMM's weak labels on bc5cdr differ between a fit on the text it labels and a fit on
 * train_raw: F1 per split and fit, and the predicted spans grouped by which sources fire in them.
 * TU=0 leaves untyped matches untyped (the eleventh session's labels). `npx tsx bench/untyped-matches.ts [DATA]`.
 */
import { dataFolder } from '../src/cli/dataFolder';
import { weakLabelCorpus } from '../src/cli/weakLabel';
import { scoreSpans } from '../src/core/metrics';
const D = `${dataFolder(process.argv[2])}/bc5cdr/`;
const base = {
  gazetteers: [`${D}dict_core.txt`],
  untyped: [`${D}dict_full_train.txt`],
  rules: 'bench/configs/bc5cdr-rules.json',
  mode: 'insensitive' as const,
  method: 'hmm' as const,
  typeUntyped: process.env.TU !== '0',
};
const train = weakLabelCorpus({ ...base, corpus: `${D}train_raw.txt` });
const fitted = train.result.hmm!;
for (const split of ['dev', 'test']) {
  const own = weakLabelCorpus({ ...base, corpus: `${D + split}.conll`, gold: `${D + split}.conll` });
  const fx = weakLabelCorpus({ ...base, corpus: `${D + split}.conll`, gold: `${D + split}.conll`, hmm: fitted, types: fitted.types });
  const gold = own.corpus.layers.find((l) => l.kind === 'gold')!.annotations.map((a) => a.spans);
  for (const [name, r] of [
    ['own', own],
    ['train-fit', fx],
  ] as const) {
    const s = scoreSpans(
      gold,
      r.result.aggregate.map((a) => a.spans),
    );
    console.log(
      split,
      name,
      (100 * s.overall.f1).toFixed(2),
      Object.entries(s.perType)
        .map(([k, v]) => `${k} P${(100 * v.precision).toFixed(1)} R${(100 * v.recall).toFixed(1)}`)
        .join(' '),
    );
    // categorize predicted spans by sources covering exactly that span
    const cat = new Map<string, [number, number, number]>();
    r.result.aggregate.forEach((a, d) => {
      const g = new Map(gold[d].map((s) => [`${s.start}:${s.end}`, s.label]));
      for (const sp of a.spans) {
        const fired = r.result.sources
          .filter((src) => src.spans[d].some((x) => x.start < sp.end && x.end > sp.start))
          .map((src) => src.name.replace(/\.txt$/, '') + src.spans[d].find((x) => x.start < sp.end && x.end > sp.start)!.label);
        const k = `${fired.join('+')} -> ${sp.label}`;
        const c = cat.get(k) ?? [0, 0, 0];
        const gl = g.get(`${sp.start}:${sp.end}`);
        if (gl === sp.label) c[0]++;
        else if (gl) c[1]++;
        else c[2]++;
        cat.set(k, c);
      }
    });
    for (const [k, c] of [...cat].sort((a, b) => b[1][0] + b[1][1] + b[1][2] - a[1][0] - a[1][1] - a[1][2]).slice(0, 12))
      console.log('   ', k, 'right', c[0], 'wrongtype', c[1], 'nogold', c[2]);
  }
}
