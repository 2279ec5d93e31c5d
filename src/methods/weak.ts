/**
 * The WSL baselines for strong (gold) plus weak labels (NEEDLE §4): WSL (the weak labels as if
 * gold), weighted WSL and partial WSL. NEEDLE's noise-aware loss is in needle.ts, RoSTER's losses
 * in roster.ts, the multi-stage procedures in their methods' modules.
 */
import { crfNll, crfPartialNll } from '../model/crf';
import { tagsOneHot } from '../model/features';
import * as tf from '../model/tf';
import { tokenNll, weightedMean } from './losses';
import { registerMethod, type LossContext } from './registry';
import { partialWslSchema, weightedWslSchema, wslSchema } from './weak.def';

/** Log probabilities per token for the token heads (softmax scores, or twopart's own log probabilities). */
export function tokenLogProbs(ctx: LossContext<unknown>): tf.Tensor3D {
  return ctx.tagger.cfg.head === 'twopart' ? ctx.emissions : tf.logSoftmax(ctx.emissions);
}

/** [B] per-sentence values as [B, 1] for broadcasting over tokens. */
const perSentence = (v: Float32Array) => tf.expandDims(tf.tensor1d(v), 1);

registerMethod({
  name: 'wsl',
  title: 'WSL: strong and weak labels, the weak as if gold',
  schema: wslSchema,
  loss(ctx) {
    const gold = tagsOneHot(ctx.batch, ctx.tagger.dims.tags);
    if (ctx.tagger.cfg.head === 'crf') return tf.mean(crfNll(ctx.emissions, gold, ctx.tensors.mask, ctx.tagger.crf())) as tf.Scalar;
    return weightedMean(tokenNll(tokenLogProbs(ctx), gold), ctx.tensors.mask);
  },
  heads: ['crf', 'softmax', 'twopart'],
});

registerMethod({
  name: 'weighted-wsl',
  title: 'Weighted WSL: the weak sentences\u2019 loss times \u03b3',
  schema: weightedWslSchema,
  loss(ctx) {
    const { batch, tensors, tagger, config } = ctx;
    const w = Float32Array.from(batch.weak, (weak) => (weak ? config.gamma : 1));
    const gold = tagsOneHot(batch, tagger.dims.tags);
    if (tagger.cfg.head === 'crf') return tf.div(tf.sum(tf.mul(crfNll(ctx.emissions, gold, tensors.mask, tagger.crf()), tf.tensor1d(w))), batch.B) as tf.Scalar;
    return tf.div(tf.sum(tf.mul(tf.mul(tokenNll(tokenLogProbs(ctx), gold), tensors.mask), perSentence(w))), tf.maximum(tf.sum(tensors.mask), 1)) as tf.Scalar;
  },
  heads: ['crf', 'softmax', 'twopart'],
});

/** 1 for tokens whose label binds the loss: every token of a strong sentence, non-O tokens of a weak one. */
function constrainedTokens(ctx: LossContext<unknown>): Float32Array {
  const { batch } = ctx;
  const out = new Float32Array(batch.B * batch.T);
  for (let p = 0; p < out.length; p++) {
    const b = Math.floor(p / batch.T);
    out[p] = batch.tags[p] < 0 ? 0 : batch.weak[b] && batch.tags[p] === 0 ? 0 : 1;
  }
  return out;
}

registerMethod({
  name: 'partial-wsl',
  title: 'Partial WSL: weak O tokens left out of the loss',
  schema: partialWslSchema,
  loss(ctx) {
    const { batch, tensors, tagger } = ctx;
    const K = tagger.dims.tags;
    const gold = tagsOneHot(batch, K);
    const bound = constrainedTokens(ctx);
    if (tagger.cfg.head === 'crf') {
      // Unbound tokens may take any tag: the CRF likelihood with them marginalized out.
      const free = tf.tensor3d(
        Float32Array.from({ length: batch.B * batch.T * K }, (_, i) => 1 - bound[Math.floor(i / K)]),
        [batch.B, batch.T, K],
      );
      const allowed = tf.minimum(1, tf.add(gold, free)) as tf.Tensor3D;
      return tf.mean(crfPartialNll(ctx.emissions, allowed, tensors.mask, tagger.crf())) as tf.Scalar;
    }
    return weightedMean(tokenNll(tokenLogProbs(ctx), gold), tf.tensor2d(bound, [batch.B, batch.T]));
  },
  heads: ['crf', 'softmax', 'twopart'],
});
