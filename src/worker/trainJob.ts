import '../methods';
import { trainingFailure } from '../core/errors';
import type { SpanScores } from '../core/metrics';
import { parseRunConfig } from '../core/runConfig';
import { uncertaintyOf, type DocSignals } from '../core/reviewSignals';
import { tagsToSpans } from '../core/tagScheme';
import { type ImportedModel, type LaterPrediction, updateRun } from '../db/runs';
import type { StudioDB } from '../db/schema';
import { type EngineHooks, runEngine } from '../engine/run';
import { TOKEN_RECORDS } from '../methods/defs';
import type { TokenRecord } from '../methods/def';
import type { StageRecord, TrainSignals } from '../methods/pipelines';
import type { MethodMetrics } from '../methods/stages';
import type { LabeledSentence } from '../model/data';
import type { GloveAsset } from '../model/embeddings';
import type { StarterAsset } from '../model/starter';
import type { EpochEvent, StepEvent } from '../model/train';
import type { BackendChoice } from './backend';
import { projectRunStore, projectSource } from './projectSource';

export type TrainEvent =
  | { kind: 'backend'; choice: BackendChoice }
  | { kind: 'stage'; stage: string }
  | ({ kind: 'step' } & StepEvent)
  | ({ kind: 'epoch' } & Omit<EpochEvent, 'dev'> & { devF1: number });

/** A run's metrics as stored; what its method recorded (MethodMetrics, declared by each method's `.def.ts`) at the top level. */
export interface TrainMetrics extends MethodMetrics {
  /** Set when the final model predicts no entity: what it says about why (core/noEntity). */
  warning?: string;
  /** The O shift the final model decoded with (chosen on dev unless configured). */
  oShift?: number;
  /** train.typeShifts: the shift per entity type the final model decodes with, chosen on dev. */
  typeShifts?: Record<string, number>;
  /** train.members > 1: each member's seed, dev F1 and O shift as its own run chose them; `dev` and `oShift` are the ensemble's. */
  members?: { seed: number; devF1: number | null; oShift: number }[];
  /** model.starter: the starter model's spans per type on the project's documents, which the model read as features. */
  starter?: { sentences: number; spans: Record<string, number> };
  /** model.publicLibrary: the library's lists the model read, each onto the type it mapped to (none: no list maps onto the project's types). */
  publicLibrary?: { id: string; type: string }[];
  /** The pre-trained encoder the run's model started from (model.pretrain). */
  encoder?: { epochs: number; sentences: number; seconds: number; loss: number };
  backend: string;
  backendReason: string;
  /** How the CRF's forward algorithm and gradient ran: the backend's WGSL kernels or generic ops. */
  crf?: 'wgsl kernels' | 'generic ops';
  /** The parts of training that ran as the backend's fused kernels (model/fusedKernels.ts). */
  kernels?: string[];
  /** Every stage's epochs (`stage`: a multi-stage run's stage, as its progress names it). */
  history: { epoch: number; loss: number; devF1: number; seconds: number; tokensPerSecond: number; stage?: string; methodStats?: Record<string, number> }[];
  /** The loss of every step of the first 200, then of every 10th: curves after a reload. */
  stepLosses: number[];
  bestEpoch?: number;
  dev?: SpanScores;
  test?: SpanScores;
  /** The weak labels the run learned from (a weak training layer), scored against the same gold: what the model must beat. */
  weak?: { layer: string; dev?: SpanScores; test?: SpanScores };
  trainSentences?: number;
  /** Multi-stage methods: each stage's dev F1, epochs and time. */
  stages?: StageRecord[];
  /** A pipeline that keeps its best stage on dev (RoSTER's keepBest): the stage whose model the run kept, when not the last. */
  keptStage?: string;
  /** What the model's token features were where they differ from what its options say (a dictionary made from the training layer, weak-label features switched off). */
  features?: string[];
  /** model.dictionaryDropout "dev": the value chosen on dev, at which the run's stages trained. */
  dictionaryDropout?: number;
  tokensPerSecond?: number;
  /** Summed over attempts when a run was interrupted and resumed. */
  wallSeconds?: number;
  /** Seconds trained so far over every attempt, kept at each epoch (an interrupted run's next attempt adds to it). */
  elapsedSeconds?: number;
  earlierSeconds?: number;
  /** Attempts the run took (more than 1 after an interruption). */
  attempts?: number;
  predictedLayerId?: number;
  /** Each time the run's model predicted documents imported after it finished (projectSource.predictUnseen): its layer gained them. */
  later?: LaterPrediction[];
  resumedFrom?: number;
  /** A model opened from a file (db/runs.ts openModelFile): where it came from. Its scores are of its predictions of this project. */
  imported?: ImportedModel;
  /** A review-loop fine-tune whose predictions and model a later fine-tune removed (db/runs.ts): why they are gone. */
  pruned?: string;
  /** The model's tag set (method statistics keyed by tag id read their names here). */
  tags?: string[];
}

/**
 * Per document, the run's signals over its tokens: uncertainty from the final model's marginals on
 * every sentence, and the method's own signals on the training sentences (null: nothing to store).
 */
