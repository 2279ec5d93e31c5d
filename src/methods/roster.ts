/**
 * RoSTER (Meng et al. 2021): noise-robust training on the distant labels (GCE, Eq. 3, with
 * noisy-label removal, Eq. 5, and random dropping of weak O tokens, Appendix C), an ensemble of K
 * such models distilled into one (Eq. 6), then rounds of self-training on sharpened soft labels
 * (Eq. 8-9), each on the original sentences and on copies augmented by the studio's own language
 * model (Eq. 7). With `unlabeled` the rounds also self-train on that many sentences of the
 * project's unlabeled text (the paper's rounds use the training text only).
 */
import { tagsOneHot } from '../model/features';
import type { LanguageModel } from '../model/lm';
import { batchTensors, type Weights } from '../model/tagger';
import * as tf from '../model/tf';
import { predictProbs } from '../model/train';
import { gce, gceOfLabel, klTokens, sharpen, weightedMean } from './losses';
import { registerMethod, registerPipeline } from './registry';
import { distillSchema, rosterSchema } from './roster.def';
import { type StageRun, type TrainSignals, unlabeledPool, withMethod } from './stages';
import { tokenLogProbs } from './weak';

registerPipeline({
  kind: 'roster',
  async run(ctx, pipeline) {
    const { cfg, feat, data } = ctx;
    const K = feat.tags.length;
    let avg: Float32Array[] | null = null;
    let last: StageRun | null = null;
    const signals: TrainSignals = {};
    const tau = cfg.method.name === 'roster' ? rosterSchema.parse(cfg.method).tau : 0;
    // With keepBest, the best model on dev among every stage's: its weights, taken when it is found.
    let best: { f1: number; stage: string; dev: StageRun['bestDev']; weights: Weights } | null = null;
    // Whether the stage set a new best (always true without keepBest: nothing is compared).
    const consider = async (r: StageRun, stage: string): Promise<boolean> => {
      if (!pipeline.keepBest) return true;
      const f1 = r.bestDev?.overall.f1 ?? 0;
      if (best && f1 <= best.f1) return false;
      best = { f1, stage, dev: r.bestDev, weights: await r.tagger.getWeights() };
      return true;
    };
    // With stopEarly, the first stage after the ensemble that does not beat the best so far ends the
    // pipeline: the later stages learn from its predictions.
    const stop = (stage: string) => {
      const b = best as { f1: number; stage: string } | null;
      ctx.hooks.onStage?.(`${stage} did not beat ${b?.stage} on dev (F1 ${(100 * (b?.f1 ?? 0)).toFixed(2)}): the pipeline stops here (stopEarly)`);
    };
    // K noise-robust models (Eq. 3, 5), each with its own seed (pipeline.ensembleSeeds).
    for (let k = 0; k < pipeline.models; k++) {
      const r = await ctx.stage(
        `noise-robust model ${k + 1}`,
        { ...cfg, train: { ...cfg.train, seed: cfg.train.seed + (pipeline.ensembleSeeds === 'spread' ? 1000 * k : k) } },
        data.train,
        undefined,
        {},
        `noise-robust model ${k + 1} of ${pipeline.models}`,
      );
      await consider(r, `noise-robust model ${k + 1}`);
      const probs = await predictProbs(r.tagger, feat, data.train);
      // The weak labels the first model's threshold would remove, for the review queue.
      if (k === 0 && tau > 0)
        signals.rosterRemoved = rosterRemoval(
          data.train.map((s) => s.tags),
          probs,
          data.train.map((s) => !!s.weak),
          K,
          tau,
          r.tagger.cfg.head === 'twopart',
        );
      avg = avg ? avg.map((a, i) => a.map((v, j) => v + probs[i][j])) : probs;
      if (pipeline.models === 1) last = r;
      else r.tagger.dispose();
    }
    let current = last;
    // The rounds to run: none once distillation stops the pipeline.
    let rounds = pipeline.rounds;
    if (pipeline.models > 1) {
      // Eq. 6: one model distilled from the ensemble's average prediction.
      const targets = avg!.map((a) => a.map((v) => v / pipeline.models));
      current = await ctx.stage(
        'ensemble distillation',
        withMethod(cfg, { name: 'distill' }),
        data.train.map((s, i) => ({ ...s, soft: targets[i] })),
      );
      if (!(await consider(current, 'ensemble distillation')) && pipeline.stopEarly) {
        stop('ensemble distillation');
        rounds = 0;
      }
    }
    let lm: LanguageModel | null = null;
    if (rounds > 0 && pipeline.augmentRate > 0) {
      // Eq. 7's masked language model: the project's pre-trained encoder where the run has one,
      // else the studio's own, trained on the training text.
      lm = ctx.projectLanguageModel("language model for augmentation (the project encoder's)");
      if (!lm && pipeline.lm.epochs > 0)
        lm = await ctx.languageModel('language model for augmentation', 'language model for augmentation', data.train, pipeline.lm);
    }
    // Self-training rounds (Eq. 8-9), each from the model the previous one ended with, on the
    // training text and the unlabeled text of pipeline.unlabeled.
    const pool = unlabeledPool(data, pipeline.unlabeled);
    const text = [...data.train, ...pool];
    if (rounds > 0 && pool.length) ctx.hooks.onStage?.(`self-training on the training text and ${pool.length} unlabeled sentences`);
    for (let round = 1; round <= rounds; round++) {
      const probs = await predictProbs(current!.tagger, feat, text);
      const targets = selfTrainingTargets(probs, K, pipeline.entityThreshold);
      const w = await current!.tagger.getWeights();
      current!.tagger.dispose();
      const stCfg = withMethod({ ...cfg, train: { ...cfg.train, epochs: pipeline.roundEpochs, lr: pipeline.roundLr } }, { name: 'distill' });
      const original = text.map((s, i) => ({ ...s, soft: targets[i] }));
      // Eq. 9: the same targets on the original and on an augmented copy of each sentence.
      const augmented = lm ? await lm.augment(original, pipeline.augmentRate, cfg.train.seed * 1_009 + round) : [];
      const name = `self-training round ${round}${lm ? ' (with augmented copies)' : ''}`;
      current = await ctx.stage(name, stCfg, [...original, ...augmented], w, {}, name.replace(`round ${round}`, `round ${round} of ${pipeline.rounds}`));
      if (!(await consider(current, `self-training round ${round}`)) && pipeline.stopEarly && round < rounds) {
        stop(`self-training round ${round}`);
        break;
      }
    }
    if (lm) {
      lm.dispose();
      lm.tagger.dispose();
    }
    const kept = best as { f1: number; stage: string; dev: StageRun['bestDev']; weights: Weights } | null;
    if (kept && kept.f1 > (current!.bestDev?.overall.f1 ?? 0)) {
      ctx.hooks.onStage?.(`the best model on dev (${kept.stage}, F1 ${(100 * kept.f1).toFixed(2)}) came before the last stage: it is the run's`);
      current!.tagger.setWeights(kept.weights);
      return ctx.finish({ ...current!, bestDev: kept.dev }, { signals, keptStage: kept.stage });
    }
    return ctx.finish(current!, { signals });
  },
});

