/**
 * The starter model asset (public/models/starter-conll03.json): the studio's tagger trained once on
 * CoNLL-2003's gold training sentences, packed for the browser with its provenance. Its weights
 * are float32, little-endian, base64 per variable. Built from a `train --out` file:
 *   npm run studio -- train --config bench/configs/starter-conll03.json --out bench/out/starter-conll03.json
 *   npx tsx scripts/build-starter.ts bench/out/starter-conll03.json
 * The dev and test figures are the ones `train` recorded for it (BENCHMARKS.md).
 */
import { packWeights } from '../src/model/packedWeights';
import { readFileSync, writeFileSync } from 'node:fs';
import { STARTER_FORMAT, type StarterAsset } from '../src/model/starter';

const [from = 'bench/out/starter-conll03.json', devF1 = '93.36', testF1 = '89.54'] = process.argv.slice(2);
const m = JSON.parse(readFileSync(from, 'utf8')) as {
  format: string;
  config: { model: StarterAsset['model']; train: Record<string, unknown> };
  tags: string[];
  chars: [string, number][];
  oov: [string, number][];
  oShift?: number;
  weights: Record<string, { shape: number[]; data: number[] }>;
};
if (m.format !== 'ner-studio-model/1') throw new Error(`${from}: not a model file written by "train --out"`);
const asset: StarterAsset = {
  format: STARTER_FORMAT,
  provenance: {
    trainedOn: 'CoNLL-2003 English, the gold labels of its 14,041 training sentences (Reuters news, 1996-97; PER, LOC, ORG, MISC)',
    config: 'bench/configs/starter-conll03.json (8 epochs at most, patience 3, seed 1, the early-stopped epoch kept)',
    scores: `CoNLL-2003 span F1 (conlleval): dev ${devF1}, test ${testF1}`,
    licence:
      'The weights are the studio’s (MIT). CoNLL-2003 is derived from the Reuters RCV1 corpus, which Reuters licenses for research; the weights hold no text but the 1,593 training words GloVe lacks (the out-of-vocabulary list, below).',
    use: 'Read by a project as dictionary features of its own four groups, never as labels: as labels it cost twitter 6 F1 (BENCHMARKS.md). Never score it on CoNLL-2003, where it would be the answer.',
    built: new Date().toISOString().slice(0, 10),
  },
  model: m.config.model,
  tags: m.tags,
  chars: m.chars,
  oov: m.oov,
  oShift: m.oShift ?? 0,
  weights: packWeights(m.weights),
};
writeFileSync('public/models/starter-conll03.json', `${JSON.stringify(asset)}\n`);
console.log(`public/models/starter-conll03.json: ${Object.keys(asset.weights).length} variables`);
