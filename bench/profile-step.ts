/**
 * Where a training step's time goes, by TensorFlow.js kernel, on the WASM backend in Node: a few
 * steps of the shared loop's step (forward, tape, gradient, clipped Adam) inside tf.profile.
 *   npx tsx bench/profile-step.ts [--encoder idcnn|bilstm] [--hidden 300] [--head crf|softmax|span] [--steps 8] [--shapes]
 */
import { parseArgs } from 'node:util';
import '../src/methods';
import { getMethod } from '../src/methods';
import { parseRunConfig } from '../src/core/runConfig';
import { mulberry32 } from '../src/core/random';
import { initWasmBackend } from '../src/cli/train';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer, featureDims, makeBatch } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import { applyClipped } from '../src/model/ops';
import { batchTensors, Tagger } from '../src/model/tagger';
import * as tf from '../src/model/tf';
import { makeBatches } from '../src/model/train';
import { conll03TrainSentences } from './conll03';
import { printKernelProfile } from './kernelProfile';

const { values } = parseArgs({
  options: {
    encoder: { type: 'string', default: 'idcnn' },
    hidden: { type: 'string', default: '300' },
    head: { type: 'string', default: 'crf' },
    steps: { type: 'string', default: '8' },
    shapes: { type: 'boolean' },
    top: { type: 'string', default: '30' },
  },
});
const { tags, sentences } = conll03TrainSentences(320);
await initWasmBackend();
const feat = buildFeaturizer(
  trimGlove(
    readGloveAsset(),
    sentences.flatMap((s) => s.words),
  ),
  sentences.map((s) => s.words),
  tags,
);
const cfg = parseRunConfig({
  data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
  model: { encoder: values.encoder, hidden: Number(values.hidden), head: values.head, dropout: 0.5 },
  method: { name: 'supervised' },
  train: { epochs: 1, batchSize: 32, lr: 0.002, seed: 1 },
});
const method = getMethod('supervised');
const methodConfig = method.schema.parse(cfg.method);
const tagger = new Tagger(cfg.model, featureDims(feat), 1);
const optimizer = tf.train.adam(0.002);
const vars = [...tagger.params.values()];
const batches = makeBatches(sentences, 32, mulberry32(1)).slice(0, Number(values.steps));
const step = async (k: number) => {
  const batch = makeBatch(
    feat,
    batches[k].map((i) => sentences[i]),
    batches[k],
  );
  const { value, grads } = tf.variableGrads(
    () =>
      tf.tidy(() => {
        const tensors = batchTensors(batch, tagger.dims);
        return method.loss({
          tagger,
          batch,
          tensors,
          emissions: tagger.emissions(tensors, true, k),
          config: methodConfig,
          epoch: 1,
          step: k,
          rand: Math.random,
        });
      }),
    vars,
  );
  applyClipped(optimizer, vars, grads, 5);
  await value.data();
  value.dispose();
  tf.dispose(Object.values(grads));
  return batch.lengths.reduce((a, b) => a + b, 0);
};
for (let k = 0; k < batches.length; k++) await step(k); // warm-up
let tokens = 0;
await printKernelProfile(
  `${values.encoder} ${values.hidden} ${values.head}, ${batches.length} steps`,
  async () => {
    for (let k = 0; k < batches.length; k++) tokens += await step(k);
  },
  { shapes: values.shapes, top: Number(values.top) },
);
console.log(`${tokens} tokens`);
