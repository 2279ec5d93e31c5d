/**
 * What kind of errors the annotator's pool holds, per setting of the simulated annotator
 * (bench/configs/guided-correction-first.json): each gold mention of the pool matched exactly by the
 * weak labels, missed (no weak span overlaps it), cut wrong (overlapping, other boundaries) or
 * mistyped (same boundaries); weak spans that overlap no gold mention (spurious); and how
 * systematic the errors are: the share of erring mentions whose string errs at least twice in the
 * pool, and how many test mentions share an erring string (what a correction of it could reach).
 * Issue 47: why corrections move conll03 and not bc5cdr.
 *
 *   npx tsx bench/weak-errors.ts [--config bench/configs/guided-correction-first.json]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readConfigJson } from '../src/cli/dataFolder';
import { loadExperimentConfig, loadSetting, settingSources } from '../src/cli/experiment';
import { weakLabelCorpus } from '../src/cli/weakLabel';
import { mulberry32 } from '../src/core/random';
import { type Annotation, type ParsedDoc, type Span, tokenTexts } from '../src/core/types';

const { values } = parseArgs({ options: { config: { type: 'string', default: 'bench/configs/guided-correction-first.json' } } });
const configFile = values.config!;
const { simulate, ...raw } = readConfigJson(configFile) as Record<string, unknown>;
const { exp } = loadExperimentConfig(configFile, raw);
const pools = (simulate as { pools?: Record<string, { fromDev: number; splitSeed?: number }> }).pools ?? {};

const text = (d: ParsedDoc, s: Span) => tokenTexts(d).slice(s.start, s.end).join(' ').toLowerCase();
const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;

for (const setting of exp.settings) {
  // The pool the annotator corrects: a distant setting's training sentences (their gold), a dictionary setting's dev sentences labelled by its sources.
  let docs: ParsedDoc[];
  let weak: Annotation[];
  let gold: Annotation[];
  const data = loadSetting(setting);
  if (setting.kind === 'distant') {
    const n = setting.limitTrain ?? Infinity;
    docs = data.train.corpus.docs.slice(0, n);
    weak = data.train.anns.slice(0, n);
    const goldLines = readFileSync(setting.train.gold!, 'utf8').split('\n');
    gold = docs.map((d, k) => ({ spans: spansOfBio(d, goldLines[k].split(' ')) }) as Annotation);
  } else if (setting.kind === 'dictionary' && pools[setting.name] && 'conll' in setting.dev) {
    const labeled = weakLabelCorpus({
      corpus: setting.dev.conll,
      ...settingSources(setting, data),
      ...(data.hmm ? { hmm: data.hmm, types: data.hmm.types } : {}),
    });
    // The pool's dev documents, drawn as simulate-review draws them (poolData).
    const pool = pools[setting.name];
    const rand = mulberry32(pool.splitSeed ?? 1);
    const order = data.dev.docs.map((_, k) => [rand(), k] as const).sort((a, b) => a[0] - b[0]);
    const inPool = order
      .slice(0, pool.fromDev)
      .map(([, k]) => k)
      .sort((a, b) => a - b);
    docs = inPool.map((k) => data.dev.docs[k]);
    weak = inPool.map((k) => labeled.result.aggregate[k]);
    gold = inPool.map((k) => data.dev.layers.find((l) => l.kind === 'gold')!.annotations[k]);
  } else continue;
  const kinds = { exact: 0, missed: 0, cut: 0, mistyped: 0, spurious: 0 };
  const errs = new Map<string, number>();
  for (let k = 0; k < docs.length; k++) {
    const ws = weak[k]?.spans ?? [];
    for (const g of gold[k]?.spans ?? []) {
      const same = ws.find((w) => w.start === g.start && w.end === g.end);
      const kind = same ? (same.label === g.label ? 'exact' : 'mistyped') : ws.some((w) => overlaps(w, g)) ? 'cut' : 'missed';
      kinds[kind]++;
      if (kind !== 'exact') errs.set(text(docs[k], g), (errs.get(text(docs[k], g)) ?? 0) + 1);
    }
    for (const w of ws)
      if (!(gold[k]?.spans ?? []).some((g) => overlaps(w, g))) {
        kinds.spurious++;
        errs.set(text(docs[k], w), (errs.get(text(docs[k], w)) ?? 0) + 1);
      }
  }
  const nErr = [...errs.values()].reduce((a, b) => a + b, 0);
  const repeated = [...errs.values()].filter((c) => c >= 2).reduce((a, b) => a + b, 0);
  // Test mentions whose string is an erring string of the pool.
  const testGold = data.test.layers.find((l) => l.kind === 'gold')!.annotations;
  let reach = 0;
  let testMentions = 0;
  data.test.docs.forEach((d, k) =>
    (testGold[k]?.spans ?? []).forEach((g) => {
      testMentions++;
      if (errs.has(text(d, g))) reach++;
    }),
  );
  const goldN = kinds.exact + kinds.missed + kinds.cut + kinds.mistyped;
  const pct = (x: number, n: number) => `${((100 * x) / n).toFixed(1)} %`;
  console.log(
    `| ${setting.name} | ${docs.length} | ${goldN} | ${pct(kinds.exact, goldN)} | ${pct(kinds.missed, goldN)} | ${pct(kinds.cut, goldN)} | ${pct(kinds.mistyped, goldN)} | ${kinds.spurious} | ${pct(repeated, nErr)} | ${(nErr / errs.size).toFixed(2)} | ${pct(reach, testMentions)} |`,
  );
}

/** Spans of a BIO tag line over a document's tokens. */
function spansOfBio(d: ParsedDoc, tags: string[]): Span[] {
  const out: Span[] = [];
  let cur: Span | null = null;
  for (let i = 0; i < d.offsets.length >> 1; i++) {
    const t = tags[i] ?? 'O';
    if (t.startsWith('B-') || (t.startsWith('I-') && cur?.label !== t.slice(2))) {
      if (cur) out.push(cur);
      cur = { start: i, end: i + 1, label: t.slice(2) };
    } else if (t.startsWith('I-') && cur) cur.end = i + 1;
    else {
      if (cur) out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out;
}
