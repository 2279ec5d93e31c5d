/**
 * Losses for strong (gold) plus weak labels, the one-stage pieces of the NEEDLE and RoSTER
 * papers: the baselines WSL, weighted WSL and partial WSL (NEEDLE §4), NEEDLE's noise-aware loss
 * (Eq. 3) and RoSTER's noise-robust training (GCE, Eq. 3, with noisy-label removal, Eq. 5, and
 * random dropping of weak O tokens, Appendix C). The multi-stage procedures (weak label
 * completion, confidence estimation, fine-tuning, ensembles, self-training) are in pipelines.ts
 * and train with these losses.
 */
import { crfNll, crfPartialNll } from '../model/crf';
import { tagsOneHot } from '../model/features';
import * as tf from '../model/tf';
import { gce, gceOfLabel, klTokens, noiseAwareCrf, tokenNll, weightedMean } from './losses';
import { registerMethod, type LossContext } from './registry';
import { distillSchema, noiseAwareSchema, partialWslSchema, rosterSchema, weightedWslSchema, wslSchema } from './schemas';

import { rosterRemoval } from '../core/reviewSignals';
import { batchTensors } from '../model/tagger';
import { predictProbs } from '../model/train';

/** Log probabilities per token for the token heads (softmax scores, or twopart's own log probabilities). */
function tokenLogProbs(ctx: LossContext<unknown>): tf.Tensor3D {
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

registerMethod({
  name: 'noise-aware',
  title: 'NEEDLE noise-aware loss: c \u00b7 NLL + (1 \u2212 c) \u00b7 log-unlikelihood on weak sentences',
  schema: noiseAwareSchema,
  loss(ctx) {
    const { batch, tensors, tagger } = ctx;
    const gold = tagsOneHot(batch, tagger.dims.tags);
    return tf.mean(noiseAwareCrf(ctx.emissions, gold, tensors.mask, tagger.crf(), tf.tensor1d(batch.weak), tf.tensor1d(batch.confidence))) as tf.Scalar;
  },
  heads: ['crf'],
});

/**
 * RoSTER's noise-robust training: GCE (Eq. 3) on the weak labels, weak O tokens dropped at random,
 * and, from `removeFromEpoch` on, noisy-label removal (Eq. 5): w = 1(p_y > τ) per weak token, with
 * Appendix C's minority-type exemption (`rosterRemoval`). Removal is judged by the model without
 * dropout, as the authors' code does; the paper refreshes w every few batches over the whole
 * training set, here it is judged on each batch before its step (the exemption from that batch),
 * which keeps a resumed run identical to an uninterrupted one.
 *
 * With the two-part head the loss has the paper's two parts (Appendix C, and the authors' code):
 * GCE on entity vs non-entity over every kept token, plus GCE on P(type | entity) over the kept
 * entity tokens, each a weighted mean. A weak entity token whose type is removed stays an entity
 * in the first part. With a softmax head it is GCE on each kept token's tag.
 */
registerMethod({
  name: 'roster',
  title: 'RoSTER noise-robust training: GCE, noisy-label removal, weak O dropping',
  schema: rosterSchema,
  /** The review queue's RoSTER signal of a single-stage run: the weak labels the final model's threshold removes. */
  async record({ tagger, feat, train, config, signals }) {
    if (signals?.rosterRemoved || config.tau <= 0) return {};
    const removed = rosterRemoval(
      train.map((x) => x.tags),
      await predictProbs(tagger, feat, train),
      train.map((x) => !!x.weak),
      tagger.dims.tags,
      config.tau,
      tagger.cfg.head === 'twopart',
    );
    return { signals: { rosterRemoved: removed } };
  },
  /**
   * Once removal is on: which weak tokens the threshold removes, judged by the model without
   * dropout, as the loss's keep weights [B·T], and the share removed of each tag's weak tokens
   * (keys removed:<tag id>, averaged per epoch for the diagnostics' removal-over-time view).
   */
  async prepare({ tagger, batch, config, epoch }) {
    if (config.tau <= 0 || epoch < config.removeFromEpoch) return { data: null };
    const K = tagger.dims.tags;
    const lp = tf.tidy(() => {
      const em = tagger.emissions(batchTensors(batch, tagger.dims), false, 0);
      return tagger.cfg.head === 'twopart' ? tf.exp(em) : tf.softmax(em);
    });
    const probs = (await lp.data()) as Float32Array;
    lp.dispose();
    const rows: number[][] = [];
    const pr: Float32Array[] = [];
    const weak: boolean[] = [];
    batch.lengths.forEach((n, b) => {
      rows.push(Array.from(batch.tags.subarray(b * batch.T, b * batch.T + n)));
      pr.push(probs.subarray(b * batch.T * K, (b * batch.T + n) * K));
      weak.push(batch.weak[b] > 0);
    });
    const removed = rosterRemoval(rows, pr, weak, K, config.tau, tagger.cfg.head === 'twopart');
    const keep = new Float32Array(batch.B * batch.T).fill(1);
    const total = new Array<number>(K).fill(0);
    const gone = new Array<number>(K).fill(0);
    rows.forEach((ts, s) =>
      ts.forEach((y, t) => {
        if (!weak[s] || y < 0) return;
        total[y]++;
        if (removed[s]![t]) {
          gone[y]++;
          keep[s * batch.T + t] = 0;
        }
      }),
    );
    const stats: Record<string, number> = {};
    total.forEach((n, y) => n && (stats[`removed:${y}`] = gone[y] / n));
    return { data: keep, stats };
  },
  loss(ctx) {
    const { batch, tensors, tagger, config, rand } = ctx;
    const K = tagger.dims.tags;
    const gold = tagsOneHot(batch, K);
    const logp = tokenLogProbs(ctx);
    // 0 for padding and for the weak O tokens dropped at random this step.
    const present = new Float32Array(batch.B * batch.T);
    for (let p = 0; p < present.length; p++) {
      const b = Math.floor(p / batch.T);
      present[p] = batch.tags[p] < 0 ? 0 : batch.weak[b] && batch.tags[p] === 0 && rand() < config.dropO ? 0 : 1;
    }
    const kept = tf.tensor2d(present, [batch.B, batch.T]);
    const nr = ctx.prepared instanceof Float32Array ? tf.tensor2d(ctx.prepared, [batch.B, batch.T]) : tf.onesLike(kept);
    if (tagger.cfg.head !== 'twopart') return weightedMean(gce(logp, gold, config.q), tf.mul(kept, nr));
    const [B, T] = [batch.B, batch.T];
    const logO = tf.squeeze(tf.slice(logp, [0, 0, 0], [B, T, 1]), [2]);
    const typeScores = tf.slice(logp, [0, 0, 1], [B, T, K - 1]);
    const logEntity = tf.logSumExp(typeScores, 2);
    const entity = tf.sub(1, tf.squeeze(tf.slice(gold, [0, 0, 0], [B, T, 1]), [2]));
    const logBin = tf.add(tf.mul(entity, logEntity), tf.mul(tf.sub(1, entity), logO)) as tf.Tensor2D;
    const logType = tf.sum(tf.mul(tf.slice(gold, [0, 0, 1], [B, T, K - 1]), tf.sub(typeScores, tf.expandDims(logEntity, 2))), 2) as tf.Tensor2D;
    // An entity token's removal is from the type part; it stays an entity in the binary part.
    const binWeight = tf.mul(kept, tf.add(entity, tf.mul(tf.sub(1, entity), nr)));
    const typeWeight = tf.mul(tf.mul(tensors.mask, entity), nr);
    return tf.add(weightedMean(gceOfLabel(logBin, config.q), binWeight), weightedMean(gceOfLabel(logType, config.q), typeWeight)) as tf.Scalar;
  },
  heads: ['softmax', 'twopart'],
});

/**
 * Distillation to per-token target distributions (RoSTER's ensemble, Eq. 6, and self-training,
 * Eq. 9 without the augmented copy): KL(target ‖ model) averaged over tokens. Sentences without
 * targets fall back to their tags as one-hot targets.
 */
registerMethod({
  name: 'distill',
  title: 'Distillation: KL to soft targets (RoSTER ensemble and self-training)',
  schema: distillSchema,
  loss(ctx) {
    const { batch, tensors, tagger } = ctx;
    const K = tagger.dims.tags;
    const target = batch.soft ? tf.tensor3d(batch.soft, [batch.B, batch.T, K]) : tagsOneHot(batch, K);
    return weightedMean(klTokens(target, tokenLogProbs(ctx)), tensors.mask);
  },
  heads: ['softmax', 'twopart'],
});
