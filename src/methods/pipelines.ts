/**
 * Multi-stage methods built from the shared training loop: self-training (SST) and NEEDLE's
 * stages (initial model, weak label completion, confidence by histogram binning, noise-aware
 * continual training, final fine-tuning) with their ablations. Runs the same in Node and in the
 * training worker.
 */
import type { SpanScores } from '../core/metrics';
import type { RunConfig } from '../core/runConfig';
import type { LabeledSentence } from '../model/data';
import type { Featurizer } from '../model/features';
import { type LanguageModel, newLanguageModel } from '../model/lm';
import type { Tagger, Weights } from '../model/tagger';
import { chooseOShift, predict, predictEmissions, predictProbs, trainStage, type RunStore, type TrainHooks } from '../model/train';
import { sharpen } from './losses';
import { getMethod } from './index';
import { rosterSchema } from './schemas';
import { rosterRemoval } from '../core/reviewSignals';

export { pipelineSchema, type Pipeline } from '../core/runConfig';
import type { Pipeline } from '../core/runConfig';

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

export interface PipelineData {
  train: LabeledSentence[];
  dev: LabeledSentence[];
  /** More unlabeled text for the language model (NEEDLE Stage I), beside the training sentences. */
  unlabeled?: { words: string[] }[];
  /** The project's pre-trained encoder (model.pretrain): every stage that would start from fresh weights starts from it. */
  encoder?: Weights;
}

export interface StageRecord {
  stage: string;
  devF1: number;
  epochs: number;
  seconds: number;
  trainSentences: number;
  /** Per epoch: loss, dev F1 and the method's own statistics (missampling rate, ...). */
  history?: { epoch: number; loss: number; devF1: number; methodStats?: Record<string, number> }[];
}

export interface PipelineResult {
  tagger: Tagger;
  dev: SpanScores | null;
  stages: StageRecord[];
  seconds: number;
  tokensPerSecond: number;
  /** NEEDLE: the confidence given to each weak sentence (for the calibration view). */
  confidences?: number[];
  /** NEEDLE: the histogram of dev Viterbi scores against sequence accuracy. */
  calibration?: { lo: number; hi: number; n: number; accuracy: number }[];
  /**
   * PU: where synthetic masking remembers the hidden entities, the precision and recall of taking
   * the λ·m smallest O-values as unlabeled entities, for several λ (paper 003, Figure 3).
   */
  detection?: { lambda: number; removed: number; precision: number; recall: number }[];
  /** What the method learned about each training sentence's weak labels (the review queue's signals), aligned with data.train. */
  signals?: TrainSignals;
  /** The O shift the final model decodes with (Tagger.oShift), chosen on dev unless configured. */
  oShift?: number;
}

export interface TrainSignals {
  rosterRemoved?: (Uint8Array | null)[];
  oValue?: Float32Array[];
  /** Per sentence, its O-values after each exploratory epoch. */
  oValueEpochs?: Float32Array[][];
  puRemoved?: Uint8Array[];
  /** Per sentence, token → the entity tag weak label completion gave a weak-O token. */
  completion?: (Record<number, number> | null)[];
  /** Per sentence, the initial model's tag ids on the weak sentences (SST's pseudo-labels; NEEDLE completes from them). */
  pseudo?: (number[] | null)[];
}

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

const withMethod = (cfg: RunConfig, method: Record<string, unknown> & { name: string }): RunConfig => ({ ...cfg, method });

/**
 * Histogram binning (Zadrozny and Elkan 2001) as NEEDLE's Appendix A uses it: dev sentences in
 * equal-count bins of their Viterbi score, each bin's confidence the share of its sentences whose
 * predicted tag sequence is exactly right.
 */
export function histogramBins(scores: readonly number[], correct: readonly boolean[], bins: number): { lo: number; hi: number; n: number; accuracy: number }[] {
  const order = scores.map((s, k) => [s, correct[k]] as const).sort((a, b) => a[0] - b[0]);
  const out: { lo: number; hi: number; n: number; accuracy: number }[] = [];
  const size = Math.max(1, Math.ceil(order.length / bins));
  for (let i = 0; i < order.length; i += size) {
    const part = order.slice(i, i + size);
    out.push({ lo: part[0][0], hi: part[part.length - 1][0], n: part.length, accuracy: part.filter(([, c]) => c).length / part.length });
  }
  return out;
}

