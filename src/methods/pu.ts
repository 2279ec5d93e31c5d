/**
 * PU learning with negative sampling (paper 003, Algorithm 1): exploratory training, the PU step
 * (the ⌈λ·m⌉ O-tagged tokens of smallest O-value taken out of the loss), then training from
 * scratch with the loss below. The loss is token level, for the softmax and CRF heads. The loss binds every non-O token, and, of the O tokens not removed by the PU step,
 * ⌈γ·n⌉ per sentence drawn anew at every step (each sentence is seen once an epoch, so this is the
 * paper's resampling each epoch); the other tokens are free: left out of the softmax loss, and
 * marginalized out of the CRF likelihood. With γ = 1 and nothing removed it is plain training,
 * which is how the exploratory stage runs. When synthetic masking remembers the hidden entities,
 * the mean O-value of true-O tokens and of hidden-entity tokens is recorded every epoch.
 */
import { crfPartialNll } from '../model/crf';
import { tagsOneHot } from '../model/features';
import { batchTensors } from '../model/tagger';
import * as tf from '../model/tf';
import { tokenNll, weightedMean } from './losses';
import type { LabeledSentence } from '../model/data';
import { predictEmissions } from '../model/train';
import type { Tagger } from '../model/tagger';
import { registerMethod, registerPipeline } from './registry';
import { sampleWithoutReplacement } from './negativeSampling';
import { puSchema } from './pu.def';
import { withMethod, type TrainSignals } from './stages';

/**
 * Algorithm 1. Lines 1-3: `explore` epochs of plain training (γ = 1), the O-values after each kept
 * for the diagnostics; line 4: the PU step on the explored model's O-values; lines 5-9: training
 * restarts from scratch with negative sampling, without the removed tokens' losses.
 */
registerPipeline({
  kind: 'pu',
  async run(ctx, pipeline) {
    const { cfg, feat, data } = ctx;
    const K = feat.tags.length;
    const oValueEpochs: Float32Array[][] = [];
    const oValuesOf = (em: readonly Float32Array[]) => data.train.map((s, i) => Float32Array.from(s.tags, (tag, t) => (tag === 0 ? em[i][t * K] : NaN)));
    const afterEpoch = async (tagger: Tagger) => void oValueEpochs.push(oValuesOf(await predictEmissions(tagger, feat, data.train)));
    const explore = await ctx.stage(
      'exploratory training',
      withMethod({ ...cfg, train: { ...cfg.train, epochs: pipeline.explore, patience: pipeline.explore + 1 } }, { name: 'pu', gamma: 1 }),
      data.train,
      undefined,
      { afterEpoch },
    );
    const emissions = await predictEmissions(explore.tagger, feat, data.train);
    explore.tagger.dispose();
    const { exclude, detection } = puRemoval(data.train, emissions, K, pipeline.lambda);
    const signals: TrainSignals = {
      oValue: oValuesOf(emissions),
      oValueEpochs: data.train.map((_, i) => oValueEpochs.map((e) => e[i])),
      puRemoved: data.train.map((s, i) => {
        const r = new Uint8Array(s.words.length);
        for (const t of exclude[i]) r[t] = 1;
        return r;
      }),
    };
    const main = await ctx.stage(
      'PU + negative sampling',
      cfg,
      data.train.map((s, i) => ({ ...s, exclude: exclude[i] })),
    );
    return ctx.finish(main, { metrics: { detection }, signals });
  },
});

/**
 * PU step: the O-tagged tokens by ascending O-value; the first ⌈λ·m⌉ are the likely unlabeled
 * entities. Returns them, and the detection curve against the hidden entities when known.
 */
export function puRemoval(
  sentences: readonly LabeledSentence[],
  emissions: readonly Float32Array[],
  K: number,
  lambda: number,
  curve: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5],
) {
  const oTokens: { s: number; t: number; o: number; hidden: boolean }[] = [];
  sentences.forEach((x, s) => x.tags.forEach((tag, t) => tag === 0 && oTokens.push({ s, t, o: emissions[s][t * K], hidden: (x.hidden?.[t] ?? 0) > 0 })));
  oTokens.sort((a, b) => a.o - b.o);
  const take = (l: number) => oTokens.slice(0, Math.ceil(l * oTokens.length));
  const exclude = sentences.map(() => [] as number[]);
  for (const x of take(lambda)) exclude[x.s].push(x.t);
  const hiddenTotal = oTokens.filter((x) => x.hidden).length;
  const detection = sentences.some((x) => x.hidden)
    ? curve.map((l) => {
        const removed = take(l);
        const hit = removed.filter((x) => x.hidden).length;
        return { lambda: l, removed: removed.length, precision: removed.length ? hit / removed.length : 0, recall: hiddenTotal ? hit / hiddenTotal : 0 };
      })
    : undefined;
  return { exclude, detection };
}

registerMethod({
  name: 'pu',
  title: 'PU learning + token-level negative sampling (paper 003)',
  schema: puSchema,
  heads: ['crf', 'softmax'],
  async prepare({ tagger, batch, config, rand }) {
    const { B, T } = batch;
    const bound = new Float32Array(B * T);
    batch.lengths.forEach((n, b) => {
      const free: number[] = [];
      for (let t = 0; t < n; t++) {
        const p = b * T + t;
        if (batch.tags[p] > 0) bound[p] = 1;
        else if (!batch.exclude?.[p]) free.push(p);
      }
      for (const i of sampleWithoutReplacement(free.length, Math.ceil(config.gamma * n), null, rand)) bound[free[i]] = 1;
    });
    const stats: Record<string, number> = {};
    if (batch.hiddenTags) {
      // O-values (the O tag's score) of O-tagged tokens: true O against hidden entities.
      const em = tf.tidy(() => tagger.emissions(batchTensors(batch, tagger.dims), false, 0));
      const data = (await em.data()) as Float32Array;
      em.dispose();
      const K = tagger.dims.tags;
      let [trueSum, trueN, hidSum, hidN] = [0, 0, 0, 0];
      batch.lengths.forEach((n, b) => {
        for (let t = 0; t < n; t++) {
          const p = b * T + t;
          if (batch.tags[p] !== 0) continue;
          if (batch.hiddenTags![p] > 0) (hidSum += data[p * K]), hidN++;
          else (trueSum += data[p * K]), trueN++;
        }
      });
      if (trueN) stats.oValueTrueO = trueSum / trueN;
      if (hidN) stats.oValueHidden = hidSum / hidN;
    }
    return { data: bound, stats };
  },
  loss({ tagger, batch, tensors, emissions, prepared }) {
    const bound = prepared as Float32Array;
    const K = tagger.dims.tags;
    const gold = tagsOneHot(batch, K);
    if (tagger.cfg.head === 'crf') {
      const free = tf.tensor3d(
        Float32Array.from({ length: batch.B * batch.T * K }, (_, i) => 1 - bound[Math.floor(i / K)]),
        [batch.B, batch.T, K],
      );
      return tf.mean(crfPartialNll(emissions, tf.minimum(1, tf.add(gold, free)) as tf.Tensor3D, tensors.mask, tagger.crf())) as tf.Scalar;
    }
    return weightedMean(tokenNll(tf.logSoftmax(emissions) as tf.Tensor3D, gold), tf.tensor2d(bound, [batch.B, batch.T]));
  },
});
