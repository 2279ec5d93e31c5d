import { getMethod, getPipeline } from '../methods';
import type { PipelineModule } from '../methods/stages';
import '../methods';
import { trainingFailure } from '../core/errors';
import { scoreSpans, type SpanScores } from '../core/metrics';
import { parseRunConfig, type RunConfig, selfTrainingPoolSize } from '../core/runConfig';
import { UNKNOWN_TYPE, sentenceRanges, tokenTexts } from '../core/types';
import { mergeCorrections } from '../core/annotate';
import type { EditorAnnotation } from '../core/progress';
import { findEncoder, layerAnnotations, projectLexicon, saveEmbeddings, saveEncoder, toParsedDoc } from '../db/repo';
import { layerRows } from '../db/layerStore';
import { endRunWithoutModel, finishRun, loadRunState, saveRunState, updateRun } from '../db/runs';
import { lexiconMatcher, lexiconSize, spanMatches, weakFeatureTypes } from '../core/lexicon';
import { noEntityDiagnosis } from '../core/noEntity';
import type { StudioDB } from '../db/schema';
import { bioTags, ioTags, pathsToSpans, toSentences } from '../model/data';
import { trimGlove, type Embeddings, type GloveAsset } from '../model/embeddings';
import { buildFeaturizer } from '../model/features';
import * as tf from '../model/tf';
import { predict, predictMarginals, trainTagger, type Checkpoint, type EpochEvent, type RunStore, type StepEvent, type TrainResult } from '../model/train';
import type { Tagger, Weights } from '../model/tagger';
import { type EncoderLm, encoderKey, encoderPretraining, pretrainEncoder, textFingerprint, type PretrainedEncoder } from '../model/pretrain';
import { crfKernelActive } from '../model/crf';
import { finalOShift, PipelineStopped, runPipeline, type StageRecord, type TrainSignals } from '../methods/pipelines';
import { uncertaintyOf, type DocSignals } from '../core/reviewSignals';
import { tagsToSpans } from '../core/tagScheme';
import type { LabeledSentence } from '../model/data';
import type { SamplingMap } from '../methods/negativeSampling';
import type { DocumentRow, LayerRow } from '../db/schema';
import type { Annotation, ParsedDoc } from '../core/types';
import type { Featurizer } from '../model/features';
import { chooseBackend, type BackendChoice } from './backend';

export type TrainEvent =
  | { kind: 'backend'; choice: BackendChoice }
  | { kind: 'stage'; stage: string }
  | ({ kind: 'step' } & StepEvent)
  | ({ kind: 'epoch' } & Omit<EpochEvent, 'dev'> & { devF1: number });

export interface TrainMetrics {
  /** Set when the final model predicts no entity: what it says about why (core/noEntity). */
  warning?: string;
  /** The O shift the final model decoded with (chosen on dev unless configured). */
  oShift?: number;
  /** train.typeShifts: the shift per entity type the final model decodes with, chosen on dev. */
  typeShifts?: Record<string, number>;
  /** The pre-trained encoder the run's model started from (model.pretrain). */
  encoder?: { epochs: number; sentences: number; seconds: number; loss: number };
  backend: string;
  backendReason: string;
  /** How the CRF's forward algorithm and gradient ran: the backend's WGSL kernels or generic ops. */
  crf?: 'wgsl kernels' | 'generic ops';
  history: { epoch: number; loss: number; devF1: number; seconds: number; tokensPerSecond: number; methodStats?: Record<string, number> }[];
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
  /** model.dictionaryDropout "dev": the value chosen on dev, at which the run's stages trained. */
  dictionaryDropout?: number;
  /** NEEDLE: dev Viterbi-score bins against sequence accuracy, and the confidences given to weak sentences. */
  calibration?: { lo: number; hi: number; n: number; accuracy: number }[];
  confidences?: number[];
  /** PU: precision and recall of unlabeled-entity detection by λ (where hidden entities are known). */
  detection?: { lambda: number; removed: number; precision: number; recall: number }[];
  tokensPerSecond?: number;
  /** Summed over attempts when a run was interrupted and resumed. */
  wallSeconds?: number;
  /** Seconds trained so far over every attempt, kept at each epoch (an interrupted run's next attempt adds to it). */
  elapsedSeconds?: number;
  earlierSeconds?: number;
  /** Attempts the run took (more than 1 after an interruption). */
  attempts?: number;
  predictedLayerId?: number;
  resumedFrom?: number;
  /** The model's tag set (method statistics keyed by tag id read their names here). */
  tags?: string[];
  /** Negative sampling: the final sampling distribution over the spans of a few training sentences. */
  sampling?: (SamplingMap & { doc: number; offset: number })[];
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
    const n = docTokens[s.doc];
    const removed = sg?.rosterRemoved?.[i];
    if (removed?.some((x) => x)) (get(s.doc).rosterRemoved ??= new Uint8Array(n)).set(removed, s.offset);
    if (sg?.oValue?.[i]) (get(s.doc).oValue ??= new Float32Array(n).fill(NaN)).set(sg.oValue[i], s.offset);
    sg?.oValueEpochs?.[i]?.forEach((o, e) => ((get(s.doc).oValueEpochs ??= [])[e] ??= new Float32Array(n).fill(NaN)).set(o, s.offset));
    const pu = sg?.puRemoved?.[i];
    if (pu?.some((x) => x)) (get(s.doc).puRemoved ??= new Uint8Array(n)).set(pu, s.offset);
    const ps = sg?.pseudo?.[i];
    if (ps)
      (get(s.doc).pseudo ??= []).push(
        ...tagsToSpans(
          ps.map((t) => tags[t]),
          s.offset,
        ),
      );
    const c = sg?.completion?.[i];
    if (c) for (const [t, tag] of Object.entries(c)) (get(s.doc).completion ??= {})[s.offset + Number(t)] = tags[tag];
  });
  return out;
}