/** The confidence of a score: its bin's accuracy (below the first bin, the first; above the last, the last). */
export function binConfidence(hist: readonly { lo: number; hi: number; accuracy: number }[], score: number): number {
  for (const b of hist) if (score <= b.hi) return b.accuracy;
  return hist[hist.length - 1]?.accuracy ?? 0;
}

/**
 * NEEDLE's confidence of a completed weak sequence (Appendix A): matched tokens (non-O in the
 * weak labels) are trusted fully, completed ones as much as the model's binned confidence,
 * weighted by their shares, then capped.
 */
export function completedConfidence(weakTags: readonly number[], modelConfidence: number, cap: number): number {
  const matched = weakTags.filter((t) => t !== 0).length;
  const n = weakTags.length || 1;
  return Math.min(cap, (matched / n) * 1 + ((n - matched) / n) * modelConfidence);
}

/** A language model on a fresh tagger of the config's encoder, trained on raw sentences (or restored from the store under `key`). */
async function trainLm(
  cfg: RunConfig,
  feat: Featurizer,
  text: readonly { words: readonly string[] }[],
  o: { epochs: number; vocab: number },
  hooks: TrainHooks,
  store: RunStore | undefined,
  key: string,
): Promise<{ lm: LanguageModel; losses: number[]; seconds: number }> {
  const t0 = performance.now();
  const lm = newLanguageModel({ ...cfg.model, head: cfg.model.head === 'span' ? 'softmax' : cfg.model.head }, feat, text, o.vocab, cfg.train.seed);
  const saved = (await store?.load(key)) as { weights: { encoder: Weights; heads: Weights }; losses: number[]; seconds: number } | undefined;
  if (saved) {
    lm.setWeights(saved.weights);
    hooks.onStage?.(`${key}: restored from the run's store`);
    return { lm, losses: saved.losses, seconds: saved.seconds };
  }
  const losses = await lm.pretrain(text, {
    epochs: o.epochs,
    batchSize: cfg.train.batchSize,
    lr: cfg.train.lr,
    clip: cfg.train.clip,
    seed: cfg.train.seed,
    onEpoch: (epoch, loss) => hooks.onStage?.(`${key}: epoch ${epoch} of ${o.epochs} done, loss ${loss.toFixed(3)}`),
    onProgress: (epoch, batch, batches, loss) =>
      hooks.onStage?.(`${key}: epoch ${epoch} of ${o.epochs}, batch ${batch} of ${batches}, loss ${loss.toFixed(3)}`),
  });
  const seconds = (performance.now() - t0) / 1000;
  await store?.save(key, { weights: await lm.getWeights(), losses, seconds });
  return { lm, losses, seconds };
}

/** A language model's losses as a stage's history (it has no dev F1). */
const lmHistory = (losses: readonly number[]) => losses.map((loss, k) => ({ epoch: k + 1, loss, devF1: 0 }));

/** A stage was cancelled or stopped by the user: the pipeline stops there with no model. */
export class PipelineStopped extends Error {
  constructor(
    readonly how: 'cancelled' | 'stopped',
    readonly stage: string,
  ) {
    super(`${how} during ${stage}`);
  }
}

/**
 * A method's stages, one after another. With a `store`, each finished stage is kept there and the
 * running one checkpointed every epoch, so that the same run started again restores the finished
 * stages and resumes the running one where it stopped, to the same result as an uninterrupted
 * run (a stage with per-epoch records, PU's exploratory training, runs again whole).
 */
export async function runPipeline(
  pipeline: Pipeline,
  cfg: RunConfig,
  feat: Featurizer,
  data: PipelineData,
  hooks: TrainHooks = {},
  store?: RunStore,
): Promise<PipelineResult> {
  const r = await runStages(pipeline, cfg, feat, data, hooks, store);
  return { ...r, ...(await finalOShift(r.tagger, cfg, feat, data.dev, hooks)) };
}

/**
 * The last step of every run: the O shift chosen on dev (train.oShift "dev"), or the configured
 * one, set on the final model; the run's dev scores are then the shifted model's.
 */
export async function finalOShift(
  tagger: Tagger,
  cfg: RunConfig,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  hooks: Pick<TrainHooks, 'onStage'> = {},
): Promise<{ oShift: number; dev?: SpanScores }> {
  if (cfg.train.oShift !== 'dev') {
    tagger.oShift = cfg.train.oShift;
    return { oShift: tagger.oShift };
  }
  const chosen = await chooseOShift(tagger, feat, dev);
  hooks.onStage?.(
    `O shift chosen on dev: ${chosen.shift} (dev F1 ${(100 * chosen.dev.overall.f1).toFixed(2)}; at 0: ${(100 * (chosen.byShift.find((b) => b.shift === 0)?.f1 ?? chosen.dev.overall.f1)).toFixed(2)})`,
  );
  return { oShift: chosen.shift, dev: chosen.dev };
}

