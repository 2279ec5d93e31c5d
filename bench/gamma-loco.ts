/**
 * The review loop's weak-sentence weight (LOOP_WEAK_WEIGHT, γ) chosen leave-one-corpus-out: for
 * each corpus, the γ whose fine-tunes of the queue's default ranking gain most on dev over the
 * seed's base, averaged over the other corpora; then that γ's test gain on the left-out corpus,
 * beside the other's and random's. The records: γ 0.1 from the defaults simulations, γ 0.03 from
 * bench/configs/guided-correction-gamma-0.03*.json, paired seed for seed (the same base models).
 *
 * `joint` chooses the ranking and γ together by the same rule, among the queue's three rankings.
 *
 *   npx tsx bench/gamma-loco.ts [--arm uncertainty-max] [--out bench/results/gamma-loco.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { meanStd } from '../src/core/metrics';
import { pairedGains, type QueueRecord } from '../src/core/queueLoco';

const { values } = parseArgs({
  options: {
    arm: { type: 'string', default: 'uncertainty-max' },
    out: { type: 'string', default: 'bench/results/gamma-loco.json' },
  },
});
const read = (f: string): QueueRecord[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as QueueRecord);
const GAMMAS: Record<string, QueueRecord[]> = {
  '0.1': [...read('bench/results/guided-correction-defaults.jsonl'), ...read('bench/results/guided-correction-twitter-test.jsonl')],
  '0.03': [...read('bench/results/guided-correction-gamma.jsonl'), ...read('bench/results/guided-correction-gamma-twitter.jsonl')],
};
const CORPORA = [
  { corpus: 'conll03', setting: 'conll03 distant 3k, no other text' },
  { corpus: 'bc5cdr', setting: 'bc5cdr core, a pool of 2,000 dev sentences' },
  { corpus: 'twitter', setting: 'twitter, a pool of 1,000 test tweets' },
];
const FRACTION = 0.02;
const round = (x: number) => Math.round(100 * x) / 100;

/** Seeds both γ have records of, for the arm, on the corpus. */
function seedsOf(setting: string, arm: string): number[] {
  const per = Object.values(GAMMAS).map((rs) => new Set(pairedGains(rs, setting, arm, 'base', FRACTION, 'dev').keys()));
  return [...per[0]].filter((s) => per.every((p) => p.has(s))).sort((a, b) => a - b);
}
function gain(gamma: string, setting: string, arm: string, split: 'dev' | 'test', seeds: number[]) {
  const g = pairedGains(GAMMAS[gamma], setting, arm, 'base', FRACTION, split);
  const xs = seeds.map((s) => g.get(s)!);
  const { mean, std } = meanStd(xs);
  return { mean: round(mean), std: round(std), n: xs.length };
}

const arm = values.arm!;
const devGain = (gamma: string, c: (typeof CORPORA)[number]) => gain(gamma, c.setting, arm, 'dev', seedsOf(c.setting, arm)).mean;
/** Ties to the first γ (the loop's 0.1); a corpus with no paired seeds has no vote. */
const choose = (others: typeof CORPORA) => {
  const voting = others.filter((c) => seedsOf(c.setting, arm).length);
  const scored = Object.keys(GAMMAS).map((g) => ({ g, score: voting.length ? meanStd(voting.map((c) => devGain(g, c))).mean : Number.NEGATIVE_INFINITY }));
  return scored.reduce((a, b) => (b.score > a.score ? b : a));
};
const rows = CORPORA.map((left) => {
  const others = CORPORA.filter((c) => c !== left);
  const chosen = choose(others);
  const seeds = seedsOf(left.setting, arm);
  const at = (g: string) => ({
    [arm]: gain(g, left.setting, arm, 'test', seeds),
    random: gain(g, left.setting, 'random', 'test', seedsOf(left.setting, 'random')),
    dev: gain(g, left.setting, arm, 'dev', seeds),
  });
  return {
    corpus: left.corpus,
    seeds,
    choice: chosen.g,
    why: Object.keys(GAMMAS)
      .map((g) => `γ ${g}: ${others.map((c) => `${c.corpus} ${devGain(g, c).toFixed(2)}`).join(', ')}`)
      .join(' | '),
    byGamma: Object.fromEntries(Object.keys(GAMMAS).map((g) => [g, at(g)])),
  };
});
const overall = choose(CORPORA);
// The ranking and γ together: each pair's mean dev gain over the base, over the corpora given.
const RANKINGS = ['uncertainty-max', 'reach-studio', 'uncertainty'];
const pairs = RANKINGS.flatMap((a) => Object.keys(GAMMAS).map((g) => ({ arm: a, g })));
const pairGain = (p: { arm: string; g: string }, c: (typeof CORPORA)[number], split: 'dev' | 'test') =>
  gain(p.g, c.setting, p.arm, split, seedsOf(c.setting, p.arm)).mean;
const choosePair = (others: typeof CORPORA) =>
  pairs.map((p) => ({ ...p, score: round(meanStd(others.map((c) => pairGain(p, c, 'dev'))).mean) })).reduce((a, b) => (b.score > a.score ? b : a));
const joint = {
  default: choosePair(CORPORA),
  corpora: CORPORA.map((left) => {
    const chosen = choosePair(CORPORA.filter((c) => c !== left));
    return { corpus: left.corpus, choice: `${chosen.arm} at γ ${chosen.g}`, test: pairGain(chosen, left, 'test') };
  }),
  pairs: pairs.map((p) => ({
    ...p,
    dev: Object.fromEntries(CORPORA.map((c) => [c.corpus, pairGain(p, c, 'dev')])),
    test: Object.fromEntries(CORPORA.map((c) => [c.corpus, pairGain(p, c, 'test')])),
  })),
};
writeFileSync(values.out!, `${JSON.stringify({ arm, fraction: FRACTION, default: overall.g, corpora: rows, joint }, null, 2)}\n`);
for (const r of rows) {
  const cells = Object.entries(r.byGamma)
    .map(([g, x]) => `γ ${g}: ${arm} ${x[arm].mean} ± ${x[arm].std}, random ${x.random.mean} ± ${x.random.std} (dev ${x.dev.mean})`)
    .join('; ');
  console.log(`- ${r.corpus} (seeds ${r.seeds.join(', ')}): chosen γ ${r.choice} (${r.why}); ${cells}`);
}
console.log(`- over every corpus: γ ${overall.g}`);
for (const p of joint.pairs) console.log(`- ${p.arm} at γ ${p.g}: dev ${JSON.stringify(p.dev)}, test ${JSON.stringify(p.test)}`);
console.log(
  `- ranking and γ together: ${joint.default.arm} at γ ${joint.default.g} (mean dev gain over base ${joint.default.score}); left out: ${joint.corpora.map((c) => `${c.corpus} ${c.choice} (test ${c.test})`).join(', ')}`,
);
console.log(`written ${values.out}`);
