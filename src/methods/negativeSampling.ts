/**
 * Negative sampling for missing annotations, on the span classifier head: the loss covers the
 * labeled spans and ⌈λ·n⌉ spans per sentence drawn from the unlabeled ones (Li et al. 2021),
 * either uniformly or by the adaptive weighted distribution of "Rethinking negative sampling"
 * (paper 002, Eq. 3-5), with the model being trained as the oracle. Records per epoch the
 * missampling rate (Eq. 2, where synthetic masking remembers the hidden entities) and the mean
 * uncertainty of the sampled negatives.
 */
import type { z } from 'zod';
import { spanClasses } from '../model/tagger';
import { batchTensors } from '../model/tagger';
import { spanCrossEntropy, spanSlots, spanTargets } from '../model/spanHead';
import * as tf from '../model/tf';
import { registerMethod } from './registry';
import { negativeSamplingSchema } from './negativeSampling.def';

/**
 * k distinct items drawn without replacement with probabilities ∝ exp(score) (Gumbel top-k);
 * `scores` null draws uniformly.
 */
export function sampleWithoutReplacement(n: number, k: number, scores: ArrayLike<number> | null, rand: () => number): number[] {
  const keys = Array.from({ length: n }, (_, i) => {
    const u = Math.min(Math.max(rand(), 1e-12), 1 - 1e-12);
    return [(scores ? scores[i] : 0) - Math.log(-Math.log(u)), i] as const;
  });
  keys.sort((a, b) => b[0] - a[0]);
  return keys.slice(0, Math.min(k, n)).map(([, i]) => i);
}

/** Eq. 2: the share of sampled negatives that are unlabeled entities (0 when nothing is sampled). */
export function missamplingRate(sampled: readonly number[], hidden: ReadonlySet<number>): number {
  if (!sampled.length) return 0;
  return sampled.filter((s) => hidden.has(s)).length / sampled.length;
}

/**
 * Eq. 3-5 for one span's label distribution z (O first): v = z_O − max_l z_l, u = entropy,
 * r = u · (1 + v)^μ; the sampling score is r / T.
 */
export function weightedScore(z: ArrayLike<number>, mu: number, T: number): { v: number; u: number; score: number } {
  let max = 0;
  let u = 0;
  for (let l = 0; l < z.length; l++) {
    max = Math.max(max, z[l]);
    if (z[l] > 0) u -= z[l] * Math.log(z[l]);
  }
  const v = z[0] - max;
  return { v, u, score: (u * (1 + v) ** mu) / T };
}

/** The temperature schedule T = √(C − c) over epochs (C the budget, c the current), at least 1. */
export const temperature = (epochs: number, epoch: number): number => Math.max(1, Math.sqrt(epochs - epoch));

/**
 * Theorem 1 (paper 002): for a sentence of n tokens with m annotated and h unlabeled entities,
 * sampling k negatives uniformly without replacement from the n(n+1)/2 − m unannotated spans, the
 * exact probability that none is an unlabeled entity, and the theorem's lower bound
 * (1 − 2√n / (n(n−1)+2))^k, valid when m + h ≤ √n (entity sparsity).
 */
export function zeroMissamplingProbability(n: number, m: number, h: number, k: number): { exact: number; bound: number } {
  const total = (n * (n + 1)) / 2;
  let exact = 1;
  for (let i = 0; i < k; i++) exact *= 1 - h / (total - m - i);
  const bound = (1 - (2 * Math.sqrt(n)) / (n * (n - 1) + 2)) ** k;
  return { exact, bound };
}

