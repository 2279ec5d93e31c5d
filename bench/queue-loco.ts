/**
 * The review queue's default signal, chosen leave-one-corpus-out over the three simulated
 * annotators that use the Train button's model defaults (src/core/queueLoco.ts has the rule):
 * conll03 distant 3k and bc5cdr core (bench/configs/guided-correction-defaults-6-seeds.json and
 * guided-correction-defaults-bc5cdr.json, records guided-correction-defaults.jsonl) and tweets
 * (guided-correction-twitter-test.json). Candidates: the signals the studio's queue can open on and
 * the simulator ranks alike. Writes bench/results/queue-loco.json and prints the table.
 *
 * The fine-tunes are read as recorded: each keeps its best epoch, whatever it scores against its
 * base, as the studio's loop does by default. Beside (`keepStart`): the same rule with each
 * fine-tune read as the loop runs it with "keep the current model" ticked (core/queueLoco
 * keptStart), and per corpus and arm the seeds whose fine-tune would have kept the base.
 *
 *   npx tsx bench/queue-loco.ts [--fraction 0.02] [--out bench/results/queue-loco.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { chooseQueueSignal, keptStart, type QueueRecord, queueLoco, STUDIO_SIGNAL } from '../src/core/queueLoco';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const fraction = Number(arg('--fraction', '0.02'));
const out = arg('--out', 'bench/results/queue-loco.json');
const FILES = ['bench/results/guided-correction-defaults.jsonl', 'bench/results/guided-correction-twitter-test.jsonl'];
const CORPORA = [
  { corpus: 'conll03', settings: ['conll03 distant 3k, no other text'] },
  { corpus: 'bc5cdr', settings: ['bc5cdr core, a pool of 2,000 dev sentences'] },
  { corpus: 'twitter', settings: ['twitter, a pool of 1,000 test tweets'] },
];
/** The rankings the studio's queue offers, by the simulator's names (STUDIO_SIGNAL maps them). */
const CANDIDATES = Object.keys(STUDIO_SIGNAL);

const recorded: QueueRecord[] = FILES.flatMap((f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as QueueRecord),
);
const result = queueLoco(recorded, CORPORA, CANDIDATES, fraction);
// The studio's default: the same rule on every corpus.
const chosen = chooseQueueSignal(recorded, CORPORA, CANDIDATES, fraction);
const asKept = keptStart(recorded);
const keepStart = { default: chooseQueueSignal(asKept, CORPORA, CANDIDATES, fraction), corpora: queueLoco(asKept, CORPORA, CANDIDATES, fraction) };
/** Per corpus and arm, on how many seeds the fine-tune would have kept the base model. */
const kept = Object.fromEntries(
  CORPORA.map((c) => [
    c.corpus,
    Object.fromEntries(
      ['random', ...CANDIDATES].map((arm) => [
        arm,
        asKept.filter((r) => c.settings.includes(r.setting) && r.arm === arm && r.fraction === fraction && r.start === 'kept').length,
      ]),
    ),
  ]),
);
const rule =
  'For each left-out corpus: among the candidates, the one whose mean dev gain over as many random sentences (seed for seed, at the budget), per corpus the mean over its seeds, averaged over the other corpora, is largest; ties to the earlier. The left-out corpus’s test is read after.';
writeFileSync(
  out,
  `${JSON.stringify(
    {
      records: FILES,
      fraction,
      candidates: CANDIDATES,
      rule,
      fineTunes: 'as recorded: each keeps its best epoch on dev, whatever it scores against its base, as the studio’s loop does by default',
      default: { ...chosen, studio: STUDIO_SIGNAL[chosen.choice] },
      corpora: result.map((c) => ({ ...c, studio: STUDIO_SIGNAL[c.choice] })),
      keepStart: {
        fineTunes:
          'each keeps the base model unless an epoch beats it on dev (the loop with “keep the current model” ticked; records read so from their dev F1)',
        default: { ...keepStart.default, studio: STUDIO_SIGNAL[keepStart.default.choice] },
        corpora: keepStart.corpora.map((c) => ({ ...c, studio: STUDIO_SIGNAL[c.choice], kept: kept[c.corpus] })),
      },
    },
    null,
    2,
  )}\n`,
);

const s = (x: { mean: number; std: number; n: number }) => (x.n ? `${x.mean >= 0 ? '+' : ''}${x.mean.toFixed(2)} ± ${x.std.toFixed(2)} (${x.n})` : '–');
console.log(`| corpus | choice | test gain: choice | random | choice − random | ${CANDIDATES.map((c) => `${c} − random`).join(' | ')} |`);
console.log(`| --- | --- | --- | --- | --- | ${CANDIDATES.map(() => '---').join(' | ')} |`);
for (const c of result)
  console.log(
    `| ${c.corpus} | ${c.choice} | ${s(c.test.choice)} | ${s(c.test.random)} | ${s(c.test.overRandom)} | ${CANDIDATES.map((k) => s(c.candidates[k])).join(' | ')} |`,
  );
for (const c of result) console.log(`- ${c.corpus} left out: ${c.why}`);
console.log(`- the default, on every corpus: ${chosen.choice}, the studio's ${STUDIO_SIGNAL[chosen.choice]} (${chosen.why})`);
console.log('\nWith each fine-tune keeping its base unless an epoch beats it on dev:');
for (const c of keepStart.corpora)
  console.log(
    `| ${c.corpus} | ${c.choice} | ${s(c.test.choice)} | ${s(c.test.random)} | ${s(c.test.overRandom)} | ${CANDIDATES.map((k) => s(c.candidates[k])).join(' | ')} | kept ${JSON.stringify(kept[c.corpus])} |`,
  );
console.log(`- the default, on every corpus: ${keepStart.default.choice} (${keepStart.default.why})`);
console.log(`written ${out}`);