async function runStages(
  pipeline: Pipeline,
  cfg: RunConfig,
  feat: Featurizer,
  data: PipelineData,
  hooks: TrainHooks = {},
  store?: RunStore,
): Promise<PipelineResult> {
  const t0 = performance.now();
  const stages: StageRecord[] = [];
  let tokens = 0;
  let trainMs = 0;
  let stageCount = 0;
  /** `shown`: the stage's name in progress messages (its store key keeps `name`, so older runs resume). */
  const stage = async (name: string, c: RunConfig, train: LabeledSentence[], init?: Weights, extra: Pick<TrainHooks, 'afterEpoch'> = {}, shown = name) => {
    const id = `${stageCount++} ${name}`;
    hooks.onStage?.(`${shown}: training on ${train.length} sentences, up to ${c.train.epochs} epochs`);
    const stageHooks: TrainHooks = { ...hooks, ...extra, onEpoch: (e) => hooks.onEpoch?.({ ...e, stage: shown, epochs: c.train.epochs }) };
    // A stage with per-epoch records (PU's exploratory training) runs again whole: they are not kept.
    const r = await trainStage(
      getMethod(c.method.name),
      extra.afterEpoch ? undefined : store,
      id,
      c,
      feat,
      { train, dev: data.dev },
      stageHooks,
      init,
      data.encoder,
    );
    if (r.stopped === 'cancelled' || r.stopped === 'stopped') {
      r.tagger.dispose();
      throw new PipelineStopped(r.stopped, name);
    }
    stages.push({
      stage: name,
      devF1: r.bestDev?.overall.f1 ?? 0,
      epochs: r.history.length,
      seconds: r.seconds,
      trainSentences: r.trainSentences,
      history: r.history.map((h) => ({ epoch: h.epoch, loss: h.loss, devF1: h.dev.overall.f1, ...(h.methodStats ? { methodStats: h.methodStats } : {}) })),
    });
    tokens += r.trainTokens * r.history.length;
    trainMs += ((r.trainTokens * r.history.length) / Math.max(r.tokensPerSecond, 1e-9)) * 1000;
    return r;
  };
  const strong = data.train.filter((s) => !s.weak);
  const weak = data.train.filter((s) => s.weak);
  const finish = (r: Awaited<ReturnType<typeof stage>>, extra: Partial<PipelineResult> = {}): PipelineResult => ({
    tagger: r.tagger,
    dev: r.bestDev,
    stages,
    seconds: (performance.now() - t0) / 1000,
    tokensPerSecond: tokens / Math.max(trainMs / 1000, 1e-9),
    ...extra,
  });

  if (pipeline.kind === 'single') return finish(await stage(cfg.method.name, cfg, data.train));

  if (pipeline.kind === 'pu') {
    const K = feat.tags.length;
    // The O-values after every exploratory epoch (the diagnostics let one choose the epoch to cut at).
    const oValueEpochs: Float32Array[][] = [];
    const oValuesOf = (em: readonly Float32Array[]) => data.train.map((s, i) => Float32Array.from(s.tags, (tag, t) => (tag === 0 ? em[i][t * K] : NaN)));
    const afterEpoch = async (tagger: Tagger) => void oValueEpochs.push(oValuesOf(await predictEmissions(tagger, feat, data.train)));
    const explore = await stage(
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
    // Training restarts from scratch without the removed tokens' losses.
    const main = await stage(
      'PU + negative sampling',
      cfg,
      data.train.map((s, i) => ({ ...s, exclude: exclude[i] })),
    );
    return finish(main, { detection, signals });
  }

  if (pipeline.kind === 'roster') {
    const K = feat.tags.length;
    let avg: Float32Array[] | null = null;
    let last: Awaited<ReturnType<typeof stage>> | null = null;
    const signals: TrainSignals = {};
    const tau = cfg.method.name === 'roster' ? rosterSchema.parse(cfg.method).tau : 0;
    for (let k = 0; k < pipeline.models; k++) {
      const r = await stage(
        `noise-robust model ${k + 1}`,
        { ...cfg, train: { ...cfg.train, seed: cfg.train.seed + k } },
        data.train,
        undefined,
        {},
        `noise-robust model ${k + 1} of ${pipeline.models}`,
      );
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
    if (pipeline.models > 1) {
      const targets = avg!.map((a) => a.map((v) => v / pipeline.models));
      current = await stage(
        'ensemble distillation',
        withMethod(cfg, { name: 'distill' }),
        data.train.map((s, i) => ({ ...s, soft: targets[i] })),
      );
    }
    let lm: LanguageModel | null = null;
    if (pipeline.rounds > 0 && pipeline.augmentRate > 0 && pipeline.lm.epochs > 0) {
      const trained = await trainLm(cfg, feat, data.train, pipeline.lm, hooks, store, 'language model for augmentation');
      lm = trained.lm;
      stages.push({
        stage: 'language model for augmentation',
        devF1: 0,
        epochs: trained.losses.length,
        seconds: trained.seconds,
        trainSentences: data.train.length,
        history: lmHistory(trained.losses),
      });
    }
    for (let round = 1; round <= pipeline.rounds; round++) {
      const probs = await predictProbs(current!.tagger, feat, data.train);
      const targets = selfTrainingTargets(probs, K, pipeline.entityThreshold);
      const w = await current!.tagger.getWeights();
      current!.tagger.dispose();
      const stCfg = withMethod({ ...cfg, train: { ...cfg.train, epochs: pipeline.roundEpochs, lr: pipeline.roundLr } }, { name: 'distill' });
      const original = data.train.map((s, i) => ({ ...s, soft: targets[i] }));
      // Eq. 9: the same targets on the original and on an augmented copy of each sentence.
      const augmented = lm ? await lm.augment(original, pipeline.augmentRate, cfg.train.seed * 1_009 + round) : [];
      const name = `self-training round ${round}${lm ? ' (with augmented copies)' : ''}`;
      current = await stage(name, stCfg, [...original, ...augmented], w, {}, name.replace(`round ${round}`, `round ${round} of ${pipeline.rounds}`));
    }
    if (lm) {
      lm.dispose();
      lm.tagger.dispose();
    }
    return finish(current!, { signals });
  }

  if (pipeline.kind === 'decoupled') throw new Error('the decoupled model classifies regions and has no token tagger: it runs through runDecoupled');

  if (pipeline.kind === 'completion') {
    // Round r: the model so far, decoded with its O shift chosen on dev, completes the ORIGINAL
    // weak labels (an entity tag where they say O); the next model goes on from it on them.
    let current = await stage('teacher (WSL)', withMethod(cfg, { name: 'wsl' }), data.train);
    let completion: TrainSignals['completion'];
    for (let round = 1; round <= pipeline.rounds; round++) {
      const { shift } = await chooseOShift(current.tagger, feat, data.dev);
      hooks.onStage?.(`completion round ${round} of ${pipeline.rounds}: the teacher decodes with O shift ${shift} (chosen on dev)`);
      const { paths } = await predict(current.tagger, feat, weak);
      const w = await current.tagger.getWeights();
      current.tagger.dispose();
      const byTrain = new Map(weak.map((s, k) => [s, k]));
      // Eq. 2: weak entity tags stay; weak O tokens take the teacher's tag.
      const completed = weak.map((s, k) => ({ ...s, tags: s.tags.map((t, i) => (t === 0 ? paths[k][i] : t)) }));
      completion = data.train.map((s) => {
        const k = byTrain.get(s);
        if (k === undefined) return null;
        const c: Record<number, number> = {};
        s.tags.forEach((t, i) => {
          if (t === 0 && paths[k][i] !== 0) c[i] = paths[k][i];
        });
        return c;
      });
      const added = completion.reduce((a, c) => a + (c ? Object.keys(c).length : 0), 0);
      hooks.onStage?.(`completion round ${round}: ${added} weak-O tokens became entity tokens`);
      current = await stage(
        `student (round ${round})`,
        withMethod(cfg, { name: 'wsl' }),
        [...strong, ...completed],
        w,
        {},
        `student, round ${round} of ${pipeline.rounds}`,
      );
    }
    return finish(current, { signals: { completion } });
  }

  // Both SST and NEEDLE start from a model of the strong labels (of the weak ones as if gold
  // when a setting has no strong labels: NEEDLE's distant-only rows).
  let pretrained: Weights | undefined;
  if (pipeline.kind === 'needle' && pipeline.stage1.epochs > 0) {
    // Stage I: the encoder learns the domain's text as a language model before any label.
    const { lm, losses, seconds } = await trainLm(
      cfg,
      feat,
      [...data.train, ...(data.unlabeled ?? [])],
      pipeline.stage1,
      hooks,
      store,
      'Stage I language model',
    );
    pretrained = await lm.tagger.getWeights();
    stages.push({
      stage: 'Stage I: language model',
      devF1: 0,
      epochs: losses.length,
      seconds,
      trainSentences: data.train.length + (data.unlabeled?.length ?? 0),
      history: lmHistory(losses),
    });
    lm.dispose();
    lm.tagger.dispose();
  }
  const initial = strong.length
    ? await stage('initial (supervised)', withMethod(cfg, { name: 'supervised' }), strong, pretrained)
    : await stage('initial (WSL)', withMethod(cfg, { name: 'wsl' }), data.train, pretrained);
  const initWeights = await initial.tagger.getWeights();
  const { paths, scores } = await predict(initial.tagger, feat, weak);
  const devPred = pipeline.kind === 'needle' && pipeline.nal ? await predict(initial.tagger, feat, data.dev) : null;
  initial.tagger.dispose();

  const weakIndex = new Map(weak.map((s, k) => [s, k]));
  const pseudoSignal = data.train.map((s) => {
    const k = weakIndex.get(s);
    return k === undefined ? null : paths[k];
  });
  if (pipeline.kind === 'sst') {
    const pseudo = weak.map((s, k) => ({ ...s, tags: paths[k] }));
    return finish(await stage('self-training', withMethod(cfg, { name: 'wsl' }), [...strong, ...pseudo], initWeights), { signals: { pseudo: pseudoSignal } });
  }

  // NEEDLE Stages II and III, `rounds` times: a later round starts from the model the previous one
  // ended with, which completes the original weak labels anew and is calibrated anew (§4.5).
  let current = { paths, scores, dev: devPred, weights: initWeights };
  for (let round = 1; ; round++) {
    const suffix = round > 1 ? ` (round ${round})` : '';
    let completed = weak;
    let confidences: number[] | undefined;
    let calibration: PipelineResult['calibration'];
    let signals: TrainSignals = { pseudo: pseudoSignal };
    if (pipeline.wlc) {
      completed = weak.map((s, k) => ({ ...s, tags: s.tags.map((t, i) => (t === 0 ? current.paths[k][i] : t)) }));
      // Where completion gave a weak-O token an entity tag: the review queue's NEEDLE signal.
      const byTrain = new Map(weak.map((s, k) => [s, k]));
      signals = {
        ...signals,
        completion: data.train.map((s) => {
          const k = byTrain.get(s);
          if (k === undefined) return null;
          const c: Record<number, number> = {};
          s.tags.forEach((t, i) => t === 0 && current.paths[k][i] !== 0 && (c[i] = current.paths[k][i]));
          return c;
        }),
      };
    }
    if (pipeline.nal) {
      // Calibrate the model's Viterbi scores on dev: sequence accuracy per score bin (Appendix A).
      const dev = current.dev!;
      calibration = histogramBins(
        dev.scores,
        data.dev.map((s, k) => s.tags.every((t, i) => t === dev.paths[k][i])),
        pipeline.bins,
      );
      confidences = completed.map((_, k) => completedConfidence(weak[k].tags, binConfidence(calibration!, current.scores[k]), pipeline.cap));
      completed = completed.map((s, k) => ({ ...s, confidence: confidences![k] }));
    }
    const stage2 = await stage(
      `${pipeline.nal ? 'noise-aware continual training' : 'continual training (NLL)'}${suffix}`,
      withMethod(cfg, { name: pipeline.nal ? 'noise-aware' : 'wsl' }),
      [...strong, ...completed],
      current.weights,
    );
    let end = stage2;
    if (pipeline.ft && strong.length) {
      const w2 = await stage2.tagger.getWeights();
      stage2.tagger.dispose();
      end = await stage(`fine-tuning (strong)${suffix}`, withMethod(cfg, { name: 'supervised' }), strong, w2);
    }
    if (round >= pipeline.rounds) return finish(end, { confidences, calibration, signals });
    const next = await predict(end.tagger, feat, weak);
    current = { ...next, dev: pipeline.nal ? await predict(end.tagger, feat, data.dev) : null, weights: await end.tagger.getWeights() };
    end.tagger.dispose();
  }
}