registerMethod({
  name: 'negative-sampling',
  title: 'Negative sampling on the span head: uniform (Li et al. 2021) or weighted (paper 002)',
  schema: negativeSamplingSchema,
  heads: ['span'],
  /** The heat map's data: the last epoch's sampling distribution on the first short sentences (doc and offset index the training list). */
  async record({ tagger, feat, train, config, epochs }) {
    const few = train.filter((x) => x.words.length <= 40).slice(0, 20);
    const maps = await samplingMaps(tagger, feat, few, config, epochs, epochs);
    return { metrics: { sampling: maps.map((m, k) => ({ ...m, doc: few[k].doc, offset: few[k].offset })) } };
  },
  async prepare({ tagger, batch, config, epoch, epochs, step, rand }) {
    const L = tagger.cfg.spanMaxLength;
    const { S } = spanSlots(batch.T, L);
    const C = spanClasses(tagger.dims);
    const { labels, valid } = spanTargets(batch.tags, batch.lengths, batch.T, L);
    const hidden = batch.hiddenTags ? spanTargets(batch.hiddenTags, batch.lengths, batch.T, L).labels : null;
    // The oracle: the current model's span distributions, read outside the gradient. Uniform
    // sampling needs them only for the sampled negatives' uncertainty, a statistic averaged per
    // epoch, so it reads them every 10th step (each read is one more forward pass).
    let probs: Float32Array | null = null;
    if (config.sampling === 'weighted' || (hidden && step % 10 === 0)) {
      const t = tf.tidy(() => tf.softmax(tagger.emissions(batchTensors(batch, tagger.dims), false, 0)));
      probs = (await t.data()) as Float32Array;
      t.dispose();
    }
    const T = temperature(epochs, epoch);
    // The loss reads the labeled and the sampled slots only: the span MLP runs on those.
    const chosen: number[] = [];
    const rates: number[] = [];
    const uncertainties: number[] = [];
    batch.lengths.forEach((n, b) => {
      const candidates: number[] = [];
      for (let s = 0; s < S; s++) {
        const k = b * S + s;
        if (!valid[k]) continue;
        if (labels[k] > 0) chosen.push(k);
        else candidates.push(k);
      }
      const scores = config.sampling === 'weighted' ? candidates.map((k) => weightedScore(probs!.subarray(k * C, (k + 1) * C), config.mu, T).score) : null;
      const picked = sampleWithoutReplacement(candidates.length, Math.ceil(config.lambda * n), scores, rand).map((i) => candidates[i]);
      chosen.push(...picked);
      if (hidden) rates.push(missamplingRate(picked, new Set(candidates.filter((k) => hidden[k] > 0))));
      if (probs && picked.length)
        uncertainties.push(picked.reduce((a, k) => a + weightedScore(probs!.subarray(k * C, (k + 1) * C), 1, 1).u, 0) / picked.length);
    });
    const stats: Record<string, number> = {};
    if (rates.length) stats.missamplingRate = rates.reduce((a, b) => a + b, 0) / rates.length;
    if (uncertainties.length) stats.sampledUncertainty = uncertainties.reduce((a, b) => a + b, 0) / uncertainties.length;
    const slots = Int32Array.from(chosen).sort();
    return { data: { slots, labels: slots.map((k) => labels[k]) }, stats };
  },
  emissions({ tagger, tensors, step, prepared }) {
    return tf.expandDims(tagger.spanEmissionsAt(tensors, (prepared as { slots: Int32Array }).slots, true, step), 0) as tf.Tensor3D;
  },
  loss({ emissions, prepared }) {
    const { slots, labels } = prepared as { slots: Int32Array; labels: Int32Array };
    return spanCrossEntropy(emissions, labels, new Float32Array(slots.length).fill(1));
  },
});

export interface SamplingMap {
  /** Index of the sentence in the list given. */
  sentence: number;
  words: string[];
  /** Per unlabeled span the probability of one draw picking it; labeled spans are always in the loss. */
  cells: { start: number; end: number; p: number }[];
  labeled: { start: number; end: number }[];
}

/**
 * The sampling distribution over the unlabeled spans (i, j) of a few sentences, as the method
 * would draw at `epoch` of `epochs` with the given model as the oracle: softmax(r / T) for the
 * weighted sampler, uniform otherwise (the diagnostics' heat map).
 */
export async function samplingMaps(
  tagger: import('../model/tagger').Tagger,
  feat: import('../model/features').Featurizer,
  sentences: readonly { words: string[]; tags: number[] }[],
  config: z.infer<typeof negativeSamplingSchema>,
  epoch: number,
  epochs: number,
): Promise<SamplingMap[]> {
  if (!sentences.length) return [];
  const { makeBatch } = await import('../model/features');
  const batch = makeBatch(feat, sentences);
  const L = tagger.cfg.spanMaxLength;
  const { S, starts, ends } = spanSlots(batch.T, L);
  const C = spanClasses(tagger.dims);
  const { labels, valid } = spanTargets(batch.tags, batch.lengths, batch.T, L);
  const t = tf.tidy(() => tf.softmax(tagger.emissions(batchTensors(batch, tagger.dims), false, 0)));
  const probs = (await t.data()) as Float32Array;
  t.dispose();
  const T = temperature(epochs, epoch);
  return sentences.map((s, b) => {
    const cand: number[] = [];
    const labeled: { start: number; end: number }[] = [];
    for (let k = 0; k < S; k++) {
      const i = b * S + k;
      if (!valid[i]) continue;
      if (labels[i] > 0) labeled.push({ start: starts[k], end: ends[k] });
      else cand.push(k);
    }
    const scores = cand.map((k) =>
      config.sampling === 'weighted' ? weightedScore(probs.subarray((b * S + k) * C, (b * S + k + 1) * C), config.mu, T).score : 0,
    );
    const m = Math.max(...scores, 0);
    const e = scores.map((x) => Math.exp(x - m));
    const z = e.reduce((a, x) => a + x, 0) || 1;
    return { sentence: b, words: s.words, cells: cand.map((k, j) => ({ start: starts[k], end: ends[k], p: e[j] / z })), labeled };
  });
}
