/**
 * The review queue's ranking time (core/reviewSignals.ts rankSentences) on CoNLL-2003's 14,041
 * training sentences, one document each, as the review page ranks them: the distant labels as the
 * weak layer, the gold labels standing in for a run's predictions, and a seeded uncertainty per
 * token. Per signal, the best of 5 rankings, in Node (the review page ranks in the query worker,
 * once per change of its data, signal and scope: bench/review-queue-browser.ts measures the page).
 *   npx tsx bench/review-queue.ts [--times N] [--out FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mulberry32 } from '../src/core/random';
import { rankSentences, type QueueDoc } from '../src/core/reviewSignals';
import { tagsToSpans } from '../src/core/tagScheme';
import { reviewSignal } from '../src/methods/reviewSignals';
import { dataFolder } from '../src/cli/dataFolder';

const { values } = parseArgs({ options: { times: { type: 'string', default: '1' }, out: { type: 'string' } } });
const times = Number(values.times);
const DATA = `${dataFolder()}/conll03-distant/`;
const read = (f: string) => readFileSync(DATA + f, 'utf8').split('\n');
const text = read('train_text.txt');
const dist = read('train_label_dist.txt');
const gold = read('train_label_true.txt');
const rand = mulberry32(1);
const docs: QueueDoc[] = [];
for (let r = 0; r < times; r++)
  text.forEach((line, i) => {
    if (!line) return;
    const words = line.split(' ');
    docs.push({
      docId: docs.length + 1,
      name: `s${docs.length + 1}`,
      words,
      sentences: [[0, words.length]],
      weak: tagsToSpans(dist[i].split(' ')),
      predicted: tagsToSpans(gold[i].split(' ')),
      signals: { uncertainty: Float32Array.from(words, () => (rand() < 0.1 ? rand() : rand() * 0.05)) },
    });
  });
const tokens = docs.reduce((a, d) => a + d.words.length, 0);
const out: Record<string, { ms: number; queued: number }> = {};
for (const id of ['disagreement', 'uncertainty', 'reach']) {
  const signal = reviewSignal(id);
  let best = Infinity;
  let queued = 0;
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    queued = rankSentences(docs, signal).length;
    best = Math.min(best, performance.now() - t0);
  }
  out[id] = { ms: Math.round(best), queued };
  console.log(`${id}: ${best.toFixed(0)} ms, ${queued} sentences queued (${docs.length} sentences, ${tokens} tokens)`);
}
const record = { sentences: docs.length, tokens, node: process.version, at: new Date().toISOString(), signals: out };
if (values.out) writeFileSync(values.out, `${JSON.stringify(record, null, 2)}\n`);