/** Stops the loop between steps: 'stop' keeps the best model so far, 'cancel' discards the run. */
let control: 'go' | 'stop' | 'cancel' = 'go';
export function setControl(c: 'go' | 'stop' | 'cancel'): void {
  control = c;
}

async function projectEmbeddings(db: StudioDB, projectId: number, words: Iterable<string>, fetchGlove: () => Promise<GloveAsset>): Promise<Embeddings> {
  const need = new Set<string>();
  for (const w of words) need.add(w.toLowerCase());
  const row = await db.embeddings.get(projectId);
  // A row from before spelled vectors (v6) has none for its absent words: built again once.
  if (row && (row.spelledFrom !== undefined || !row.absent.length)) {
    const known = new Set([...row.words, ...row.absent]);
    if ([...need].every((w) => known.has(w)))
      return {
        dims: row.dims,
        index: new Map(row.words.map((w, k) => [w, k])),
        vectors: row.vectors,
        ...(row.spelledFrom !== undefined ? { spelledFrom: row.spelledFrom } : {}),
      };
  }
  const asset = await fetchGlove();
  const emb = trimGlove(asset, need, asset.spelling);
  const gloveWords = emb.spelledFrom ?? emb.index.size;
  // The words GloVe lacks are remembered apart (with their spelled rows), so the next run neither refetches nor indexes them.
  await saveEmbeddings(db, {
    projectId,
    words: [...emb.index.keys()],
    absent: [...emb.index].filter(([, r]) => r >= gloveWords).map(([w]) => w),
    dims: emb.dims,
    vectors: emb.vectors,
    ...(emb.spelledFrom !== undefined ? { spelledFrom: emb.spelledFrom } : {}),
  });
  return emb;
}

/**
 * The project's pre-trained encoder for this model: the one kept from an earlier run with the
 * same key, else pre-trained now (progress as stage events; stop and cancel end it with null) and
 * kept. Seed 1 whatever the run's seed: one encoder serves every run of this model shape.
 */
async function projectEncoder(
  db: StudioDB,
  projectId: number,
  cfg: RunConfig,
  feat: Featurizer,
  text: { words: string[] }[],
  emit: (e: TrainEvent) => void,
): Promise<PretrainedEncoder | null> {
  const o = encoderPretraining(cfg);
  const key = encoderKey(cfg.model, feat, o, textFingerprint(text));
  const kept = await findEncoder(db, projectId, key);
  if (kept) {
    emit({ kind: 'stage', stage: `project encoder: pre-trained earlier (${kept.losses.length} epochs on ${kept.sentences.toLocaleString()} sentences)` });
    return kept;
  }
  emit({
    kind: 'stage',
    stage: `project encoder: pre-training on ${text.length.toLocaleString()} sentences of the train split and the unassigned documents (${o.epochs} epochs)`,
  });
  const e = await pretrainEncoder(cfg.model, feat, text, o, {
    onEpoch: (epoch, loss) => emit({ kind: 'stage', stage: `project encoder: epoch ${epoch} of ${o.epochs} done, language-model loss ${loss.toFixed(3)}` }),
    onProgress: (epoch, batch, batches, loss) =>
      emit({ kind: 'stage', stage: `project encoder: epoch ${epoch} of ${o.epochs}, batch ${batch} of ${batches}, loss ${loss.toFixed(3)}` }),
    progressSeconds: 2,
    shouldStop: () => control !== 'go',
  });
  if (e) await saveEncoder(db, { projectId, ...e, createdAt: Date.now() });
  return e;
}

