import { getMethod } from '../src/methods';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import '../src/methods';
import { parseRunConfig } from '../src/core/runConfig';
import { bioTags } from '../src/model/data';
import { buildFeaturizer } from '../src/model/features';
import { trainTagger } from '../src/model/train';
export async function probe() {
  const out: Record<string, number[]> = {};
  const tags = bioTags(['A']);
  const train = Array.from({ length: 40 }, (_, k) => ({
    words: ['xx', 'Yy', 'z', 'q1', 'Yy'].slice(0, 2 + (k % 4)),
    tags: [0, k % 2 ? 1 : 0, 0, 0, 1].slice(0, 2 + (k % 4)),
    doc: k,
    offset: 0,
  }));
  const glove = {
    dims: 2,
    index: new Map([
      ['xx', 0],
      ['yy', 1],
    ]),
    vectors: Float32Array.from([1, 0, 0, 1]),
  };
  const feat = buildFeaturizer(glove, [...train.map((s) => s.words), ['q1', 'q1']], tags);
  for (const be of ['cpu', 'webgpu']) {
    await tf.setBackend(be);
    const steps: number[] = [];
    const cfg = parseRunConfig({
      data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
      model: { hidden: 8, charDim: 3, charFilters: 3, dropout: 0.5 },
      train: { epochs: 2, batchSize: 8, seed: 1 },
    });
    const r = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train, dev: train }, { onStep: (e) => void steps.push(e.loss) });
    out[`${be} steps`] = steps;
    out[`${be} epochs`] = r.history.map((h) => h.loss);
    r.tagger.dispose();
  }
  return out;
}
