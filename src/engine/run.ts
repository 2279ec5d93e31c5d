/**
 * The one run engine. A run is a parsed run config, a source of data (a project in IndexedDB, an
 * experiment's setting, a config's files), a store that keeps checkpoints and finished stages, and
 * hooks for progress. The engine loads the source's data, starts from the source's encoder or
 * initial weights, trains the method's pipeline (a single training is one pipeline kind among the
 * others; a span model is its module's), and hands the trained model to the source to record.
 * The training worker, `studio train`, `studio experiment` and `studio simulate-review` are
 * adapters over it, so a config means the same wherever it runs, and one store is the one way a
 * stopped run goes on.
 */
import '../methods';
import type { SpanScores } from '../core/metrics';
import { noEntityDiagnosis } from '../core/noEntity';
import type { RunConfig } from '../core/runConfig';
import type { Span } from '../core/types';
import { finalOShift, PipelineStopped, runPipeline, type PipelineData, type PipelineResult, type StageRecord } from '../methods/pipelines';
import { getPipeline } from '../methods/registry';
import { bestEpochOfStage, type PipelineModule, type SpanModel } from '../methods/stages';
import type { LabeledSentence } from '../model/data';
import type { Featurizer } from '../model/features';
import type { EncoderLm } from '../model/pretrain';
import { type Decoding, type Tagger, TaggerEnsemble, type Weights } from '../model/tagger';
import { predict, type RunStore, type TrainHooks } from '../model/train';
import { tagsToSpans } from '../core/tagScheme';

/** The sentences and the featurizer a run trains with, its dictionary and weak-label features attached. */
export interface EngineData {
  tags: string[];
  feat: Featurizer;
  /** Training sentences: `weak` marks those whose labels are weak. */
  train: LabeledSentence[];
  dev: LabeledSentence[];
  /** The self-training pool (pipeline.unlabeled of completion, BOND and RoSTER). */
  unlabeled?: LabeledSentence[];
  /** A span model's typed dictionary. */
  dictionary?: readonly { words: readonly string[]; type: string }[];
  /** A span model's extra candidates per dev sentence (a weak layer's spans), as at prediction. */
  devProposals?: readonly (readonly Span[])[];
}

/** A pre-trained encoder a run starts from, and what its pre-training cost (a stage of the run's record when it ran now). */
export interface EncoderUse {
  weights: Weights;
  /** Where an encoder pre-trained elsewhere came from (startEncoder); absent for the project's own. */
  from?: string;
  lm?: EncoderLm;
  epochs: number;
  sentences: number;
  seconds: number;
  loss?: number;
}

/** The model a run trained: spans for any sentences; the tagger itself where it is a token tagger. */
export interface RunModel {
  predict(sentences: readonly LabeledSentence[], proposals?: readonly (readonly Span[])[]): Promise<Span[][]>;
  /** A token-tagger run's one tagger (its weights are the model); absent for an ensemble and a span model. */
  tagger?: Tagger;
  /** A token-tagger run's model as it decodes: its tagger, or an ensemble's members as one (train.members). */
  decoding?: Decoding;
  /** An ensemble's members, each decoding with the shifts its own run chose on dev. */
  members?: readonly Tagger[];
  /** A span model's own state for the models table (a tagger's is its weights, which the source saves its way). */
  spanState?: () => Promise<unknown>;
  dispose(): void;
}

/** What a finished run leaves: its model, and the pipeline's record (stages, dev scores, shifts, the method's signals). */
export interface FinishedRun extends Omit<PipelineResult, 'tagger'> {
  model: RunModel;
  /** The epoch of the last stage whose model was kept (1-based; 0 where no stage was scored on dev). */
  bestEpoch: number;
  /** An ensemble's members (train.members > 1): each one's seed, dev F1 and O shift as its own run chose them. */
  membersDev?: { seed: number; devF1: number | null; oShift: number }[];
  /** How the last stage ended: its epochs ran out, early stopping, or the user's stop. */
  ended: 'done' | 'early' | 'stopped';
  trainSentences: number;
  encoder?: EncoderUse;
}

/**
 * Where a run's data comes from and where its result goes. `load` is all a source must give;
 * the others are what a source can add: an encoder pre-trained on its text, the weights a
 * fine-tune starts from, a recovery after a failure (a lost GPU device: change backend and go on).
 */
