/**
 * The small vocabulary every method's pipeline is written in: train a stage (the one training
 * loop, handed the stage's method), pre-train a language model, predict, and finish the run. A
 * method module composes its paper's algorithm from these; the run's bookkeeping (stage records,
 * throughput, the store that lets a stopped run go on, stop and cancel) lives here, once.
 */
import type { SpanScores } from '../core/metrics';
import type { Span } from '../core/types';
import { DICTIONARY_DROPOUT_CHOICES, type Pipeline, type RunConfig } from '../core/runConfig';
import type { LabeledSentence } from '../model/data';
import { encoderLanguageModel, type LanguageModel, newLanguageModel } from '../model/lm';
import type { EncoderLm } from '../model/pretrain';
import { type Featurizer, featureDims } from '../model/features';
import { Tagger, type Weights } from '../model/tagger';
import { chooseOShift, evaluate, trainStage, type RunStore, type TrainHooks } from '../model/train';
import { getMethod } from './registry';

export interface PipelineData {
  train: LabeledSentence[];
  dev: LabeledSentence[];
  /** Sentences with no labels (tags all O): the self-training pool of completion, BOND and RoSTER (pipeline.unlabeled). */
  unlabeled?: LabeledSentence[];
  /** The project's pre-trained encoder (model.pretrain): every stage that would start from fresh weights starts from it. */
  encoder?: Weights;
  /** That encoder's language-model part, where it was kept: RoSTER augments with it instead of training a language model of its own. */
  encoderLm?: EncoderLm;
  /** The weights a one-stage run starts from (the review loop's fine-tune of an earlier model). */
  init?: Weights;
}

