/**
 * BOND (Liang, Yu, Jiang, Er, Wang, Zhao and Zhang, KDD 2020): open-domain NER from distant labels
 * in two stages.
 * - Stage 1: a teacher trained on the distant labels, stopped early: at its best epoch on dev,
 *   before it fits the labels' misses and errors.
 * - Stage 2: self-training. The teacher labels the training text with soft pseudo-labels,
 *   sharpened by each class's soft frequency (§3.2), or hard ones (its most probable tag, the
 *   paper's BOND hard); the tokens whose largest soft label reaches
 *   ε teach the student, which starts from the teacher, by cross entropy to those soft labels
 *   (Eq. 5, with the high-confidence selection of §3.3); every `roundEpochs` epochs the student
 *   becomes the teacher (the paper refreshes it every T3 steps). With `unlabeled` the teacher also
 *   labels that many sentences of the project's unlabeled text each round, and the student learns
 *   from them too: Stage 2 reads no distant label, so any text of the domain can teach.
 * The paper's teacher is RoBERTa; here it is the studio's tagger with a softmax (or two-part) head,
 * which gives the per-token probabilities soft labels need.
 */
import { tagsOneHot } from '../model/features';
import type { Weights } from '../model/tagger';
import * as tf from '../model/tf';
import { predictProbs } from '../model/train';
import { klTokens, sharpen, weightedMean } from './losses';
import { registerMethod, registerPipeline } from './registry';
import { bondSchema } from './bond.def';
import { unlabeledPool, withMethod } from './stages';
import { tokenLogProbs } from './weak';

/**
 * §3.2's soft labels: ỹ_mj = (f_mj² / p_j) / Σ_j' (f_mj'² / p_j'), with p_j = Σ_m f_mj the soft
 * frequency of class j over every token of the training text (the paper takes it over a batch).
 * `probs` are the teacher's per-token distributions [n·K] per sentence.
 */
export function bondSoftLabels(probs: readonly Float32Array[], K: number): Float32Array[] {
  const n = probs.reduce((a, p) => a + p.length / K, 0);
  const flat = new Float32Array(n * K);
  let at = 0;
  for (const p of probs) {
    flat.set(p, at);
    at += p.length;
  }
  const sharp = sharpen(flat, n, K);
  const out: Float32Array[] = [];
  at = 0;
  for (const p of probs) {
    out.push(sharp.slice(at, at + p.length));
    at += p.length;
  }
  return out;
}

/** BOND hard's pseudo-labels: each token's most probable tag, one-hot (no sharpening, no reweighting). */
export function bondHardLabels(probs: readonly Float32Array[], K: number): Float32Array[] {
  return probs.map((p) => {
    const out = new Float32Array(p.length);
    for (let t = 0; t < p.length / K; t++) {
      let best = 0;
      for (let j = 1; j < K; j++) if (p[t * K + j] > p[t * K + best]) best = j;
      out[t * K + best] = 1;
    }
    return out;
  });
}

/**
 * Eq. 5 on the high-confidence tokens (§3.3): cross entropy to the soft labels, averaged over the
 * tokens whose largest soft label reaches ε. Computed as KL(ỹ ‖ f), which differs from the cross
 * entropy by ỹ's entropy, a constant of the parameters: the same gradients. A sentence without
 * soft labels (none in a BOND run) falls back to its tags as one-hot targets.
 */
registerMethod({
  name: 'bond',
  title: 'BOND self-training: cross entropy to confident soft pseudo-labels',
  schema: bondSchema,
  heads: ['softmax', 'twopart'],
  loss(ctx) {
    const { batch, tensors, tagger, config } = ctx;
    const K = tagger.dims.tags;
    const target = batch.soft ? tf.tensor3d(batch.soft, [batch.B, batch.T, K]) : tagsOneHot(batch, K);
    const confident = tf.mul(tensors.mask, tf.cast(tf.greaterEqual(tf.max(target, 2), config.threshold), 'float32'));
    return weightedMean(klTokens(target, tokenLogProbs(ctx)), confident as tf.Tensor2D);
  },
});

registerPipeline({
  kind: 'bond',
  async run(ctx, pipeline) {
    const { cfg, feat, data } = ctx;
    if (cfg.model.head !== 'softmax' && cfg.model.head !== 'twopart')
      throw new Error(`BOND's soft pseudo-labels need per-token probabilities: use the softmax or two-part head, not "${cfg.model.head}"`);
    const K = feat.tags.length;
    // Stage 1: the teacher, early-stopped on dev.
    let current = await ctx.stage('teacher (distant labels, early-stopped)', { ...cfg, train: { ...cfg.train, epochs: pipeline.teacherEpochs } }, data.train);
    // Stage 2: each round the teacher (the model so far) labels the text anew and the student goes on from it.
    const stCfg = withMethod(
      { ...cfg, train: { ...cfg.train, epochs: pipeline.roundEpochs, lr: pipeline.roundLr } },
      { name: 'bond', threshold: pipeline.threshold },
    );
    // The run keeps the best model on dev among the teacher and every round's student (weights
    // null: the current model).
    let best: { f1: number; dev: typeof current.bestDev; weights: Weights | null } = {
      f1: current.bestDev?.overall.f1 ?? 0,
      dev: current.bestDev,
      weights: null,
    };
    // The training text, and the unlabeled text the teacher labels with it (pipeline.unlabeled).
    const pool = unlabeledPool(data, pipeline.unlabeled);
    const text = [...data.train, ...pool];
    for (let round = 1; round <= pipeline.rounds; round++) {
      // Soft labels are sharpened by each class's frequency over all of the text the teacher labels.
      const probs = await predictProbs(current.tagger, feat, text);
      const soft = pipeline.pseudoLabels === 'hard' ? bondHardLabels(probs, K) : bondSoftLabels(probs, K);
      let tokens = 0;
      let confident = 0;
      for (const s of soft) for (let t = 0; t < s.length / K; t++, tokens++) if (Math.max(...s.subarray(t * K, (t + 1) * K)) >= pipeline.threshold) confident++;
      const of = pool.length ? ` (the training text and ${pool.length} unlabeled sentences)` : '';
      ctx.hooks.onStage?.(`self-training round ${round} of ${pipeline.rounds}: ${confident} of ${tokens} tokens${of} confident enough to teach`);
      const teacher = await current.tagger.getWeights();
      if (!best.weights) best.weights = teacher;
      current.tagger.dispose();
      current = await ctx.stage(
        `self-training round ${round}`,
        stCfg,
        text.map((s, i) => ({ ...s, soft: soft[i] })),
        teacher,
        {},
        `self-training round ${round} of ${pipeline.rounds}`,
      );
      const f1 = current.bestDev?.overall.f1 ?? 0;
      if (f1 > best.f1) best = { f1, dev: current.bestDev, weights: null };
    }
    if (best.weights) {
      ctx.hooks.onStage?.(`the best model on dev (F1 ${(100 * best.f1).toFixed(2)}) came before the last round: it is the run's`);
      current.tagger.setWeights(best.weights);
      return ctx.finish({ ...current, bestDev: best.dev });
    }
    return ctx.finish(current);
  },
});