export interface RunSource<R> {
  load(cfg: RunConfig): Promise<EngineData>;
  /** The pre-trained encoder (model.pretrain > 0): kept, or pre-trained now; null when the user stopped it. */
  encoder?(cfg: RunConfig, data: EngineData): Promise<EncoderUse | null>;
  /** Without model.pretrain: an encoder pre-trained elsewhere that the run starts from (a shipped asset), if any. */
  startEncoder?(cfg: RunConfig, data: EngineData): Promise<EncoderUse | undefined>;
  /**
   * The weights the run starts from (the review loop's fine-tune): one model's, or one per member
   * of an ensemble (train.members), each member fine-tuning from its own.
   */
  init?(cfg: RunConfig, data: EngineData): Promise<Weights | readonly Weights[] | undefined>;
  /**
   * The source records an ensemble (train.members > 1) from `model.decoding` and `model.members`;
   * a source that keeps one tagger's weights (`studio train --out`'s model file, simulate-review's
   * fine-tunes) leaves this out, and the engine refuses such a run before it trains.
   */
  ensembles?: boolean;
  /** A failed attempt: true to train again from the store (it resumes), false to fail the run. */
  recover?(error: unknown): Promise<boolean>;
  record(run: FinishedRun, data: EngineData): Promise<R>;
  /** The run ended with no model (cancelled, or stopped before any stage finished). */
  ended(how: 'cancelled' | 'stopped', reason: string, stages: StageRecord[]): Promise<R>;
}

export type EngineHooks = TrainHooks;

/** Trains `cfg` on `source`'s data, keeping its progress in `store`, and returns what the source recorded. */
export async function runEngine<R>(cfg: RunConfig, source: RunSource<R>, store: RunStore | undefined, hooks: EngineHooks = {}): Promise<R> {
  const mod = getPipeline(cfg.pipeline.kind);
  if (cfg.train.members > 1 && !source.ensembles)
    throw new Error(
      `train.members ${cfg.train.members}: this command keeps one tagger's weights (a model file, a simulated review's fine-tunes); an ensemble trains on the training page and in \`studio experiment\``,
    );
  if (cfg.train.members > 1 && mod.spanModel)
    throw new Error(`train.members ${cfg.train.members}: the "${cfg.pipeline.kind}" method's span model does not ensemble; members decode token heads`);
  const data = await source.load(cfg);
  if (mod.spanModel) return spanRun(cfg, mod, data, source, store, hooks);
  let encoder: EncoderUse | undefined;
  if (cfg.model.pretrain > 0 && source.encoder) {
    const e = await source.encoder(cfg, data);
    if (!e) return source.ended('cancelled', 'cancelled during encoder pre-training', []);
    encoder = e;
  } else encoder = await source.startEncoder?.(cfg, data);
  const start = await source.init?.(cfg, data);
  const inits = start === undefined ? undefined : isWeightsList(start) ? start : [start];
  if (inits && cfg.pipeline.kind !== 'single') throw new Error('a fine-tune from an earlier model trains one stage: pipeline "single"');
  if (inits && inits.length !== cfg.train.members)
    throw new Error(
      `a fine-tune of train.members ${cfg.train.members} starts from ${inits.length} ${inits.length === 1 ? 'model' : 'models'}: each member starts from its own`,
    );
  const pipelineData: PipelineData = {
    train: data.train,
    dev: data.dev,
    ...(data.unlabeled?.length ? { unlabeled: data.unlabeled } : {}),
    ...(encoder ? { encoder: encoder.weights, encoderLm: encoder.lm } : {}),
    ...(inits ? { init: inits[0] } : {}),
  };
  for (;;) {
    try {
      if (cfg.train.members > 1) return await source.record(await ensembleRun(cfg, data, pipelineData, hooks, store, encoder, inits), data);
      const r = await runPipeline(cfg.pipeline, cfg, data.feat, pipelineData, hooks, store);
      return await source.record(singleRun(r, cfg, data, encoder), data);
    } catch (e) {
      if (e instanceof PipelineStopped) {
        e.partial?.tagger.dispose();
        return source.ended(e.how, e.message, []);
      }
      if (!(await source.recover?.(e))) throw e;
    }
  }
}

const isWeightsList = (w: Weights | readonly Weights[]): w is readonly Weights[] => Array.isArray(w);

/** The seed and store of an ensemble's member k (0-based): member 0 is the run of the config's seed, with its store. */
export const memberSeed = (seed: number, k: number): number => seed + 1000 * k;