/**
 * RoSTER's self-training targets (Eq. 8) over IO tags (O first). For a token the model gives
 * P(entity) ≥ `entityThreshold`: P(O) kept as the model has it (the entity/non-entity part
 * "maintains its predictions"), the entity mass split by the sharpened type distribution, whose
 * soft frequencies g_j run over these tokens only, as in the authors' code. Any other token keeps
 * the model's own distribution (no pull on its type).
 */
export function selfTrainingTargets(probs: readonly Float32Array[], K: number, entityThreshold = 0.8): Float32Array[] {
  const C = K - 1;
  const confident: number[] = [];
  const types: number[] = [];
  probs.forEach((p, s) => {
    for (let t = 0; t < p.length / K; t++) {
      const ent = 1 - p[t * K];
      if (ent < entityThreshold || ent <= 0) continue;
      confident.push(s, t);
      for (let j = 0; j < C; j++) types.push(p[t * K + 1 + j] / ent);
    }
  });
  const sharp = sharpen(Float32Array.from(types), confident.length / 2, C);
  const out = probs.map((p) => Float32Array.from(p));
  for (let i = 0; i < confident.length / 2; i++) {
    const [s, t] = [confident[2 * i], confident[2 * i + 1]];
    const pO = probs[s][t * K];
    for (let j = 0; j < C; j++) out[s][t * K + 1 + j] = (1 - pO) * sharp[i * C + j];
  }
  return out;
}

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

/**
 * RoSTER's noisy-label removal (Eq. 5 with Appendix C's exemption) over a set of sentences: a weak
 * token is removed when the model gives its weak label a probability of at most τ, unless it is of
 * an entity class of which more than 90 % of the weak tokens fall under τ. With the two-part head
 * (`twoPart`, O first) each label is judged by the part of the head that learns it, as the
 * authors' code does: a weak O token by P(non-entity), and it then leaves the entity/non-entity
 * loss; a weak entity token by P(type | entity), and it then leaves the type loss only (it stays an
 * entity). probs: the joint [length, K] per sentence; strong sentences get null.
 */
export function rosterRemoval(
  tags: readonly (readonly number[])[],
  probs: readonly Float32Array[],
  weak: readonly boolean[],
  K: number,
  tau: number,
  twoPart = false,
): (Uint8Array | null)[] {
  const judged = (p: Float32Array, t: number, y: number): number =>
    !twoPart ? p[t * K + y] : y === 0 ? p[t * K] : p[t * K + y] / Math.max(1 - p[t * K], 1e-12);
  const under = new Float64Array(K);
  const total = new Float64Array(K);
  tags.forEach((ts, s) => {
    if (!weak[s]) return;
    ts.forEach((y, t) => {
      if (y < 0) return;
      total[y]++;
      if (judged(probs[s], t, y) <= tau) under[y]++;
    });
  });
  const exempt = Array.from(total, (n, y) => y > 0 && n > 0 && under[y] / n > 0.9);
  return tags.map((ts, s) => {
    if (!weak[s]) return null;
    const out = new Uint8Array(ts.length);
    ts.forEach((y, t) => {
      if (y >= 0 && !exempt[y] && judged(probs[s], t, y) <= tau) out[t] = 1;
    });
    return out;
  });
}
