/**
 * PU learning with negative sampling (paper 003, Algorithm 1), token level, for the softmax and
 * CRF heads. The loss binds every non-O token, and, of the O tokens not removed by the PU step,
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
import { registerMethod } from './registry';
import { sampleWithoutReplacement } from './negativeSampling';
import { puSchema } from './schemas';

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