/**
 * train.members K > 1: the pipeline trained K times (member k with seed + 1000·k, its stages in its
 * own part of the store, so a stopped ensemble goes on from its finished members), then the members
 * decoded as one (TaggerEnsemble), its O shift and type shifts chosen on dev afresh. The record's
 * stages are the members' (named "member k of K: ..."); it keeps no method metrics or signals (they
 * describe one model). A member the user stopped ends the ensemble with the members trained so far.
 * With train.shareDropout the members after the first train at the dictionary dropout it chose.
 * A fine-tune's member k starts from `inits[k]` (the review loop's fine-tune of an ensemble's run).
 */
async function ensembleRun(
  cfg: RunConfig,
  data: EngineData,
  pipelineData: PipelineData,
  hooks: EngineHooks,
  store: RunStore | undefined,
  encoder: EncoderUse | undefined,
  inits: readonly Weights[] | undefined,
): Promise<FinishedRun> {
  const K = cfg.train.members;
  const done: PipelineResult[] = [];
  try {
    for (let k = 0; k < K; k++) {
      const name = `member ${k + 1} of ${K}`;
      // shareDropout: the members after the first train at the dictionary dropout it chose on dev.
      const shared = cfg.train.shareDropout && k > 0 ? done[0].dictionaryDropout : undefined;
      const member: RunConfig = {
        ...cfg,
        model: shared !== undefined ? { ...cfg.model, dictionaryDropout: shared } : cfg.model,
        train: { ...cfg.train, seed: memberSeed(cfg.train.seed, k), members: 1 },
      };
      const r = await runPipeline(
        cfg.pipeline,
        member,
        data.feat,
        inits ? { ...pipelineData, init: inits[k] } : pipelineData,
        {
          ...hooks,
          onStage: (s) => hooks.onStage?.(`${name}: ${s}`),
          onEpoch: (e) => hooks.onEpoch?.({ ...e, stage: e.stage ? `${name}: ${e.stage}` : name }),
        },
        store && k > 0 ? scopedStore(store, name) : store,
      );
      done.push(r);
      hooks.onStage?.(`${name}: dev F1 ${r.dev ? (100 * r.dev.overall.f1).toFixed(2) : '–'}`);
      if (r.stopped) break;
    }
  } catch (e) {
    for (const r of done) r.tagger.dispose();
    throw e;
  }
  const taggers = done.map((r) => r.tagger);
  const ensemble = new TaggerEnsemble(taggers);
  const shifts = await finalOShift(ensemble, cfg, data.feat, data.dev, hooks);
  const stages = done.flatMap((r, k) => r.stages.map((st) => ({ ...st, stage: `member ${k + 1} of ${K}: ${st.stage}` })));
  const last = done[done.length - 1];
  // A member that shared the first's dictionary dropout did not choose one.
  const dictionaryDropout = last.dictionaryDropout ?? done[0].dictionaryDropout;
  const stopped = done.some((r) => r.stopped) ? ('stopped' as const) : undefined;
  return tokenRun(
    {
      dev: shifts.dev ?? null,
      stages,
      seconds: done.reduce((t, r) => t + r.seconds, 0),
      tokensPerSecond: done.reduce((t, r) => t + r.tokensPerSecond, 0) / done.length,
      oShift: shifts.oShift,
      ...(shifts.typeShifts ? { typeShifts: shifts.typeShifts } : {}),
      ...(dictionaryDropout !== undefined ? { dictionaryDropout } : {}),
      ...(stopped ? { stopped } : {}),
      membersDev: done.map((r, k) => ({ seed: memberSeed(cfg.train.seed, k), devF1: r.dev?.overall.f1 ?? null, oShift: r.oShift ?? 0 })),
    },
    last.stages,
    { decoding: ensemble, members: taggers, dispose: () => taggers.forEach((t) => t.dispose()) },
    cfg,
    data,
    encoder,
  );
}

/** A single run's pipeline result as a finished run: its tagger is the model. */
const singleRun = (r: PipelineResult, cfg: RunConfig, data: EngineData, encoder: EncoderUse | undefined): FinishedRun => {
  const { tagger, ...rest } = r;
  return tokenRun(rest, r.stages, { tagger, decoding: tagger, dispose: () => tagger.dispose() }, cfg, data, encoder);
};

/**
 * A token-tagger run's record and its model (one tagger, or an ensemble's members as one): the
 * epoch kept and how it ended are read from `lastStages`, the stages of the (last) model trained.
 */