/**
 * The weak labels a run reads as features (model.weakFeatures): the training layer's when it is a
 * weak layer, else the project's aggregate weak layer.
 */
/** A weak training layer scored against gold on dev and test (the run page shows it beside the model's scores); nothing for a gold or corrected layer. */
function weakScores(
  layer: Pick<LayerRow, 'kind' | 'name'>,
  anns: readonly Annotation[],
  gold: readonly Annotation[],
  devIdx: number[],
  testIdx: number[],
): Pick<TrainMetrics, 'weak'> {
  if (layer.kind !== 'weak') return {};
  const score = (ks: number[]) =>
    scoreSpans(
      ks.map((k) => gold[k].spans),
      ks.map((k) => anns[k].spans.filter((s) => s.label !== UNKNOWN_TYPE)),
    );
  return { weak: { layer: layer.name, dev: score(devIdx), ...(testIdx.length ? { test: score(testIdx) } : {}) } };
}

async function projectWeakLabels(db: StudioDB, projectId: number, layer: LayerRow, layerAnns: Annotation[], docIds: number[]): Promise<Annotation[]> {
  if (layer.kind === 'weak') return layerAnns;
  const aggregate = (await db.layers.where('projectId').equals(projectId).toArray()).find((l) => l.role === 'aggregate');
  if (!aggregate) throw new Error("weak labels as features need the project's weak labels: make them on the Weak labels page first");
  return layerAnnotations(db, aggregate.id!, docIds);
}

/** A run's store in IndexedDB: rows of kind 'stage', removed with the run's other rows when it ends. */
function runStore(db: StudioDB, runId: number): RunStore {
  return {
    load: (key) => loadRunState(db, runId, 'stage', key),
    save: (key, value) => saveRunState(db, runId, 'stage', value, key),
  };
}

/**
 * Trains a run of a project: checks the data, picks the backend, trains with checkpoints in
 * IndexedDB, then stores the predictions as a layer and the model, in one transaction. A
 * cancelled or failed run changes no label layer.
 */
