/**
 * One batch's loss gradient through the whole model, on a chosen backend, from given weights:
 * used to hold the backends to each other (e2e/kernels.spec.ts for WebGPU, backends.test.ts for
 * WASM), since a training run's losses drift apart for reasons that are not the gradient (Adam
 * turns float round-off in near-zero gradients into full-size steps).
 */
import { modelSchema } from '../core/runConfig';
import { crfNll } from './crf';
import { mulberry32 } from '../core/random';
import { Tagger, type Weights } from './tagger';
import * as tf from './tf';

export async function modelGrads(
  backend: string,
  encoder: 'bilstm' | 'idcnn',
  weights?: Weights,
  head: 'crf' | 'softmax' = 'crf',
  dropout = 0,
): Promise<{ grads: Record<string, number[]>; weights: Weights }> {
  await tf.setBackend(backend);
  const cfg = modelSchema.parse({ encoder, hidden: 16, charDim: 8, charFilters: 8, dropout, head });
  const dims = { word: 20, chars: 30, oov: 4, tags: 9 };
  const [B, T] = [4, 12];
  const r = mulberry32(11);
  const lengths = [12, 9, 5, 1];
  const words = Float32Array.from({ length: B * T * dims.word }, () => r() * 2 - 1);
  const chars = Int32Array.from({ length: B * T * 16 }, (_, k) => (k % 16 < 5 ? 1 + Math.floor(r() * 29) : 0));
  const mask = Float32Array.from({ length: B * T }, (_, p) => (p % T < lengths[Math.floor(p / T)] ? 1 : 0));
  const gold = Int32Array.from({ length: B * T }, () => Math.floor(r() * dims.tags));
  const oovPos = [0, 5, 13];
  const sel = new Float32Array(B * T * oovPos.length);
  oovPos.forEach((p, k) => (sel[p * oovPos.length + k] = 1));
  const tagger = new Tagger(cfg, dims, 5);
  if (weights) tagger.setWeights(weights);
  const vars = [...tagger.params.values()];
  const { value, grads } = tf.variableGrads(
    () =>
      tf.tidy(() => {
        const b = {
          words: tf.tensor3d(words, [B, T, dims.word]),
          chars: tf.tensor2d(chars, [B * T, 16], 'int32'),
          mask: tf.tensor2d(mask, [B, T]),
          oovSelect: tf.tensor2d(sel, [B * T, oovPos.length]),
          oovOneHot: tf.cast(tf.oneHot([1, 2, 1], dims.oov), 'float32') as tf.Tensor2D,
        };
        const em = tagger.emissions(b, dropout > 0, 1);
        const onehot = tf.cast(tf.oneHot(tf.tensor2d(gold, [B, T], 'int32'), dims.tags), 'float32') as tf.Tensor3D;
        if (head === 'crf') return tf.mean(crfNll(em, onehot, b.mask, tagger.crf())) as tf.Scalar;
        return tf.mean(tf.neg(tf.sum(tf.mul(tf.logSoftmax(em), onehot), 2))) as tf.Scalar;
      }),
    vars,
  );
  const out: Record<string, number[]> = { loss: [(await value.data())[0]] };
  for (const [k, v] of tagger.params) if (grads[v.name]) out[k] = Array.from(await grads[v.name].data());
  const w = await tagger.getWeights();
  tf.dispose([value, ...Object.values(grads)]);
  tagger.dispose();
  return { grads: out, weights: w };
}

/** Per array, |a − b| / |b| in the L2 norm. */
export function relativeGaps(a: Record<string, number[]>, b: Record<string, number[]>): Record<string, number> {
  const rel: Record<string, number> = {};
  for (const k of Object.keys(b)) {
    let num = 0;
    let den = 0;
    b[k].forEach((v, i) => {
      num += (a[k][i] - v) ** 2;
      den += v * v;
    });
    rel[k] = Math.sqrt(num) / Math.max(Math.sqrt(den), 1e-12);
  }
  return rel;
}