function tokenRun(
  rest: Omit<FinishedRun, 'model' | 'bestEpoch' | 'ended' | 'trainSentences' | 'encoder'>,
  lastStages: readonly StageRecord[],
  m: Pick<RunModel, 'tagger' | 'members' | 'dispose'> & { decoding: Decoding },
  cfg: RunConfig,
  data: EngineData,
  encoder: EncoderUse | undefined,
): FinishedRun {
  const last = lastStages[lastStages.length - 1];
  const stoppedEarly = last && last.epochs < cfg.train.epochs;
  return {
    ...rest,
    model: {
      ...m,
      predict: async (sentences) => {
        const { paths } = await predict(m.decoding, data.feat, sentences);
        return paths.map((p) => tagsToSpans(p.map((t) => data.tags[t])));
      },
    },
    bestEpoch: bestEpochOf(lastStages),
    ended: rest.stopped ?? (stoppedEarly ? 'early' : 'done'),
    trainSentences: last?.trainSentences ?? data.train.length,
    ...(encoder ? { encoder } : {}),
  };
}

/** A method whose model is not a token tagger (the decoupled model): its module trains it on the strong and weak sentences and the dictionary. */
async function spanRun<R>(
  cfg: RunConfig,
  mod: PipelineModule,
  data: EngineData,
  source: RunSource<R>,
  store: RunStore | undefined,
  hooks: EngineHooks,
): Promise<R> {
  let epochs = 0;
  const t0 = performance.now();
  const m: SpanModel = await mod.spanModel!(
    cfg.pipeline,
    cfg,
    data.feat,
    {
      strong: data.train.filter((s) => !s.weak),
      weak: data.train.filter((s) => s.weak),
      dev: data.dev,
      ...(data.dictionary ? { dictionary: data.dictionary } : {}),
      ...(data.devProposals ? { devProposals: data.devProposals } : {}),
    },
    {
      ...(hooks.control ? { control: hooks.control as () => 'go' | 'stop' | 'cancel' } : {}),
      onStage: (s) => hooks.onStage?.(s),
      onEpoch: (e) => {
        // The main stage's epochs are the run's; the others' (pre-training, a proposer) are progress.
        if (!e.main || e.devF1 === undefined)
          return hooks.onStage?.(
            `${e.stage}: epoch ${e.epoch}, loss ${e.loss.toFixed(4)}${e.devF1 !== undefined ? `, dev F1 ${(100 * e.devF1).toFixed(1)}` : ''}`,
          );
        const dev = { overall: { f1: e.devF1 } } as SpanScores;
        void hooks.onEpoch?.({ epoch: ++epochs, loss: e.loss, dev, seconds: (performance.now() - t0) / 1000, tokensPerSecond: 0, best: false, stage: e.stage });
      },
    },
    store,
  );
  if (m.stopped === 'cancelled') {
    m.dispose();
    return source.ended('cancelled', 'cancelled', m.stages);
  }
  return source.record(
    {
      model: { predict: (s, p) => m.predict(s, p), spanState: () => m.state(), dispose: () => m.dispose() },
      dev: m.dev,
      stages: m.stages,
      seconds: (performance.now() - t0) / 1000,
      tokensPerSecond: m.tokensPerSecond,
      oShift: m.oShift,
      bestEpoch: bestEpochOf(m.stages),
      ended: 'done',
      trainSentences: m.trainSentences,
    },
    data,
  );
}

/** The last stage's epoch with the best dev F1 (1-based; 0 where none was scored). */
function bestEpochOf(stages: readonly StageRecord[]): number {
  return bestEpochOfStage(stages[stages.length - 1] ?? {});
}

/**
 * Why a finished token-tagger run predicts no entity (core/noEntity), from its last stage and its
 * training sentences; null when it predicts some. Every adapter says it the same way.
 */
export function noEntityWarning(run: FinishedRun, cfg: RunConfig, train: readonly LabeledSentence[], predictedSpans: number): string | null {
  if (!run.model.decoding) return null;
  return noEntityDiagnosis({
    predictedSpans,
    epochs: run.stages[run.stages.length - 1]?.epochs ?? 0,
    bestEpoch: run.bestEpoch,
    stopped: run.ended,
    patience: cfg.train.patience,
    entityTokens: train.reduce((n, x) => n + x.tags.filter((t) => t !== 0).length, 0),
    tokens: train.reduce((n, x) => n + x.words.length, 0),
  });
}

/** A part of a store under its own names: several runs of one job (fold models, fine-tunes) in one store. */
export function scopedStore(store: RunStore, scope: string): RunStore {
  return { load: (key) => store.load(`${scope}: ${key}`), save: (key, value) => store.save(`${scope}: ${key}`, value) };
}