export async function runTraining(db: StudioDB, runId: number, fetchGlove: () => Promise<GloveAsset>, emit: (e: TrainEvent) => void): Promise<TrainMetrics> {
  control = 'go';
  const run = await db.runs.get(runId);
  if (!run) throw new Error(`run ${runId} does not exist`);
  let cfg: RunConfig;
  const metrics: TrainMetrics = { backend: '', backendReason: '', history: [], stepLosses: [] };
  // A run started again after its page went away goes on counting: its epochs and its wall time
  // add up over the attempts.
  const prev = run.metrics as TrainMetrics | undefined;
  if ((run.status === 'interrupted' || run.status === 'running') && prev) {
    metrics.history = [...(prev.history ?? [])];
    metrics.attempts = (prev.attempts ?? 1) + 1;
    metrics.earlierSeconds = prev.elapsedSeconds ?? 0;
  }
  let steps = 0;
  const t0 = performance.now();
  const elapsed = () => (metrics.earlierSeconds ?? 0) + (performance.now() - t0) / 1000;
  try {
    cfg = parseRunConfig(run.config);
    if (cfg.data.kind !== 'project') throw new Error('a browser run trains on a project: data.kind must be "project"');
    const { projectId, layerId, goldLayerId } = cfg.data;
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
    const docIds = docs.map((d) => d.id!);
    const layer = await db.layers.get(layerId);
    if (!layer) throw new Error(`layer ${layerId} does not exist`);
    const layerAnns = await layerAnnotations(db, layerId, docIds);
    let trainAnns = layerAnns;
    const goldAnns = await layerAnnotations(db, goldLayerId, docIds);
    // Which training sentences are weak: all of a weak layer's, except those the strong layer
    // settles (a complete row's every sentence; a reviewed sentence of a corrections layer).
    const weakDoc = docs.map(() => layer.kind === 'weak');
    const strongStarts = docs.map(() => new Set<number>());
    if (cfg.data.strongLayerId !== undefined) {
      const rows = (await layerRows(db, cfg.data.strongLayerId, docIds)) as (EditorAnnotation | undefined)[];
      trainAnns = trainAnns.map((a, k) => {
        if (!rows[k]) return a;
        const m = mergeCorrections(a.spans, rows[k], sentenceRanges(docs[k]));
        strongStarts[k] = m.strongStarts;
        return { ...a, spans: m.spans };
      });
    }
    const idx = (split: string) => docs.map((d, k) => (d.split === split ? k : -1)).filter((k) => k >= 0);
    const [trainIdx, devIdx, testIdx] = [idx('train'), idx('dev'), idx('test')];
    const typesIn = (ks: number[], anns: typeof trainAnns) => new Set(ks.flatMap((k) => anns[k].spans.map((s) => s.label)).filter((l) => l !== UNKNOWN_TYPE));
    const trainTypes = typesIn(trainIdx, trainAnns);
    if (!trainTypes.size) throw new Error('the chosen layer has no labeled entity on the train split');
    if (!devIdx.some((k) => goldAnns[k].spans.length)) throw new Error('the gold layer has no labeled entity on the dev split, which selects the model');
    const missing = [...typesIn([...devIdx, ...testIdx], goldAnns)].filter((t) => !trainTypes.has(t));
    if (missing.length) throw new Error(`label sets differ between layers: the gold layer has ${missing.join(', ')}, which the training layer never labels`);
    // RoSTER's two-part head trains on IO tags (Appendix C); every other head on BIO.
    const tags = cfg.model.head === 'twopart' ? ioTags([...trainTypes].sort()) : bioTags([...trainTypes].sort());
    metrics.tags = tags;
    const parsed = docs.map(toParsedDoc);
    const sub = (ks: number[], anns: typeof trainAnns) =>
      toSentences(
        ks.map((k) => parsed[k]),
        ks.map((k) => anns[k]),
        tags,
      ).map((s) => ({ ...s, doc: ks[s.doc] }));
    // Where the gold layer also labels a weak training document, its entities that the weak labels
    // miss are the "hidden" ones the diagnostics tell apart from true O (PU's O-values per epoch,
    // negative sampling's missampling rate), as synthetic masking does in the experiments.
    const goldRows = await layerRows(db, goldLayerId, docIds);
    let goldTrain: ReturnType<typeof sub> | null = null;
    try {
      goldTrain = sub(trainIdx, goldAnns);
    } catch {
      goldTrain = null; // the gold layer has a type the training layer never labels: no hidden entities
    }
    const trainRaw = sub(trainIdx, trainAnns).map((x, k) => {
      const hidden =
        goldTrain && weakDoc[x.doc] && goldRows[x.doc] && goldRows[x.doc]!.oMode === 'complete'
          ? goldTrain[k].tags.map((g, t) => (x.tags[t] === 0 ? g : 0))
          : undefined;
      return { ...x, weak: weakDoc[x.doc] && !strongStarts[x.doc].has(x.offset), ...(hidden ? { hidden } : {}) };
    });
    // The method's module says what its model reads (the decoupled model: words only, and a [MASK]).
    const mod = getPipeline(cfg.pipeline.kind);
    const tokenFeatures = mod.tokenFeatures !== false;
    // Dictionary features: every sentence carries its gazetteer matches.
    const lexicon = cfg.model.dictionary && tokenFeatures ? await projectLexicon(db, projectId, cfg.model.ruleFeatures) : null;
    const match = lexicon ? lexiconMatcher(lexicon) : null;
    // Weak labels as features: the project's aggregate weak labels, on every document.
    const weakTypes = cfg.model.weakFeatures && tokenFeatures ? [...trainTypes].sort() : [];
    const weakAnns = weakTypes.length ? await projectWeakLabels(db, projectId, layer, layerAnns, docIds) : null;
    if (cfg.model.weakFeatures && tokenFeatures && !weakAnns)
      emit({ kind: 'stage', stage: 'weak labels as features: off (the project has no weak labels; make them on the Weak labels page)' });
    else if (weakAnns) emit({ kind: 'stage', stage: `the weak labels as features (${weakTypes.join(', ')})` });
    const weakBase = lexicon?.types.length ?? 0;
    const withLex = <T extends { words: readonly string[]; doc: number; offset: number }>(ss: T[]): T[] =>
      match || weakAnns
        ? ss.map((x) => ({
            ...x,
            lex: [
              ...(match ? match(x.words) : []),
              ...(weakAnns ? spanMatches(weakAnns[x.doc]?.spans ?? [], x.offset, x.words.length, weakTypes, weakBase) : []),
            ],
          }))
        : ss;
    const train = withLex(trainRaw);
    const dev = withLex(sub(devIdx, goldAnns));
    // The self-training pool (pipeline.unlabeled of completion, BOND and RoSTER): the sentences of the
    // unassigned documents, the project's unlabeled text (the encoder pre-trains on it too).
    const unassigned = sub(idx('unassigned'), []);
    const poolSize = selfTrainingPoolSize(cfg.pipeline);
    const unlabeled = poolSize > 0 ? withLex(unassigned.slice(0, poolSize)) : [];
    if (poolSize > 0)
      emit({
        kind: 'stage',
        stage: unlabeled.length
          ? `self-training on ${unlabeled.length} sentences of the unassigned documents`
          : 'self-training: off, the project has no unassigned documents (documents of no split are its unlabeled text)',
      });
    if (lexicon)
      emit({
        kind: 'stage',
        stage: `dictionary features from ${lexiconSize(lexicon).toLocaleString()} entries${lexicon.rules ? ` and ${lexicon.rules.length} rules` : ''} (${lexicon.types.join(', ')})`,
      });

    emit({ kind: 'stage', stage: 'loading word vectors' });
    const emb = await projectEmbeddings(
      db,
      projectId,
      docs.flatMap((d) => tokenTexts(d)),
      fetchGlove,
    );
    const trainWords = train.map((s) => s.words);
    const feat = buildFeaturizer(emb, mod.featurizerWords ? mod.featurizerWords(trainWords) : trainWords, tags, {
      spelling: cfg.model.spelling,
    });
    if (lexicon || weakAnns) feat.lexicon = [...(lexicon?.types ?? []), ...weakFeatureTypes(weakTypes)];

    const choice = await chooseBackend(cfg.backend, cfg.model.encoder);
    metrics.backend = choice.backend;
    metrics.backendReason = choice.reason;
    const crfNote = () => {
      if (cfg.model.head !== 'crf') return '';
      metrics.crf = crfKernelActive(tags.length) ? 'wgsl kernels' : 'generic ops';
      return `; CRF on ${metrics.crf}`;
    };
    metrics.backendReason += crfNote();
    emit({ kind: 'backend', choice: { ...choice, reason: metrics.backendReason } });
    await updateRun(db, runId, { status: 'running', error: undefined, metrics });

    if (mod.spanModel) {
      return await trainSpanModel(
        db,
        runId,
        cfg,
        mod,
        {
          projectId,
          docs,
          parsed,
          train,
          dev,
          tags,
          feat,
          goldAnns,
          weakAnns: layer.kind === 'weak' ? layerAnns : null,
          weakLayerName: layer.name,
          devIdx,
          testIdx,
        },
        metrics,
        t0,
        emit,
      );
    }
    const saved = await db.models
      .where('runId')
      .equals(runId)
      .filter((m) => m.kind === 'checkpoint')
      .first();
    let resume = saved?.state as Checkpoint | undefined;
    if (resume) {
      metrics.resumedFrom = resume.epoch;
      // The epochs after the checkpoint, if the last attempt recorded any, train again.
      metrics.history = metrics.history.filter((h) => h.epoch <= resume!.epoch);
    }
    let lastEmit = 0;
    const hooks = {
      control: () => control,
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
          ...(e.methodStats ? { methodStats: e.methodStats } : {}),
        });
        emit({ kind: 'epoch', epoch: e.epoch, loss: e.loss, devF1: e.dev.overall.f1, seconds: e.seconds, tokensPerSecond: e.tokensPerSecond, best: e.best });
        metrics.elapsedSeconds = elapsed();
        await updateRun(db, runId, { metrics });
      },
      onCheckpoint: async (c: Checkpoint) => {
        resume = c;
        await saveRunState(db, runId, 'checkpoint', c);
      },
    };
    // The project's pre-trained encoder (model.pretrain): kept from an earlier run, or pre-trained
    // now on the text of the train split and of the unassigned documents.
    let encoder: Weights | undefined;
    let encoderLm: EncoderLm | undefined;
    if (cfg.model.pretrain > 0) {
      const text = [...train, ...unassigned].map((x) => ({ words: x.words }));
      const e = await projectEncoder(db, projectId, cfg, feat, text, emit);
      if (!e) {
        await endRunWithoutModel(db, runId, { status: 'cancelled', error: 'cancelled during encoder pre-training', metrics });
        return metrics;
      }
      encoder = e.weights;
      encoderLm = e.lm;
      metrics.encoder = { epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds, loss: e.losses[e.losses.length - 1] };
    }
    let lost = false;
    const device = (tf.backend() as unknown as { device?: { lost?: Promise<unknown> } }).device;
    void device?.lost?.then(() => (lost = true));
    let result: { tagger: Tagger; bestEpoch: number; tokensPerSecond: number; stopped: TrainResult['stopped'] };
    let trainSignals: TrainSignals | undefined;
    try {
      // The review loop's fine-tune starts from an earlier run's final model.
      const init = cfg.loop ? await loopStart(db, cfg, tags, feat) : undefined;
      if (cfg.pipeline.kind !== 'single' || (cfg.model.dictionaryDropout === 'dev' && feat.lexicon)) {
        if (init) throw new Error('a fine-tune of the review loop trains one stage: pipeline "single" and a dictionary dropout number');
        // Multi-stage methods (and a dictionary dropout chosen on dev, which trains the first
        // stage once per value) keep their finished stages and the running stage's epochs in the
        // run's store: a run started again after a reload goes on from them.
        try {
          const r = await runPipeline(
            cfg.pipeline,
            cfg,
            feat,
            { train, dev, ...(unlabeled.length ? { unlabeled } : {}), ...(encoder ? { encoder, encoderLm } : {}) },
            { ...hooks, onCheckpoint: undefined, onStage: (stage: string) => emit({ kind: 'stage', stage }) },
            runStore(db, runId),
          );
          Object.assign(metrics, {
            stages: r.stages,
            keptStage: r.keptStage,
            dictionaryDropout: r.dictionaryDropout,
            typeShifts: r.typeShifts,
            calibration: r.calibration,
            confidences: r.confidences,
            detection: r.detection,
          });
          trainSignals = r.signals;
          result = { tagger: r.tagger, bestEpoch: 0, tokensPerSecond: r.tokensPerSecond, stopped: 'done' as 'done' | 'cancelled' };
        } catch (e) {
          if (!(e instanceof PipelineStopped)) throw e;
          await endRunWithoutModel(db, runId, { status: 'cancelled', error: e.message, metrics });
          return metrics;
        }
      } else {
        result = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train, dev }, hooks, resume, init, encoder);
        if (result.stopped !== 'cancelled')
          metrics.typeShifts = (await finalOShift(result.tagger, cfg, feat, dev, { onStage: (stage) => emit({ kind: 'stage', stage }) })).typeShifts;
      }
      metrics.oShift = result.tagger.oShift;
    } catch (e) {
      if (choice.backend !== 'webgpu' || !lost) throw e;
      // The GPU device was lost: go on from the last checkpoint on the next backend.
      const next = await chooseBackend('wasm');
      metrics.backend = next.backend;
      metrics.backendReason = `${next.reason}; the WebGPU device was lost at epoch ${resume?.epoch ?? 0} (${(e as Error).message}) and training resumed from its checkpoint${crfNote()}`;
      emit({ kind: 'backend', choice: { ...next, reason: metrics.backendReason } });
      result = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train, dev }, hooks, resume, undefined, encoder);
      if (result.stopped !== 'cancelled') {
        metrics.typeShifts = (await finalOShift(result.tagger, cfg, feat, dev, { onStage: (stage) => emit({ kind: 'stage', stage }) })).typeShifts;
        metrics.oShift = result.tagger.oShift;
      }
    }
    if (result.stopped === 'cancelled') {
      result.tagger.dispose();
      await endRunWithoutModel(db, runId, { status: 'cancelled', metrics });
      return metrics;
    }
    emit({ kind: 'stage', stage: 'predicting' });
    const all = withLex(
      toSentences(
        parsed,
        docs.map(() => undefined),
        tags,
      ),
    );
    const { paths } = await predict(result.tagger, feat, all);
    const predicted = pathsToSpans(all, paths, tags, docs.length);
    const score = (ks: number[]) =>
      scoreSpans(
        ks.map((k) => goldAnns[k].spans),
        ks.map((k) => predicted[k]),
      );
    const entityTokens = train.reduce((a, x) => a + x.tags.filter((t) => t !== 0).length, 0);
    const warning = noEntityDiagnosis({
      predictedSpans: predicted.reduce((a, p) => a + p.length, 0),
      epochs: metrics.history.length,
      bestEpoch: result.bestEpoch,
      stopped: result.stopped,
      patience: cfg.train.patience,
      entityTokens,
      tokens: train.reduce((a, x) => a + x.words.length, 0),
    });
    if (warning) emit({ kind: 'stage', stage: warning });
    Object.assign(metrics, {
      ...(warning ? { warning } : {}),
      bestEpoch: result.bestEpoch,
      dev: score(devIdx),
      test: testIdx.length ? score(testIdx) : undefined,
      ...weakScores(layer, layerAnns, goldAnns, devIdx, testIdx),
      trainSentences: train.length,
      tokensPerSecond: result.tokensPerSecond,
      wallSeconds: elapsed(),
    });
    emit({ kind: 'stage', stage: 'recording review signals' });
    const marginals = await predictMarginals(result.tagger, feat, all);
    // What the run's method records for the review queue and the diagnostics (RoSTER's removals, negative sampling's heat map).
    const method = getMethod(cfg.method.name);
    if (method.record) {
      const rec = await method.record({
        tagger: result.tagger,
        feat,
        train,
        config: method.schema.parse(cfg.method),
        epochs: cfg.train.epochs,
        signals: trainSignals as Record<string, unknown> | undefined,
      });
      if (rec.signals) trainSignals = { ...trainSignals, ...(rec.signals as TrainSignals) };
      const sampling = (rec.metrics as { sampling?: (SamplingMap & { doc: number; offset: number })[] } | undefined)?.sampling;
      // The sampling maps name training sentences by their document's index: the page wants its id.
      if (sampling) metrics.sampling = sampling.map((m) => ({ ...m, doc: docIds[m.doc] }));
    }
    const signals = collectSignals(
      docs.map((d) => d.offsets.length >> 1),
      all,
      marginals,
      train,
      trainSignals,
      tags,
    );
    const weights = await result.tagger.getWeights();
    result.tagger.dispose();
    await finishRun(db, {
      runId,
      projectId,
      docIds,
      predicted,
      signals,
      model: {
        tags,
        weights,
        chars: [...feat.chars],
        oov: [...feat.oov],
        oShift: result.tagger.oShift,
        ...(metrics.typeShifts ? { typeShifts: metrics.typeShifts } : {}),
        ...(feat.lexicon ? { lexicon: feat.lexicon } : {}),
      },
      metrics,
    });
    return metrics;
  } catch (e) {
    const error = trainingFailure(e);
    await updateRun(db, runId, { status: 'failed', error, metrics, finishedAt: Date.now() });
    throw error === (e as Error).message ? e : new Error(error);
  }
}

