/**
 * What a budget of corrections can teach a model by its strings alone, per simulated setting: the
 * gold mentions of the corrected sentences that their weak labels got wrong (missed, mistyped or
 * cut), and how many test mentions share such a string and type while no weak label of the
 * training text has it. It bounds what memorizing the corrections adds on test; it trains nothing.
 * The sentences are the simulator's own (cli/simulateReview poolData): the oracle's top (most token
 * errors) and random's, seeds 1-3, at each budget; with what they cost to read (tokens a sentence).
 *
 *   npx tsx bench/correction-reach.ts [--budget 0.02] [--out bench/results/correction-reach.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { simulatedPool } from './simulatedPool';
import { budgetCount, randomOrder, rankBy, spansOfIds, tokenErrors } from '../src/core/guidedCorrection';
import { toSentences } from '../src/model/data';

const { values } = parseArgs({
  options: {
    budget: { type: 'string', default: '0.02' },
    out: { type: 'string', default: 'bench/results/correction-reach.json' },
  },
});
const fraction = Number(values.budget);
const CONFIGS = [
  'bench/configs/guided-correction-defaults-6-seeds.json',
  'bench/configs/guided-correction-defaults-bc5cdr.json',
  'bench/configs/guided-correction-twitter-test.json',
];
const SEEDS = [1, 2, 3];

/** A sentence's spans as "type\tphrase" keys. */
function mentions(words: readonly string[], ids: readonly number[], tags: readonly string[]): string[] {
  return spansOfIds(ids, tags).map((s) => `${s.type}\t${words.slice(s.start, s.end).join(' ')}`);
}

const out = [];
for (const file of CONFIGS) {
  const { setting, data, tags, weakSents, pool } = simulatedPool(file);
  // What the weak labels of the training text know: every typed phrase they label anywhere.
  const known = new Set(weakSents.flatMap((s) => mentions(s.words, s.tags, tags)));
  const testLayer = data.test.layers.find((l) => l.kind === 'gold')!;
  const test = toSentences(data.test.docs, testLayer.annotations, tags).flatMap((s) => mentions(s.words, s.tags, tags));
  const taughtBy = (chosen: readonly number[]) => {
    const taught = new Set<string>();
    for (const i of chosen) {
      const p = pool[i];
      const weak = new Set(mentions(p.words, p.weak, tags));
      for (const m of mentions(p.words, p.gold, tags)) if (!weak.has(m) && !known.has(m)) taught.add(m);
    }
    return { taught: taught.size, testMentions: test.filter((m) => taught.has(m)).length };
  };
  const k = budgetCount(pool.length, fraction);
  const per = (order: (seed: number) => number[]) => SEEDS.map((seed) => taughtBy(order(seed).slice(0, k)));
  // What the top sentences cost to read: their mean tokens a sentence, over the seeds.
  const tokensOf = (order: (seed: number) => number[]) => {
    const perSeed = SEEDS.map(
      (seed) =>
        order(seed)
          .slice(0, k)
          .reduce((b, i) => b + pool[i].words.length, 0) / k,
    );
    return Math.round((10 * perSeed.reduce((a, x) => a + x, 0)) / perSeed.length) / 10;
  };
  const mean = (xs: { taught: number; testMentions: number }[], tokensPerSentence: number) => ({
    taught: Math.round((10 * xs.reduce((a, x) => a + x.taught, 0)) / xs.length) / 10,
    testMentions: Math.round((10 * xs.reduce((a, x) => a + x.testMentions, 0)) / xs.length) / 10,
    tokensPerSentence,
  });
  const errors = pool.map((_, i) => i).filter((i) => tokenErrors(pool[i]) > 0);
  const oracleOrder = (seed: number) => rankBy(pool.map(tokenErrors), seed);
  const randomOf = (seed: number) => randomOrder(pool.length, seed);
  const row = {
    setting: setting.name,
    pool: pool.length,
    sentences: k,
    testMentions: test.length,
    testUnknown: test.filter((m) => !known.has(m)).length,
    oracle: mean(per(oracleOrder), tokensOf(oracleOrder)),
    random: mean(per(randomOf), tokensOf(randomOf)),
    wholePool: taughtBy(errors),
  };
  out.push(row);
  const share = (n: number) => `${((100 * n) / row.testMentions).toFixed(2)} %`;
  process.stdout.write(
    `${row.setting}: ${k} of ${row.pool} pool sentences; test ${row.testMentions} mentions, ${row.testUnknown} (${share(row.testUnknown)}) of a typed phrase no weak label of the training text has. ` +
      `Corrected, new typed phrases and the test mentions they name: oracle ${row.oracle.taught} → ${row.oracle.testMentions} (${share(row.oracle.testMentions)}), ` +
      `random ${row.random.taught} → ${row.random.testMentions} (${share(row.random.testMentions)}), the whole pool's errors ${row.wholePool.taught} → ${row.wholePool.testMentions} (${share(row.wholePool.testMentions)}); ` +
      `tokens a sentence: oracle ${row.oracle.tokensPerSentence}, random ${row.random.tokensPerSentence}\n`,
  );
}
writeFileSync(values.out!, `${JSON.stringify({ fraction, seeds: SEEDS, settings: out }, null, 2)}\n`);
process.stdout.write(`written ${values.out}\n`);