export function collectSignals(
  docTokens: readonly number[],
  all: readonly LabeledSentence[],
  marginals: readonly Float32Array[] | null,
  train: readonly LabeledSentence[],
  sg: TrainSignals | undefined,
  tags: readonly string[],
): (DocSignals | null)[] {
  const out: (DocSignals | null)[] = docTokens.map(() => null);
  const get = (k: number) => (out[k] ??= {});
  const K = tags.length;
  if (marginals)
    all.forEach((s, i) => {
      const d = get(s.doc);
      (d.uncertainty ??= new Float32Array(docTokens[s.doc])).set(uncertaintyOf(marginals[i], K), s.offset);
    });
  train.forEach((s, i) => {
    for (const [field, kind] of Object.entries(TOKEN_RECORDS)) {
      const value = (sg as Record<string, unknown[] | undefined> | undefined)?.[field]?.[i];
      if (value) recordInto(get(s.doc) as Record<string, unknown>, field, kind, value, docTokens[s.doc], s.offset, tags);
    }
    const ps = sg?.pseudo?.[i];
    if (ps)
      (get(s.doc).pseudo ??= []).push(
        ...tagsToSpans(
          ps.map((t) => tags[t]),
          s.offset,
        ),
      );
  });
  return out;
}

/** One sentence's record (a method's `records` field, of its kind) into its document's, at the sentence's offset. */
function recordInto(doc: Record<string, unknown>, field: string, kind: TokenRecord, value: unknown, n: number, offset: number, tags: readonly string[]): void {
  if (kind === 'flags') {
    const v = value as Uint8Array;
    if (v.some((x) => x)) ((doc[field] ??= new Uint8Array(n)) as Uint8Array).set(v, offset);
  } else if (kind === 'values') ((doc[field] ??= new Float32Array(n).fill(NaN)) as Float32Array).set(value as Float32Array, offset);
  else if (kind === 'valueEpochs')
    (value as Float32Array[]).forEach((o, e) => (((doc[field] ??= []) as Float32Array[])[e] ??= new Float32Array(n).fill(NaN)).set(o, offset));
  else for (const [t, tag] of Object.entries(value as Record<number, number>)) ((doc[field] ??= {}) as Record<number, string>)[offset + Number(t)] = tags[tag];
}

/** Stops the loop between steps: 'stop' keeps the best model so far, 'cancel' discards the run. */
let control: 'go' | 'stop' | 'cancel' = 'go';
export function setControl(c: 'go' | 'stop' | 'cancel'): void {
  control = c;
}

/**
 * Trains a run of a project through the run engine: checks the data, picks the backend, trains
 * with the run's stages and checkpoints in IndexedDB (a run started again goes on from them),
 * then stores the predictions as a layer and the model, in one transaction. A cancelled or
 * failed run changes no label layer.
 */
export async function runTraining(
  db: StudioDB,
  runId: number,
  assets: { fetchGlove: () => Promise<GloveAsset>; fetchStarter: () => Promise<StarterAsset>; fetchPublic: (path: string) => Promise<string> },
  emit: (e: TrainEvent) => void,
): Promise<TrainMetrics> {
  control = 'go';
  const run = await db.runs.get(runId);
  if (!run) throw new Error(`run ${runId} does not exist`);
  const metrics: TrainMetrics = { backend: '', backendReason: '', history: [], stepLosses: [] };
  // A run started again after its page went away goes on counting: its epochs and its wall time
  // add up over the attempts.
  const prev = run.metrics as TrainMetrics | undefined;
  if ((run.status === 'interrupted' || run.status === 'running') && prev) {
    metrics.history = [...(prev.history ?? [])];
    metrics.attempts = (prev.attempts ?? 1) + 1;
    metrics.earlierSeconds = prev.elapsedSeconds ?? 0;
  }
  const t0 = performance.now();
  const elapsed = () => (metrics.earlierSeconds ?? 0) + (performance.now() - t0) / 1000;
  try {
    const cfg = parseRunConfig(run.config);
    const source = projectSource({ db, runId, cfg, metrics, ...assets, emit, control: () => control, elapsed });
    return await runEngine(cfg, source, projectRunStore(db, runId), progressHooks(db, runId, metrics, emit, elapsed));
  } catch (e) {
    const error = trainingFailure(e);
    await updateRun(db, runId, { status: 'failed', error, metrics, finishedAt: Date.now() });
    throw error === (e as Error).message ? e : new Error(error);
  }
}

/** The engine's progress as the page's events and the run's metrics: step losses, every stage's epochs (kept at each), a resume. */
function progressHooks(db: StudioDB, runId: number, metrics: TrainMetrics, emit: (e: TrainEvent) => void, elapsed: () => number): EngineHooks {
  let steps = 0;
  let lastEmit = 0;
  return {
    control: () => control,
    onStage: (stage) => emit({ kind: 'stage', stage }),
    onResume: (epoch, stage) => {
      metrics.resumedFrom = epoch;
      // The epochs after the checkpoint, if the last attempt recorded any, train again.
      metrics.history = metrics.history.filter((h) => h.stage !== stage || h.epoch <= epoch);
    },
    onStep: (e: StepEvent) => {
      if (steps++ < 200 || steps % 10 === 0) metrics.stepLosses.push(e.loss);
      if (performance.now() - lastEmit > 200) {
        lastEmit = performance.now();
        emit({ kind: 'step', ...e });
      }
    },
    onEpoch: async (e: EpochEvent) => {
      metrics.history.push({
        epoch: e.epoch,
        loss: e.loss,
        devF1: e.dev.overall.f1,
        seconds: e.seconds,
        tokensPerSecond: e.tokensPerSecond,
        ...(e.stage !== undefined ? { stage: e.stage } : {}),
        ...(e.methodStats ? { methodStats: e.methodStats } : {}),
      });
      emit({ kind: 'epoch', epoch: e.epoch, loss: e.loss, devF1: e.dev.overall.f1, seconds: e.seconds, tokensPerSecond: e.tokensPerSecond, best: e.best });
      metrics.elapsedSeconds = elapsed();
      await updateRun(db, runId, { metrics });
    },
  };
}