/**
 * The weights a review-loop fine-tune starts from: run `cfg.loop.fromRunId`'s final model, which
 * must have the same tags and feature groups as this run (a changed label set or dictionary needs
 * a fresh run; the message says so).
 */
async function loopStart(db: StudioDB, cfg: RunConfig, tags: readonly string[], feat: Featurizer): Promise<Weights> {
  const from = cfg.loop!.fromRunId;
  const row = await db.models
    .where('runId')
    .equals(from)
    .filter((m) => m.kind === 'final')
    .first();
  const model = row?.state as { tags: string[]; weights: Weights; lexicon?: unknown[] } | undefined;
  if (!model?.weights) throw new Error(`run ${from} has no final model to fine-tune from (it did not finish, or it was deleted)`);
  if (model.tags.join(' ') !== tags.join(' '))
    throw new Error(`run ${from} tags ${model.tags.join(' ')}, this run ${tags.join(' ')}: the label set changed, so train a fresh model`);
  if ((model.lexicon?.length ?? 0) !== (feat.lexicon?.length ?? 0))
    throw new Error(`run ${from} read ${model.lexicon?.length ?? 0} dictionary feature groups, this run ${feat.lexicon?.length ?? 0}: train a fresh model`);
  return model.weights;
}

/**
 * A run of a method whose model is not a token tagger (the decoupled model, paper 004): its module
 * trains it on the strong and weak sentences and the project's typed gazetteer entries, then asks
 * it for every sentence's spans (the weak layer's spans are candidates on every split: at dev
 * selection as at prediction) into the predicted layer.
 */