/** The first `size` sentences of the run's unlabeled text (pipeline.unlabeled), marked weak: what self-training may label. */
export function unlabeledPool(data: PipelineData, size: number): LabeledSentence[] {
  return (data.unlabeled ?? []).slice(0, size).map((s) => ({ ...s, weak: true }));
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

/** What a stage trained at one dictionary dropout value tried on dev adds to its name (keptStageIndex reads it back). */
export const dropoutStage = (rate: number) => ` (dictionary dropout ${rate})`;

/**
 * The stage whose model a finished run keeps, by its position in the run's stage records: the
 * stage a pipeline kept for being best on dev (`keptStage`), else, where the last stages were the
 * dictionary-dropout values tried on dev, the one at the value chosen, else the last stage. None
 * for an ensemble, which decodes all its members' last stages as one.
 */
export function keptStageIndex(
  stages: readonly { stage: string }[],
  m: { keptStage?: string; dictionaryDropout?: number; members?: readonly unknown[] },
): number | null {
  if (!stages.length || m.members) return null;
  if (m.keptStage) {
    const k = stages.findIndex((s) => s.stage === m.keptStage);
    return k >= 0 ? k : null;
  }
  const last = stages.length - 1;
  const tried = / \(dictionary dropout [\d.]+\)$/;
  if (m.dictionaryDropout !== undefined && tried.test(stages[last].stage)) {
    const base = stages[last].stage.replace(tried, '');
    for (let k = last; k >= 0 && stages[k].stage.startsWith(base) && tried.test(stages[k].stage); k--)
      if (stages[k].stage === `${base}${dropoutStage(m.dictionaryDropout)}`) return k;
  }
  return last;
}

/** The 1-based epoch of a stage's best dev F1 (the first of equals), or 0 when it scored none. */
export function bestEpochOfStage(stage: { history?: readonly { devF1: number }[] }): number {
  const h = stage.history ?? [];
  return h.reduce((b, e, k) => (e.devF1 > (h[b - 1]?.devF1 ?? -1) ? k + 1 : b), 0);
}

export interface PipelineResult {
  tagger: Tagger;
  dev: SpanScores | null;
  stages: StageRecord[];
  seconds: number;
  tokensPerSecond: number;
  /** What the method recorded about the whole run, kept in the run's metrics and drawn by its view (its `.view.tsx`). */
  metrics?: MethodMetrics;
  /** What the method learned about each training sentence's weak labels (the review queue's signals), aligned with data.train. */
  signals?: TrainSignals;
  /** A pipeline that keeps its best stage on dev: the stage whose model is the run's, when not the last. */
  keptStage?: string;
  /** The O shift the final model decodes with (Tagger.oShift), chosen on dev unless configured. */
  oShift?: number;
  /** train.typeShifts: the shift per entity type the final model decodes with (Tagger.tagShifts). */
  typeShifts?: Record<string, number>;
  /** model.dictionaryDropout "dev": the value chosen on dev, at which the run's stages trained. */
  dictionaryDropout?: number;
  /** The user stopped the run, and it kept its best epoch so far. */
  stopped?: 'stopped';
}

/**
 * What a method records about a whole run (NEEDLE's calibration, PU's detection curve, negative
 * sampling's heat maps): each module's `.def.ts` declares its fields by augmenting this interface.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the method modules add their fields
export interface MethodMetrics {}

/**
 * What a run recorded per training sentence. A method's own fields are declared by its module's
 * `.def.ts` (augmenting this interface), with their kind in its `records`.
 */
export interface TrainSignals {
  /** Per sentence, the initial model's tag ids on the weak sentences (SST's pseudo-labels; NEEDLE completes from them). */
  pseudo?: (number[] | null)[];
}

/** A stage was cancelled or stopped by the user: the pipeline stops there with no model. */
export class PipelineStopped extends Error {
  constructor(
    readonly how: 'cancelled' | 'stopped',
    readonly stage: string,
    /** Stopped (not cancelled): the stage's best model so far, recorded; whoever catches this disposes it or finishes with it. */
    readonly partial?: StageRun,
  ) {
    super(`${how} during ${stage}`);
  }
}

export type StageRun = Awaited<ReturnType<typeof trainStage>>;

/** What a method's pipeline is handed: the run's data and the vocabulary to compose its stages from. */
/**
 * A stage's options beyond its config: per-epoch hooks, and `keepCandidates`: where the stage
 * chooses its dictionary dropout on dev, the models at the rates not chosen come back too (the
 * caller disposes them) instead of being dropped.
 */
export type StageExtra = Pick<TrainHooks, 'afterEpoch'> & { keepCandidates?: boolean };

/** A model a stage trained and did not choose: its dictionary dropout and dev F1 (as the run scores it). */
export interface Candidate {
  tagger: Tagger;
  dictionaryDropout: number;
  devF1: number;
}

export interface PipelineContext {
  cfg: RunConfig;
  feat: Featurizer;
  data: PipelineData;
  hooks: TrainHooks;
  /** The training sentences with strong (gold) labels, and the weak ones, in data.train's order. */
  strong: LabeledSentence[];
  weak: LabeledSentence[];
  /**
   * Trains one stage with `cfg`'s method on `train`, from `init` (else from the project's encoder,
   * else fresh), and records it. `shown` names it in progress messages; its store key keeps
   * `name`, so stored runs resume. A stage with per-epoch hooks (`afterEpoch`) runs again whole
   * when resumed: what they record is not kept.
   */
  stage(
    name: string,
    cfg: RunConfig,
    train: LabeledSentence[],
    init?: Weights,
    extra?: StageExtra,
    shown?: string,
  ): Promise<StageRun & { candidates?: Candidate[] }>;
  /**
   * A model the run starts from (the review loop's fine-tune starts from an earlier run's), as a
   * stage of 0 epochs scored on dev; recorded among the stages only when the run keeps it
   * (`keepStage`), before the stage that did not beat it.
   */
  startModel(init: Weights): Promise<StageRun>;
  /** Records `r`, a model from `startModel`, as the stage `name` before the last stage trained. */
  keepStage(name: string, r: StageRun): void;
  /** A language model on a fresh tagger of the config's encoder, trained on `text` (or restored from the store under `name`), recorded as a stage. */
  languageModel(name: string, stageName: string, text: readonly { words: readonly string[] }[], o: { epochs: number; vocab: number }): Promise<LanguageModel>;
  /**
   * The project's pre-trained encoder as a language model (no training), recorded as a stage of 0
   * epochs; null when the run has no encoder or it kept no language model.
   */
  projectLanguageModel(stageName: string): LanguageModel | null;
  /** `r`'s dev F1 as the run scores its final model: with the O shift chosen on dev where it chooses one. */
  scoreOnDev(r: StageRun): Promise<number>;
  /** The run's result with `r`'s model as the final one. */
  finish(r: StageRun, extra?: Partial<PipelineResult>): PipelineResult;
}

/**
 * A method's multi-stage procedure, registered by its pipeline kind: `run` trains a token tagger
 * through the context's stages; a method whose model is not a token tagger (the decoupled model
 * classifies regions) has `spanModel` instead, and says how its featurizer is built.
 */
export interface PipelineModule<K extends Pipeline['kind'] = Pipeline['kind']> {
  kind: K;
  run?(ctx: PipelineContext, pipeline: Extract<Pipeline, { kind: K }>): Promise<PipelineResult>;
  spanModel?(
    pipeline: Extract<Pipeline, { kind: K }>,
    cfg: RunConfig,
    feat: Featurizer,
    data: SpanModelData,
    hooks: SpanModelHooks,
    store?: RunStore,
  ): Promise<SpanModel>;
  /** The words the featurizer gives trainable vectors, from the training sentences' (default: those). */
  featurizerWords?(words: readonly (readonly string[])[]): (readonly string[])[];
  /** false: the model reads no token features beyond words (no dictionary matches, no weak labels as features). */
  tokenFeatures?: false;
}

/** What a span model trains on: the strong and weak training sentences, dev, the project's typed dictionary. */
export interface SpanModelData {
  strong: readonly LabeledSentence[];
  weak: readonly LabeledSentence[];
  dev: readonly LabeledSentence[];
  dictionary?: readonly { words: readonly string[]; type: string }[];
  /** Extra candidate spans of each dev sentence (a weak layer's), as at prediction. */
  devProposals?: readonly (readonly Span[])[];
}

export interface SpanModelHooks {
  control?: () => 'go' | 'stop' | 'cancel';
  onStage?: (message: string) => void;
  /** Every stage's epochs; `devF1` where the stage is scored on dev; `main`: the stage whose epochs are the run's. */
  onEpoch?: (e: { stage: string; epoch: number; loss: number; devF1?: number; oShift?: number; main: boolean }) => void;
}

/** A trained model that is not a token tagger, asked for spans through its module. */
export interface SpanModel {
  /** Spans of each sentence; `proposals`: extra candidate spans per sentence (a weak layer's). */
  predict(sentences: readonly LabeledSentence[], proposals?: readonly (readonly Span[])[]): Promise<Span[][]>;
  /** What the models table keeps of it. */
  state(): Promise<unknown>;
  dispose(): void;
  /** The sentences its final stage trained on. */
  trainSentences: number;
  dev: SpanScores | null;
  stages: StageRecord[];
  tokensPerSecond: number;
  oShift: number;
  stopped?: 'cancelled';
}

/** What a run records of a trained stage: its dev F1, epochs, time, and per epoch the loss, dev F1 and the method's statistics. */
export const stageRecord = (stage: string, r: StageRun): StageRecord => ({
  stage,
  devF1: r.bestDev?.overall.f1 ?? 0,
  epochs: r.history.length,
  seconds: r.seconds,
  trainSentences: r.trainSentences,
  history: r.history.map((h) => ({ epoch: h.epoch, loss: h.loss, devF1: h.dev.overall.f1, ...(h.methodStats ? { methodStats: h.methodStats } : {}) })),
});

/** The config with another method (a stage trained with a loss other than the run's). */
export const withMethod = (cfg: RunConfig, method: Record<string, unknown> & { name: string }): RunConfig => ({ ...cfg, method });

/** An F1 in [0, 1] as the percentage progress messages print. */
export const pct = (f1: number) => (100 * f1).toFixed(2);

const withDictionaryDropout = (cfg: RunConfig, dictionaryDropout: number): RunConfig => ({ ...cfg, model: { ...cfg.model, dictionaryDropout } });

export function pipelineContext(cfg: RunConfig, feat: Featurizer, data: PipelineData, hooks: TrainHooks, store: RunStore | undefined): PipelineContext {
  const t0 = performance.now();
  const stages: StageRecord[] = [];
  let tokens = 0;
  let trainMs = 0;
  let stageCount = 0;
  const trainOne = async (name: string, c: RunConfig, train: LabeledSentence[], init?: Weights, extra: StageExtra = {}, shown = name): Promise<StageRun> => {
    const id = `${stageCount++} ${name}`;
    hooks.onStage?.(`${shown}: training on ${train.length} sentences, up to ${c.train.epochs} epochs`);
    const stageHooks: TrainHooks = {
      ...hooks,
      afterEpoch: extra.afterEpoch ?? hooks.afterEpoch,
      onEpoch: (e) => hooks.onEpoch?.({ ...e, stage: shown, epochs: c.train.epochs }),
      onResume: (epoch) => hooks.onResume?.(epoch, shown),
    };
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
    if (r.stopped === 'cancelled') {
      r.tagger.dispose();
      throw new PipelineStopped(r.stopped, name);
    }
    if (r.stopped === 'stopped') {
      stages.push(stageRecord(name, r));
      throw new PipelineStopped(r.stopped, name, r);
    }
    stages.push(stageRecord(name, r));
    tokens += r.trainTokens * r.history.length;
    trainMs += ((r.trainTokens * r.history.length) / Math.max(r.tokensPerSecond, 1e-9)) * 1000;
    return r;
  };
  /**
   * A stage's dev F1 as the run would score it: with the O shift chosen on dev where the run
   * chooses one. A stage's model no longer changes, so each is decoded on dev once.
   */
  const scored = new WeakMap<StageRun, number>();
  const devF1 = async (r: StageRun): Promise<number> => {
    if (cfg.train.oShift !== 'dev') return r.bestDev?.overall.f1 ?? 0;
    const known = scored.get(r);
    if (known !== undefined) return known;
    const saved = r.tagger.oShift;
    const f1 = (await chooseOShift(r.tagger, feat, data.dev)).dev.overall.f1;
    r.tagger.oShift = saved;
    scored.set(r, f1);
    return f1;
  };
  let chosenDropout: number | undefined;
  return {
    cfg,
    feat,
    data,
    hooks,
    strong: data.train.filter((s) => !s.weak),
    weak: data.train.filter((s) => s.weak),
    async stage(name, c, train, init, extra = {}, shown = name) {
      if (c.model.dictionaryDropout === 'dev' && feat.lexicon) {
        if (chosenDropout !== undefined) return trainOne(name, withDictionaryDropout(c, chosenDropout), train, init, extra, shown);
        const best = await dropoutOnDev(
          (rate, at) => trainOne(`${name}${at}`, withDictionaryDropout(c, rate), train, init, extra, `${shown}${at}`),
          devF1,
          extra,
          hooks,
        );
        chosenDropout = best.dictionaryDropout;
        return best.run;
      }
      return trainOne(name, c, train, init, extra, shown);
    },
    async languageModel(name, stageName, text, o) {
      const r = await languageModelStage(cfg, feat, hooks, store, name, text, o);
      stages.push({
        stage: stageName,
        devF1: 0,
        epochs: r.losses.length,
        seconds: r.seconds,
        trainSentences: text.length,
        history: r.losses.map((loss, k) => ({ epoch: k + 1, loss, devF1: 0 })),
      });
      return r.lm;
    },
    scoreOnDev: devF1,
    async startModel(init) {
      const tagger = new Tagger(cfg.model, featureDims(feat), cfg.train.seed);
      tagger.setWeights(init);
      const bestDev = await evaluate(tagger, feat, data.dev);
      return { tagger, bestEpoch: 0, bestDev, history: [], seconds: 0, trainTokens: 0, trainSentences: 0, tokensPerSecond: 0, stopped: 'done' as const };
    },
    keepStage(name, r) {
      stages.splice(Math.max(0, stages.length - 1), 0, stageRecord(name, r));
    },
    projectLanguageModel(stageName) {
      if (!data.encoder || !data.encoderLm) return null;
      const lm = encoderLanguageModel(cfg.model, feat, data.encoder, data.encoderLm, cfg.train.seed);
      hooks.onStage?.(`${stageName}: the project's pre-trained encoder (${data.encoderLm.words.length.toLocaleString()}-word language model), no training`);
      stages.push({ stage: stageName, devF1: 0, epochs: 0, seconds: 0, trainSentences: 0, history: [] });
      return lm;
    },
    finish(r, extra = {}) {
      return {
        tagger: r.tagger,
        dev: r.bestDev,
        stages,
        seconds: (performance.now() - t0) / 1000,
        tokensPerSecond: tokens / Math.max(trainMs / 1000, 1e-9),
        ...(chosenDropout !== undefined ? { dictionaryDropout: chosenDropout } : {}),
        ...extra,
      };
    },
  };
}

/**
 * The model SST and NEEDLE start from: trained on the strong (gold) sentences, or, when a setting
 * has none, on the weak ones as if gold (NEEDLE's distant-only rows).
 */
export function initialModel(ctx: PipelineContext, init?: Weights): Promise<StageRun> {
  return ctx.strong.length
    ? ctx.stage('initial (supervised)', withMethod(ctx.cfg, { name: 'supervised' }), ctx.strong, init)
    : ctx.stage('initial (WSL)', withMethod(ctx.cfg, { name: 'wsl' }), ctx.data.train, init);
}

/**
 * A run's first stage at each dictionary dropout of the choices: the best on dev (with its O
 * shift, when the run chooses one there) is kept, and every later stage trains at its value.
 * With `keepCandidates` the others come back too (the caller disposes them).
 */
async function dropoutOnDev(
  train: (rate: number, at: string) => Promise<StageRun>,
  devF1: (r: StageRun) => Promise<number>,
  extra: StageExtra,
  hooks: TrainHooks,
): Promise<{ run: StageRun & { candidates?: Candidate[] }; dictionaryDropout: number }> {
  let best: { r: StageRun; f1: number; rate: number } | null = null;
  const byRate: string[] = [];
  const kept: Candidate[] = [];
  const drop = (x: { r: StageRun; f1: number; rate: number }) =>
    extra.keepCandidates ? kept.push({ tagger: x.r.tagger, dictionaryDropout: x.rate, devF1: x.f1 }) : x.r.tagger.dispose();
  for (const rate of DICTIONARY_DROPOUT_CHOICES) {
    const r = await train(rate, dropoutStage(rate));
    const f1 = await devF1(r);
    byRate.push(`${rate}: ${(100 * f1).toFixed(2)}`);
    if (!best || f1 > best.f1) {
      if (best) drop(best);
      best = { r, f1, rate };
    } else drop({ r, f1, rate });
  }
  hooks.onStage?.(`dictionary dropout chosen on dev: ${best!.rate} (dev F1 ${byRate.join(', ')})`);
  return { run: extra.keepCandidates ? { ...best!.r, candidates: kept } : best!.r, dictionaryDropout: best!.rate };
}

/** A language model on a fresh tagger of the config's encoder, trained on `text`, or restored from the run's store under `name`. */
async function languageModelStage(
  cfg: RunConfig,
  feat: Featurizer,
  hooks: TrainHooks,
  store: RunStore | undefined,
  name: string,
  text: Parameters<PipelineContext['languageModel']>[2],
  o: Parameters<PipelineContext['languageModel']>[3],
): Promise<{ lm: LanguageModel; losses: number[]; seconds: number }> {
  const s0 = performance.now();
  const lm = newLanguageModel({ ...cfg.model, head: cfg.model.head === 'span' ? 'softmax' : cfg.model.head }, feat, text, o.vocab, cfg.train.seed);
  const saved = (await store?.load(name)) as { weights: { encoder: Weights; heads: Weights }; losses: number[]; seconds: number } | undefined;
  if (saved) {
    lm.setWeights(saved.weights);
    hooks.onStage?.(`${name}: restored from the run's store`);
    return { lm, losses: saved.losses, seconds: saved.seconds };
  }
  const losses = await lm.pretrain(text, {
    epochs: o.epochs,
    batchSize: cfg.train.batchSize,
    lr: cfg.train.lr,
    clip: cfg.train.clip,
    seed: cfg.train.seed,
    onEpoch: (epoch, loss) => hooks.onStage?.(`${name}: epoch ${epoch} of ${o.epochs} done, loss ${loss.toFixed(3)}`),
    onProgress: (epoch, batch, batches, loss) =>
      hooks.onStage?.(`${name}: epoch ${epoch} of ${o.epochs}, batch ${batch} of ${batches}, loss ${loss.toFixed(3)}`),
  });
  const seconds = (performance.now() - s0) / 1000;
  await store?.save(name, { weights: await lm.getWeights(), losses, seconds });
  return { lm, losses, seconds };
}