async function trainSpanModel(
  db: StudioDB,
  runId: number,
  cfg: RunConfig,
  mod: PipelineModule,
  d: {
    projectId: number;
    docs: DocumentRow[];
    parsed: ParsedDoc[];
    train: LabeledSentence[];
    dev: LabeledSentence[];
    tags: string[];
    feat: Featurizer;
    goldAnns: Annotation[];
    weakAnns: Annotation[] | null;
    weakLayerName: string;
    devIdx: number[];
    testIdx: number[];
  },
  metrics: TrainMetrics,
  t0: number,
  emit: (e: TrainEvent) => void,
): Promise<TrainMetrics> {
  const gazetteers = await db.gazetteers.where('projectId').equals(d.projectId).primaryKeys();
  const entries = await db.gazetteerEntries.where('gazetteerId').anyOf(gazetteers).toArray();
  const dictionary = entries.filter((e) => e.type !== null).map((e) => ({ words: e.phrase.split(' '), type: e.type! }));
  const weakSpansOf = (s: LabeledSentence) =>
    (d.weakAnns?.[s.doc].spans ?? [])
      .filter((x) => x.start >= s.offset && x.end <= s.offset + s.words.length)
      .map((x) => ({ ...x, start: x.start - s.offset, end: x.end - s.offset }));
  let epochs = 0;
  const r = await mod.spanModel!(
    cfg.pipeline,
    cfg,
    d.feat,
    { strong: d.train.filter((s) => !s.weak), weak: d.train.filter((s) => s.weak), dev: d.dev, dictionary, devProposals: d.dev.map(weakSpansOf) },
    {
      control: () => control,
      onStage: (stage) => emit({ kind: 'stage', stage }),
      onEpoch: (e) => {
        // The main stage's epochs are the run's; the others' (pre-training, a proposer) are progress.
        if (!e.main || e.devF1 === undefined)
          return emit({
            kind: 'stage',
            stage: `${e.stage}: epoch ${e.epoch}, loss ${e.loss.toFixed(4)}${e.devF1 !== undefined ? `, dev F1 ${(100 * e.devF1).toFixed(1)}` : ''}`,
          });
        metrics.history.push({ epoch: ++epochs, loss: e.loss, devF1: e.devF1, seconds: (performance.now() - t0) / 1000, tokensPerSecond: 0 });
        emit({ kind: 'epoch', epoch: epochs, loss: e.loss, devF1: e.devF1, seconds: (performance.now() - t0) / 1000, tokensPerSecond: 0, best: false });
        void updateRun(db, runId, { metrics });
      },
    },
    runStore(db, runId),
  );
  metrics.stages = r.stages;
  if (r.stopped === 'cancelled') {
    r.dispose();
    await updateRun(db, runId, { status: 'cancelled', metrics, finishedAt: Date.now() });
    return metrics;
  }
  emit({ kind: 'stage', stage: 'predicting' });
  const all = toSentences(
    d.parsed,
    d.docs.map(() => undefined),
    d.tags,
  );
  const spans = await r.predict(all, all.map(weakSpansOf));
  const predicted: { start: number; end: number; label: string }[][] = d.docs.map(() => []);
  all.forEach((s, k) => predicted[s.doc].push(...spans[k].map((x) => ({ ...x, start: x.start + s.offset, end: x.end + s.offset }))));
  const score = (ks: number[]) =>
    scoreSpans(
      ks.map((k) => d.goldAnns[k].spans),
      ks.map((k) => predicted[k]),
    );
  Object.assign(metrics, {
    bestEpoch: metrics.history.reduce((b, h) => (h.devF1 > (metrics.history[b - 1]?.devF1 ?? -1) ? h.epoch : b), 0),
    dev: score(d.devIdx),
    test: d.testIdx.length ? score(d.testIdx) : undefined,
    ...(d.weakAnns ? weakScores({ kind: 'weak', name: d.weakLayerName }, d.weakAnns, d.goldAnns, d.devIdx, d.testIdx) : {}),
    trainSentences: r.trainSentences,
    tokensPerSecond: r.tokensPerSecond,
    wallSeconds: (performance.now() - t0) / 1000,
  });
  const model = await r.state();
  r.dispose();
  await finishRun(db, {
    runId,
    projectId: d.projectId,
    docIds: d.docs.map((doc) => doc.id!),
    predicted,
    model,
    metrics,
  });
  return metrics;
}
