/**
 * A project in IndexedDB as the run engine's source: its documents, label layers, gazetteers and
 * weak labels make the run's sentences; its word vectors and kept encoders start the model; a
 * finished run's predictions, signals and model go back in one transaction.
 */
import { mergeCorrections } from '../core/annotate';
import { alignedLexicon, type Lexicon, lexiconFromSpans, lexiconMatcher, lexiconSize, makeLexicon, spanMatches, weakFeatureTypes } from '../core/lexicon';
import { publicLibrarySources } from '../core/publicGazetteers';
import { scoreSpans } from '../core/metrics';
import type { EditorAnnotation } from '../core/progress';
import { parseRunConfig, type RunConfig, runMethodName, selfTrainingPoolSize } from '../core/runConfig';
import { tagsToSpans } from '../core/tagScheme';
import type { Annotation, ParsedDoc, Span } from '../core/types';
import { UNKNOWN_TYPE, sentenceRanges, tokenTexts } from '../core/types';
import { type AbbreviationOptions, withAbbreviations } from '../core/weak/abbreviations';
import { findEncoder, hasOwnGazetteer, layerAnnotations, projectLexicon, saveEmbeddings, saveEncoder, toParsedDoc, weakSourceTrust } from '../db/repo';
import { reliabilityLine } from '../core/weak/reliability';
import { layerRows } from '../db/layerStore';
import { addLaterPredictions, endRunWithoutModel, finishRun, type LaterPrediction, loadRunState, saveRunState, updateRun } from '../db/runs';
import type { DocumentRow, LayerRow, RunRow, StudioDB } from '../db/schema';
import { encodeFloat32, MODEL_FORMAT, type ModelFile, type ModelInputs } from '../core/modelFile';
import { inputMatches } from '../core/modelInputs';
import { weakDoc } from '../core/weak/pipeline';
import { weakRecipe } from './weakJob';
import { type EncoderUse, type EngineData, type FinishedRun, noEntityWarning, type RunSource } from '../engine/run';
import { classesOf, type DecoupledState, disposeDecoupled, predictDecoupled, restoreDecoupled } from '../methods/decoupled';
import { getMethod, getPipeline } from '../methods/registry';
import type { TrainSignals } from '../methods/pipelines';
import { crfKernelActive } from '../model/crf';
import { fusedKernels } from '../model/fusedKernels';
import { bioTags, ioTags, toSentences, type LabeledSentence } from '../model/data';
import { lookupForm, trimGlove, type Embeddings, type GloveAsset } from '../model/embeddings';
import { type StarterAsset, starterGroups, starterPredictions, starterTypes } from '../model/starter';
import { buildFeaturizer, type Featurizer, featureDims } from '../model/features';
import { encoderKey, encoderPretraining, type PretrainedEncoder, pretrainEncoder, textFingerprint } from '../model/pretrain';
import { type Decoding, Tagger, TaggerEnsemble, type Weights } from '../model/tagger';
import * as tf from '../model/tf';
import { predict, predictMarginals, type RunStore, tagShiftsOf } from '../model/train';
import { chooseBackend } from './backend';
import { collectSignals, type TrainEvent, type TrainMetrics } from './trainJob';

/** What the source keeps between loading a project's run and recording it. */
interface Loaded {
  docs: DocumentRow[];
  parsed: ParsedDoc[];
  layer: LayerRow;
  layerAnns: Annotation[];
  /** Whether the training layer has a row for each document (an imported weak layer may label the train split only). */
  layerCovers: boolean[];
  goldAnns: Annotation[];
  devIdx: number[];
  testIdx: number[];
  /** The project's unlabeled text (unassigned documents), which the encoder pre-trains on too. */
  unassigned: LabeledSentence[];
  withLex: <T extends { words: readonly string[]; doc: number; offset: number }>(ss: T[]) => T[];
  /** What makes the model's feature groups. */
  makes: FeatureMakers;
}

export interface ProjectRunArgs {
  db: StudioDB;
  cfg: RunConfig;
  runId: number;
  metrics: TrainMetrics;
  fetchGlove: () => Promise<GloveAsset>;
  /** The starter model (model.starter), fetched when a run reads it. */
  fetchStarter: () => Promise<StarterAsset>;
  /** A text file the app serves (public/: the gazetteer library's lists for model.publicLibrary), by its path there. */
  fetchPublic: (path: string) => Promise<string>;
  emit: (e: TrainEvent) => void;
  control: () => 'go' | 'stop' | 'cancel';
  /** Seconds trained over every attempt so far. */
  elapsed: () => number;
}

/**
 * A run's store in IndexedDB: rows of kind 'stage', removed with the run's other rows when it ends.
 * A single-stage run interrupted before the run engine kept its checkpoint as a row of kind
 * 'checkpoint': its first stage's checkpoint is read from there when the store has none.
 */
export function projectRunStore(db: StudioDB, runId: number): RunStore {
  return {
    load: async (key) => (await loadRunState(db, runId, 'stage', key)) ?? (key.startsWith('checkpoint 0 ') ? loadRunState(db, runId, 'checkpoint') : undefined),
    save: (key, value) => saveRunState(db, runId, 'stage', value, key),
  };
}

export function projectSource(a: ProjectRunArgs): RunSource<TrainMetrics> {
  let loaded: Loaded | null = null;
  const stage = (s: string) => a.emit({ kind: 'stage', stage: s });
  return {
    async load(cfg) {
      const { data, kept } = await loadProject(a, cfg);
      loaded = kept;
      return data;
    },
    encoder: (cfg, data) => projectEncoder(a, cfg, data.feat, [...data.train, ...loaded!.unassigned]),
    init: (cfg, data) => (cfg.loop ? loopStart(a, cfg, data.tags, data.feat) : Promise.resolve(undefined)),
    async recover(e) {
      if (a.metrics.backend !== 'webgpu' || !(await deviceLost())) return false;
      // The GPU device was lost: the run goes on from its store on the next backend.
      const next = await chooseBackend('wasm');
      a.metrics.backend = next.backend;
      a.metrics.backendReason = `${next.reason}; the WebGPU device was lost (${(e as Error).message}) and training resumed from the run's store`;
      a.emit({ kind: 'backend', choice: { ...next, reason: a.metrics.backendReason } });
      return true;
    },
    // An ensemble's members are kept beside its first member's weights (a review-loop fine-tune starts each member from its own).
    ensembles: true,
    record: (run, data) => recordProjectRun(a, loaded!, run, data, stage),
    async ended(how, reason) {
      // Cancelled by the user: the status says it. Stopped before any stage kept a model: why there is none.
      await endRunWithoutModel(a.db, a.runId, {
        status: 'cancelled',
        error: how === 'stopped' ? `${reason}, before any stage had a model` : undefined,
        metrics: a.metrics,
      });
      return a.metrics;
    },
  };
}

let lost = false;
/** Whether the WebGPU device this worker trains on was lost. */
async function deviceLost(): Promise<boolean> {
  await new Promise((r) => setTimeout(r, 0));
  return lost;
}

async function chooseRunBackend(a: ProjectRunArgs, cfg: RunConfig, tags: string[]): Promise<void> {
  const choice = await chooseBackend(cfg.backend, cfg.model.encoder);
  a.metrics.backend = choice.backend;
  a.metrics.backendReason = choice.reason;
  if (cfg.model.head === 'crf') {
    a.metrics.crf = crfKernelActive(tags.length) ? 'wgsl kernels' : 'generic ops';
    a.metrics.backendReason += `; CRF on ${a.metrics.crf}`;
  }
  a.metrics.kernels = fusedKernels(cfg, tags.length);
  if (a.metrics.kernels.length) a.metrics.backendReason += `; fused kernels: ${a.metrics.kernels.join(', ')}`;
  lost = false;
  const device = (tf.backend() as unknown as { device?: { lost?: Promise<unknown> } }).device;
  void device?.lost?.then(() => (lost = true));
  a.emit({ kind: 'backend', choice: { ...choice, reason: a.metrics.backendReason } });
  await updateRun(a.db, a.runId, { status: 'running', error: undefined, metrics: a.metrics });
}

/** The layers a project run reads, checked: the training layer (with its corrections merged per sentence) and gold. */
async function readLayers(db: StudioDB, cfg: RunConfig & { data: { kind: 'project' } }) {
  const { projectId, layerId, goldLayerId } = cfg.data;
  const project = await db.projects.get(projectId);
  if (!project) throw new Error(`project ${projectId} does not exist`);
  const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
  const docIds = docs.map((d) => d.id!);
  const layer = await db.layers.get(layerId);
  if (!layer) throw new Error(`layer ${layerId} does not exist`);
  const layerRowsRead = await layerRows(db, layerId, docIds);
  const layerCovers = layerRowsRead.map((r) => r !== undefined);
  let layerAnns: Annotation[] = layerRowsRead.map((r) => r ?? { spans: [], oMode: 'partial', oTokens: [] });
  // model.abbreviations: the short forms the text defines after a typed weak span, read into a weak
  // layer (over every document in import order, as the Weak labels page reads them into an aggregate);
  // a document the layer does not label stays unlabeled.
  let abbreviated: number | null = null;
  if (cfg.model.abbreviations && layer.kind === 'weak') {
    const before = layerAnns;
    const read = withAbbreviations(
      docs.map((d) => ({ tokens: tokenTexts(d) })),
      before,
      cfg.model.abbreviations,
    ).annotations;
    abbreviated = 0;
    layerAnns = read.map((x, k) => {
      if (!layerCovers[k] || x === before[k]) return before[k];
      abbreviated! += x.spans.length - before[k].spans.length;
      return x;
    });
  }
  const goldAnns = await layerAnnotations(db, goldLayerId, docIds);
  // Which training sentences are weak: all of a weak layer's, except those the strong layer
  // settles (a complete row's every sentence; a reviewed sentence of a corrections layer).
  const strongStarts = docs.map(() => new Set<number>());
  let trainAnns = layerAnns;
  if (cfg.data.strongLayerId !== undefined) {
    const rows = (await layerRows(db, cfg.data.strongLayerId, docIds)) as (EditorAnnotation | undefined)[];
    trainAnns = trainAnns.map((x, k) => {
      if (!rows[k]) return x;
      const m = mergeCorrections(x.spans, rows[k], sentenceRanges(docs[k]));
      strongStarts[k] = m.strongStarts;
      return { ...x, spans: m.spans };
    });
  }
  const idx = (split: string) => docs.map((d, k) => (d.split === split ? k : -1)).filter((k) => k >= 0);
  const [trainIdx, devIdx, testIdx] = [idx('train'), idx('dev'), idx('test')];
  const typesIn = (ks: number[], anns: Annotation[]) => new Set(ks.flatMap((k) => anns[k].spans.map((s) => s.label)).filter((l) => l !== UNKNOWN_TYPE));
  const trainTypes = typesIn(trainIdx, trainAnns);
  if (!trainTypes.size) throw new Error('the chosen layer has no labeled entity on the train split');
  if (!devIdx.some((k) => goldAnns[k].spans.length)) throw new Error('the gold layer has no labeled entity on the dev split, which selects the model');
  const missing = [...typesIn([...devIdx, ...testIdx], goldAnns)].filter((t) => !trainTypes.has(t));
  if (missing.length) throw new Error(`label sets differ between layers: the gold layer has ${missing.join(', ')}, which the training layer never labels`);
  const goldRows = await layerRows(db, goldLayerId, docIds);
  return {
    docs,
    docIds,
    layer,
    layerAnns,
    layerCovers,
    trainAnns,
    goldAnns,
    goldRows,
    strongStarts,
    trainTypes,
    trainIdx,
    devIdx,
    testIdx,
    unassignedIdx: idx('unassigned'),
    abbreviated,
  };
}

/** The run's sentences from the project's layers, with the dictionary and weak-label features its model reads, and the featurizer. */
async function loadProject(a: ProjectRunArgs, cfg: RunConfig, use: 'train' | 'predict' = 'train'): Promise<{ data: EngineData; kept: Loaded }> {
  if (cfg.data.kind !== 'project') throw new Error('a browser run trains on a project: data.kind must be "project"');
  const L = await readLayers(a.db, cfg as RunConfig & { data: { kind: 'project' } });
  const stage = (s: string) => a.emit({ kind: 'stage', stage: s });
  const { docs, layer, trainTypes } = L;
  // RoSTER's two-part head trains on IO tags (Appendix C); every other head on BIO.
  const tags = cfg.model.head === 'twopart' ? ioTags([...trainTypes].sort()) : bioTags([...trainTypes].sort());
  a.metrics.tags = tags;
  // The backend first: the starter model predicts on it while the features are made. A finished
  // run predicting its unseen documents records nothing of it: its status and metrics stay.
  if (use === 'train') await chooseRunBackend(a, cfg, tags);
  else a.emit({ kind: 'backend', choice: await chooseBackend(cfg.backend, cfg.model.encoder) });
  const parsed = docs.map(toParsedDoc);
  const sub = (ks: number[], anns: readonly (Annotation | undefined)[]) =>
    toSentences(
      ks.map((k) => parsed[k]),
      ks.map((k) => anns[k]),
      tags,
    ).map((s) => ({ ...s, doc: ks[s.doc] }));
  // Where the gold layer also labels a weak training document, its entities that the weak labels
  // miss are the "hidden" ones the diagnostics tell apart from true O (PU's O-values per epoch,
  // negative sampling's missampling rate), as synthetic masking does in the experiments.
  let goldTrain: ReturnType<typeof sub> | null = null;
  try {
    goldTrain = sub(L.trainIdx, L.goldAnns);
  } catch {
    goldTrain = null; // the gold layer has a type the training layer never labels: no hidden entities
  }
  const weakLayer = layer.kind === 'weak';
  const trainRaw = sub(L.trainIdx, L.trainAnns).map((x, k) => {
    const complete = goldTrain && weakLayer && L.goldRows[x.doc]?.oMode === 'complete';
    const hidden = complete ? goldTrain![k].tags.map((g, t) => (x.tags[t] === 0 ? g : 0)) : undefined;
    return { ...x, weak: weakLayer && !L.strongStarts[x.doc].has(x.offset), ...(hidden ? { hidden } : {}) };
  });
  stage('loading word vectors');
  const emb = await projectEmbeddings(
    a.db,
    cfg.data.projectId,
    docs.flatMap((d) => tokenTexts(d)),
    a.fetchGlove,
  );
  const withLex = await featureAttacher(a, cfg, L, [...trainTypes].sort(), stage, { emb, parsed, tags });
  if (cfg.model.abbreviations) {
    const what =
      L.abbreviated === null
        ? `the abbreviations the text defines: off, layer "${layer.name}" is not a weak layer`
        : `the abbreviations the text defines, read into layer "${layer.name}" (a definition holds in its document and the ${cfg.model.abbreviations.following} after it): ${L.abbreviated.toLocaleString()} span${L.abbreviated === 1 ? '' : 's'} added`;
    stage(what);
    a.metrics.features = [...(a.metrics.features ?? []).filter((x) => x !== what), what];
  }
  const train = withLex.attach(trainRaw);
  const dev = withLex.attach(sub(L.devIdx, L.goldAnns));
  // The self-training pool (pipeline.unlabeled of completion, BOND and RoSTER): the sentences of the
  // unassigned documents, the project's unlabeled text (the encoder pre-trains on it too).
  const unassigned = sub(L.unassignedIdx, []);
  const poolSize = selfTrainingPoolSize(cfg.pipeline);
  const unlabeled = poolSize > 0 ? withLex.attach(unassigned.slice(0, poolSize)) : [];
  if (poolSize > 0)
    stage(
      unlabeled.length
        ? `self-training on ${unlabeled.length} sentences of the unassigned documents`
        : 'self-training: off, the project has no unassigned documents (documents of no split are its unlabeled text)',
    );
  const mod = getPipeline(cfg.pipeline.kind);
  const trainWords = train.map((s) => s.words);
  const feat = buildFeaturizer(emb, mod.featurizerWords ? mod.featurizerWords(trainWords) : trainWords, tags, { spelling: cfg.model.spelling });
  if (withLex.groups.length) feat.lexicon = withLex.groups;
  const spanData = mod.spanModel ? await spanModelData(a.db, cfg.data.projectId, weakLayer ? L.layerAnns : null, dev) : {};
  return {
    data: { tags, feat, train, dev, ...(unlabeled.length ? { unlabeled } : {}), ...spanData },
    kept: {
      docs,
      parsed,
      layer,
      layerAnns: L.layerAnns,
      layerCovers: L.layerCovers,
      goldAnns: L.goldAnns,
      devIdx: L.devIdx,
      testIdx: L.testIdx,
      unassigned,
      withLex: withLex.attach,
      makes: withLex.makes,
    },
  };
}

/**
 * The token features a project's model reads beyond words: its gazetteer matches (model.dictionary),
 * the project's weak labels (model.weakFeatures: the training layer's when it is a weak layer,
 * else the aggregate weak layer's) and the starter model's predictions (model.starter), attached
 * to any of its sentences.
 */
async function featureAttacher(
  a: ProjectRunArgs,
  cfg: RunConfig,
  L: Awaited<ReturnType<typeof readLayers>>,
  types: string[],
  stage: (s: string) => void,
  text: { emb: Embeddings; parsed: ParsedDoc[]; tags: string[] },
) {
  const projectId = (cfg.data as { projectId: number }).projectId;
  const tokenFeatures = getPipeline(cfg.pipeline.kind).tokenFeatures !== false;
  const dictionary = cfg.model.dictionary && tokenFeatures;
  // What differs from the options is said live and kept with the run (its page lists it).
  const note = (s: string) => {
    stage(s);
    a.metrics.features = [...(a.metrics.features ?? []).filter((x) => x !== s), s];
  };
  const trust = dictionary && cfg.model.sourceReliability ? await weakSourceTrust(a.db, projectId) : null;
  if (dictionary && cfg.model.sourceReliability)
    note(
      trust
        ? `dictionary features valued by each source's trust, as the HMM of the newest weak labels estimated it: ${reliabilityLine(trust)}`
        : "each source's trust: off, no HMM made the newest weak labels (every dictionary match reads 1)",
    );
  let lexicon = dictionary ? await projectLexicon(a.db, projectId, cfg.model.ruleFeatures, trust ?? undefined) : null;
  if (dictionary && L.layer.kind === 'weak' && !(await hasOwnGazetteer(a.db, projectId))) lexicon = withLayerStrings(L, lexicon, note);
  if (dictionary && cfg.model.publicLibrary) lexicon = await withPublicLibrary(a, projectId, lexicon, types, stage);
  // Weak labels are features only where the model will also see them when it predicts: an imported
  // layer of distant labels on the train split alone would be learned, then never seen on dev or test.
  const weakUncovered = L.layer.kind === 'weak' && ![...L.devIdx, ...L.testIdx].some((k) => L.layerCovers[k]);
  if (cfg.model.weakFeatures && tokenFeatures && weakUncovered)
    note(
      `the weak labels as features: off, layer "${L.layer.name}" labels no dev or test document (the model would learn them and never see them where it predicts)`,
    );
  const weakTypes = cfg.model.weakFeatures && tokenFeatures && !weakUncovered ? types : [];
  const weakAnns = weakTypes.length ? await projectWeakLabels(a.db, projectId, L.layer, L.layerAnns, L.docIds) : null;
  if (weakAnns) stage(`the weak labels as features (${weakTypes.join(', ')})`);
  const starter = cfg.model.starter && tokenFeatures ? await projectStarter(a, text, stage) : null;
  if (cfg.model.starter && !tokenFeatures) stage("the starter model: off, this method's model reads words only");
  if (dictionary && cfg.loop) {
    // A review-loop fine-tune reads the dictionary through its model's groups: the gazetteers may
    // have gained or lost a type since ("add to gazetteer"), and the model's input stays as it was.
    const groups = (await loopModel(a, cfg.loop.fromRunId)).lexicon ?? [];
    const others = (weakAnns ? weakTypes.length : 0) + (starter ? starter.types.length : 0);
    const aligned = alignedLexicon(lexicon ?? makeLexicon([]), groups.slice(0, Math.max(0, groups.length - others)));
    if (aligned.left.length) stage(`dictionary features of ${aligned.left.join(', ')} left out: the model being fine-tuned has none (a fresh run reads them)`);
    lexicon = aligned.lexicon.types.length ? aligned.lexicon : null;
  }
  const match = lexicon ? lexiconMatcher(lexicon) : null;
  if (lexicon)
    stage(
      `dictionary features from ${lexiconSize(lexicon).toLocaleString()} entries${lexicon.rules ? ` and ${lexicon.rules.length} rules` : ''} (${lexicon.types.join(', ')})`,
    );
  const weakBase = lexicon?.types.length ?? 0;
  const starterBase = weakBase + (weakAnns ? weakTypes.length : 0);
  const attach = <T extends { words: readonly string[]; doc: number; offset: number }>(ss: T[]): T[] =>
    match || weakAnns || starter
      ? ss.map((x) => ({
          ...x,
          lex: [
            ...(match ? match(x.words) : []),
            ...(weakAnns ? spanMatches(weakAnns[x.doc]?.spans ?? [], x.offset, x.words.length, weakTypes, weakBase) : []),
            ...(starter ? spanMatches(starter.spans[x.doc], x.offset, x.words.length, starter.types, starterBase) : []),
          ],
        }))
      : ss;
  const groups =
    lexicon || weakAnns || starter ? [...(lexicon?.types ?? []), ...weakFeatureTypes(weakAnns ? weakTypes : []), ...starterGroups(starter?.types ?? [])] : [];
  // What makes each group, for a model file that labels new text (exportModel).
  const makes: FeatureMakers = {
    ...(lexicon ? { lexicon } : {}),
    ...(weakAnns
      ? {
          weak: {
            types: weakTypes,
            layer: L.layer.kind === 'weak' ? L.layer : (await projectAggregateLayer(a.db, projectId))!,
            ...(L.layer.kind === 'weak' && cfg.model.abbreviations ? { readAbbreviations: cfg.model.abbreviations } : {}),
          },
        }
      : {}),
    ...(starter ? { starter: starter.types } : {}),
  };
  return { attach, groups, makes };
}

/** The dictionary, weak labels and starter model a run's feature groups read (featureAttacher). */
interface FeatureMakers {
  lexicon?: Lexicon;
  weak?: { types: string[]; layer: LayerRow; readAbbreviations?: AbbreviationOptions };
  starter?: string[];
}

const projectAggregateLayer = async (db: StudioDB, projectId: number) =>
  (await db.layers.where('projectId').equals(projectId).toArray()).find((l) => l.role === 'aggregate');

/**
 * A project with no gazetteer of its own that trains on a weak layer (distant labels imported with
 * the text): its dictionary is the distinct strings the layer labels on the train split, each with
 * its type, matched case-sensitively, as the suite's distant settings read theirs
 * (bench/configs/corpora.json); nothing from dev or test. The annotator's corrections gazetteer and
 * stop list, and the project's rules, join it as they join any dictionary.
 */
function withLayerStrings(L: Awaited<ReturnType<typeof readLayers>>, lexicon: Lexicon | null, note: (s: string) => void): Lexicon | null {
  const entries = lexiconFromSpans(L.trainIdx.map((k) => ({ words: tokenTexts(L.docs[k]), spans: L.layerAnns[k].spans })));
  if (!entries.length) return lexicon;
  note(
    `dictionary features: the project has no gazetteer of its own, so its dictionary is the ${entries.length.toLocaleString()} distinct strings layer "${L.layer.name}" labels on the train split`,
  );
  return makeLexicon([{ mode: 'sensitive', entries }, ...(lexicon?.sources ?? [])], lexicon?.rules ?? [], lexicon?.stop ?? []);
}

/** The project's dictionary with the public gazetteer library's lists of its kinds of type (model.publicLibrary). */
async function withPublicLibrary(a: ProjectRunArgs, projectId: number, lexicon: Lexicon | null, types: string[], stage: (s: string) => void) {
  const have = new Set((await a.db.gazetteers.where('projectId').equals(projectId).toArray()).flatMap((g) => (g.public ? [g.public.list] : [])));
  const { sources, added } = await publicLibrarySources(types, have, a.fetchPublic);
  a.metrics.publicLibrary = added;
  const own = have.size ? `; the project's own ${[...have].join(', ')} as it has them` : '';
  stage(
    added.length
      ? `the public gazetteer library: ${added.map((x) => `${x.id} as ${x.type}`).join(', ')}${own}`
      : `the public gazetteer library: no list maps onto ${types.join(', ')}${own}`,
  );
  return sources.length
    ? makeLexicon([...(lexicon?.sources ?? []), ...sources], lexicon?.rules ? [...lexicon.rules] : [], lexicon?.stop ? [...lexicon.stop] : [])
    : lexicon;
}

/** The starter model's spans on every document of the project (in document positions), and its types. */
async function projectStarter(a: ProjectRunArgs, text: { emb: Embeddings; parsed: ParsedDoc[]; tags: string[] }, stage: (s: string) => void) {
  stage('the starter model: reading every document');
  const asset = await a.fetchStarter();
  const sentences = toSentences(
    text.parsed,
    text.parsed.map(() => undefined),
    text.tags,
  );
  const found = await starterPredictions(asset, text.emb, sentences);
  const spans: Span[][] = text.parsed.map(() => []);
  sentences.forEach((s, k) => spans[s.doc].push(...found[k].map((x) => ({ ...x, start: x.start + s.offset, end: x.end + s.offset }))));
  const types = starterTypes(asset);
  const n = (t: string) => found.reduce((c, ss) => c + ss.filter((x) => x.label === t).length, 0);
  a.metrics.starter = { sentences: sentences.length, spans: Object.fromEntries(types.map((t) => [t, n(t)])) };
  stage(
    `the starter model as features (${types.map((t) => `${t} ${n(t).toLocaleString()}`).join(', ')} spans in ${sentences.length.toLocaleString()} sentences)`,
  );
  return { types, spans };
}

async function projectWeakLabels(db: StudioDB, projectId: number, layer: LayerRow, layerAnns: Annotation[], docIds: number[]): Promise<Annotation[]> {
  if (layer.kind === 'weak') return layerAnns;
  const aggregate = await projectAggregateLayer(db, projectId);
  if (!aggregate) throw new Error("weak labels as features need the project's weak labels: make them on the Weak labels page first");
  return layerAnnotations(db, aggregate.id!, docIds);
}

/** A span model's extra data: the project's typed gazetteer entries, and the weak layer's spans of each dev sentence as candidates. */
async function spanModelData(db: StudioDB, projectId: number, weakAnns: Annotation[] | null, dev: LabeledSentence[]) {
  const gazetteers = await db.gazetteers.where('projectId').equals(projectId).primaryKeys();
  const entries = await db.gazetteerEntries.where('gazetteerId').anyOf(gazetteers).toArray();
  const dictionary = entries.filter((e) => e.type !== null).map((e) => ({ words: e.phrase.split(' '), type: e.type! }));
  return { dictionary, devProposals: dev.map((s) => weakSpansOf(weakAnns, s)) };
}

/** A weak layer's spans inside one sentence, in the sentence's positions. */
function weakSpansOf(weakAnns: Annotation[] | null, s: LabeledSentence): Span[] {
  return (weakAnns?.[s.doc].spans ?? [])
    .filter((x) => x.start >= s.offset && x.end <= s.offset + s.words.length)
    .map((x) => ({ ...x, start: x.start - s.offset, end: x.end - s.offset }));
}

async function projectEmbeddings(db: StudioDB, projectId: number, words: Iterable<string>, fetchGlove: () => Promise<GloveAsset>): Promise<Embeddings> {
  const need = new Set<string>();
  for (const w of words) need.add(lookupForm(w));
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
 * same key, else pre-trained now on the train split and the unassigned documents (progress as
 * stage events; stop and cancel end it with null) and kept. Seed 1 whatever the run's seed: one
 * encoder serves every run of this model shape.
 */
async function projectEncoder(a: ProjectRunArgs, cfg: RunConfig, feat: Featurizer, sentences: { words: string[] }[]): Promise<EncoderUse | null> {
  const projectId = (cfg.data as { projectId: number }).projectId;
  const stage = (s: string) => a.emit({ kind: 'stage', stage: s });
  const text = sentences.map((x) => ({ words: x.words }));
  const o = encoderPretraining(cfg);
  const key = encoderKey(cfg.model, feat, o, textFingerprint(text));
  let e: PretrainedEncoder | null | undefined = await findEncoder(a.db, projectId, key);
  if (e) stage(`project encoder: pre-trained earlier (${e.losses.length} epochs on ${e.sentences.toLocaleString()} sentences)`);
  else {
    stage(`project encoder: pre-training on ${text.length.toLocaleString()} sentences of the train split and the unassigned documents (${o.epochs} epochs)`);
    const fresh = await pretrainEncoder(cfg.model, feat, text, o, {
      onEpoch: (epoch, loss) => stage(`project encoder: epoch ${epoch} of ${o.epochs} done, language-model loss ${loss.toFixed(3)}`),
      onProgress: (epoch, batch, batches, loss) =>
        stage(`project encoder: epoch ${epoch} of ${o.epochs}, batch ${batch} of ${batches}, loss ${loss.toFixed(3)}`),
      progressSeconds: 2,
      shouldStop: () => a.control() !== 'go',
    });
    if (!fresh) return null;
    await saveEncoder(a.db, { ...fresh, projectId, createdAt: Date.now() });
    e = fresh;
  }
  a.metrics.encoder = { epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds, loss: e.losses[e.losses.length - 1] };
  return { weights: e.weights, lm: e.lm, epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds };
}

/**
 * The weights a review-loop fine-tune starts from: run `cfg.loop.fromRunId`'s final model, which
 * must have the same tags and feature groups as this run (a changed label set or dictionary needs
 * a fresh run; the message says so); an ensemble's, every member's weights, one per member.
 */
async function loopStart(a: ProjectRunArgs, cfg: RunConfig, tags: readonly string[], feat: Featurizer): Promise<Weights | Weights[]> {
  const from = cfg.loop!.fromRunId;
  const model = await loopModel(a, from);
  checkSameInput(from, model, tags, feat);
  // One model (a loop run queued before ensembles fine-tuned whole starts from the first member's weights).
  if (cfg.train.members === 1) return model.weights;
  const members = model.members?.map((m) => m.weights) ?? [model.weights];
  if (members.length !== cfg.train.members)
    throw new Error(`run ${from} keeps ${members.length} ${members.length === 1 ? 'model' : 'models'}, this fine-tune has train.members ${cfg.train.members}`);
  return members;
}

/** A run's model read with the input it was trained on: the same tags and feature groups, else the message says what changed. */
function checkSameInput(from: number, model: LoopModel, tags: readonly string[], feat: Featurizer): void {
  if (model.tags.join(' ') !== tags.join(' '))
    throw new Error(`run ${from} tags ${model.tags.join(' ')}, this run ${tags.join(' ')}: the label set changed, so train a fresh model`);
  const [had, has] = [model.lexicon ?? [], feat.lexicon ?? []];
  if (had.join('\n') !== has.join('\n'))
    throw new Error(`run ${from} read the feature groups ${had.join(', ') || 'none'}, this run ${has.join(', ') || 'none'}: train a fresh model`);
}

type LoopModel = { tags: string[]; weights: Weights; lexicon?: string[]; members?: { weights: Weights }[] };
/** A token-tagger run's final model as recordProjectRun keeps it. */
type KeptModel = LoopModel & {
  /** A model opened from a file: how to make its features (its own dictionary and weak labels' recipe). */
  inputs?: ModelInputs;
  chars: [string, number][];
  oov: [string, number][];
  oShift: number;
  typeShifts?: Record<string, number>;
  members?: { weights: Weights; oShift: number }[];
};
/** Each run's read of its starting model: the features and the weights read the same row once. */
const loopModels = new WeakMap<ProjectRunArgs, Promise<LoopModel>>();

/** The final model of the run a review-loop fine-tune starts from. */
function loopModel(a: ProjectRunArgs, from: number): Promise<LoopModel> {
  let model = loopModels.get(a);
  if (!model) loopModels.set(a, (model = readLoopModel(a.db, from)));
  return model;
}

async function readLoopModel(db: StudioDB, from: number): Promise<LoopModel> {
  const row = await db.models
    .where('runId')
    .equals(from)
    .filter((m) => m.kind === 'final')
    .first();
  const model = row?.state as LoopModel | undefined;
  if (!model?.weights) throw new Error(`run ${from} has no final model to fine-tune from (it did not finish, or it was deleted)`);
  return model;
}

/**
 * A weak training layer scored against gold on dev and test (the run page shows it beside the
 * model's scores); nothing for a gold or corrected layer, nor on a split the layer labels no
 * document of (distant labels imported for the train split only: "0.0" would read as labels that
 * are all wrong).
 */
function weakScores(L: Loaded): Pick<TrainMetrics, 'weak'> {
  if (L.layer.kind !== 'weak') return {};
  const score = (ks: number[]) =>
    ks.some((k) => L.layerCovers[k])
      ? scoreSpans(
          ks.map((k) => L.goldAnns[k].spans),
          ks.map((k) => L.layerAnns[k].spans.filter((s) => s.label !== UNKNOWN_TYPE)),
        )
      : undefined;
  const [dev, test] = [score(L.devIdx), score(L.testIdx)];
  return { weak: { layer: L.layer.name, ...(dev ? { dev } : {}), ...(test ? { test } : {}) } };
}

/**
 * A finished run into the project: every document's predictions as a layer, scored on dev and
 * test beside the weak labels; the review signals; the model; in one transaction.
 */
async function recordProjectRun(a: ProjectRunArgs, L: Loaded, run: FinishedRun, data: EngineData, stage: (s: string) => void): Promise<TrainMetrics> {
  const { metrics } = a;
  const { docs, tags } = { docs: L.docs, tags: data.tags };
  stage('predicting');
  const all = L.withLex(
    toSentences(
      L.parsed,
      docs.map(() => undefined),
      tags,
    ),
  );
  const bySentence = await run.model.predict(
    all,
    all.map((s) => weakSpansOf(L.layer.kind === 'weak' ? L.layerAnns : null, s)),
  );
  const predicted: Span[][] = docs.map(() => []);
  all.forEach((s, k) => predicted[s.doc].push(...bySentence[k].map((x) => ({ ...x, start: x.start + s.offset, end: x.end + s.offset }))));
  const score = (ks: number[]) =>
    scoreSpans(
      ks.map((k) => L.goldAnns[k].spans),
      ks.map((k) => predicted[k]),
    );
  const warning = noEntityWarning(
    run,
    a.cfg,
    data.train,
    predicted.reduce((n, p) => n + p.length, 0),
  );
  if (warning) stage(warning);
  Object.assign(metrics, {
    ...(warning ? { warning } : {}),
    bestEpoch: run.bestEpoch,
    stages: run.stages,
    ...(run.keptStage ? { keptStage: run.keptStage } : {}),
    ...(run.dictionaryDropout !== undefined ? { dictionaryDropout: run.dictionaryDropout } : {}),
    ...(run.typeShifts ? { typeShifts: run.typeShifts } : {}),
    ...(run.membersDev ? { members: run.membersDev } : {}),
    ...run.metrics,
    oShift: run.oShift,
    dev: score(L.devIdx),
    test: L.testIdx.length ? score(L.testIdx) : undefined,
    ...weakScores(L),
    trainSentences: run.trainSentences,
    tokensPerSecond: run.tokensPerSecond,
    wallSeconds: a.elapsed(),
  });
  const tagger = run.model.decoding;
  if (!tagger) {
    const model = await run.model.spanState!();
    run.model.dispose();
    await finishRun(a.db, { runId: a.runId, projectId: docs[0].projectId, docIds: docs.map((d) => d.id!), predicted, model, metrics });
    return metrics;
  }
  stage('recording review signals');
  const marginals = await predictMarginals(tagger, data.feat, all);
  const trainSignals = await methodRecord(a, run, data, docs);
  const signals = collectSignals(
    docs.map((d) => d.offsets.length >> 1),
    all,
    marginals,
    data.train,
    trainSignals,
    tags,
  );
  const members = run.model.members;
  // An ensemble keeps every member's weights and shifts; its first member's are also `weights`, the model of one.
  const weights = await (run.model.tagger ?? members![0]).getWeights();
  const kept = members && (await Promise.all(members.map(async (t) => ({ weights: await t.getWeights(), oShift: t.oShift }))));
  run.model.dispose();
  const feat = data.feat;
  await finishRun(a.db, {
    runId: a.runId,
    projectId: docs[0].projectId,
    docIds: docs.map((d) => d.id!),
    predicted,
    signals,
    model: {
      tags,
      weights,
      chars: [...feat.chars],
      oov: [...feat.oov],
      oShift: tagger.oShift,
      ...(run.typeShifts ? { typeShifts: run.typeShifts } : {}),
      ...(feat.lexicon ? { lexicon: feat.lexicon } : {}),
      ...(kept ? { members: kept } : {}),
    },
    metrics,
  });
  return metrics;
}

/** What the run's method records for the review queue and the diagnostics (RoSTER's removals, negative sampling's heat map). */
async function methodRecord(a: ProjectRunArgs, run: FinishedRun, data: EngineData, docs: DocumentRow[]): Promise<TrainSignals | undefined> {
  const { cfg } = a;
  const method = getMethod(cfg.method.name);
  let trainSignals = run.signals;
  // What a method records is of one model's training: an ensemble has none.
  if (!method.record || !run.model.tagger) return trainSignals;
  const rec = await method.record({
    tagger: run.model.tagger!,
    feat: data.feat,
    train: data.train,
    config: method.schema.parse(cfg.method),
    epochs: cfg.train.epochs,
    signals: trainSignals as Record<string, unknown> | undefined,
  });
  if (rec.signals) trainSignals = { ...trainSignals, ...(rec.signals as TrainSignals) };
  // A record names training sentences by their document's index ({ doc }): the page wants the document's id.
  for (const [key, value] of Object.entries(rec.metrics ?? {}))
    (a.metrics as unknown as Record<string, unknown>)[key] = Array.isArray(value)
      ? value.map((m) => (m && typeof m === 'object' && typeof m.doc === 'number' ? { ...m, doc: docs[m.doc].id! } : m))
      : value;
  return trainSignals;
}

/** What predicting a finished run's unseen documents needs: the project's database, the run, the assets, its progress. */
export type PredictArgs = Omit<ProjectRunArgs, 'cfg' | 'metrics' | 'control' | 'elapsed'>;

/**
 * A finished run's model on the project's documents it has no predictions for (imported after it
 * finished), their spans added to its predicted layer (addLaterPredictions). Their features are
 * made as a review-loop fine-tune of the run makes its own: the project's dictionary read through
 * the model's feature groups, its weak labels as they are now; where the weak labels were made
 * again since the run (its weak training layer gone), the newest aggregate stands in for that
 * layer; their review signals are the model's uncertainty. The run's scores stay those of its end. A span model (the decoupled method) proposes from
 * its own candidates, which it keeps no state of: it is not offered.
 */
export async function predictUnseen(p: PredictArgs): Promise<LaterPrediction> {
  const { db, runId } = p;
  const stage = (s: string) => p.emit({ kind: 'stage', stage: s });
  const { run, done, model, config } = await keptRun(p, 'predict');
  const docIds = (await db.documents.where('projectId').equals(run.projectId).primaryKeys()) as number[];
  const have = await layerRows(db, done.predictedLayerId!, docIds);
  const unseen = new Set(docIds.filter((_, k) => !have[k]));
  if (!unseen.size) return { documents: 0, spans: 0, at: Date.now() };
  if (!('kind' in model) && model.inputs) return predictFromFile(p, run, model as KeptModel & { inputs: ModelInputs }, unseen);
  const cfg = await config();
  const { data, kept } = await loadKept(p, cfg);
  const decoder = 'kind' in model ? spanDecoder(runId, cfg, model, data, kept) : taggerDecoder(runId, cfg, model, data, kept);
  const ks = kept.docs.flatMap((d, k) => (unseen.has(d.id!) ? [k] : []));
  stage(`predicting ${ks.length.toLocaleString()} document${ks.length === 1 ? '' : 's'} the run has not seen`);
  // A document the weak labels do not label reads none: said, with what the model does without them.
  const missing = decoder.readsWeak ? ks.filter((k) => !kept.layerCovers[k]).length : 0;
  if (missing)
    stage(
      `${missing === ks.length ? (missing === 1 ? 'this document has' : 'these documents have') : `${missing.toLocaleString()} of these documents have`} no weak labels, ${decoder.withoutWeak} (make the weak labels again first to give them theirs)`,
    );
  const sentences = kept.withLex(
    toSentences(
      ks.map((k) => kept.parsed[k]),
      ks.map(() => undefined),
      data.tags,
    ).map((s) => ({ ...s, doc: ks[s.doc] })),
  );
  let decoded: Awaited<ReturnType<UnseenDecoder['decode']>>;
  try {
    decoded = await decoder.decode(sentences);
  } finally {
    decoder.dispose();
  }
  // A tagger's uncertainty on them, which the review queue ranks by (a span model has no tag marginals).
  const signals =
    decoded.marginals === undefined
      ? undefined
      : collectSignals(
          kept.docs.map((d) => d.offsets.length >> 1),
          sentences,
          decoded.marginals,
          [],
          undefined,
          data.tags,
        );
  const predicted = new Map(ks.map((k) => [k, [] as Span[]]));
  sentences.forEach((s, i) => predicted.get(s.doc)!.push(...decoded.spans[i].map((x) => ({ ...x, start: x.start + s.offset, end: x.end + s.offset }))));
  return addLaterPredictions(
    db,
    runId,
    ks.map((k) => kept.docs[k].id!),
    ks.map((k) => predicted.get(k)!),
    signals && ks.map((k) => signals[k]),
  );
}

/**
 * A model opened from a file (db/runs.ts openModelFile) on the project's documents it has not
 * labeled: their features made as its file says (core/modelInputs.ts: its own dictionary, its weak
 * labels' recipe on the project's text, the starter model), decoded with its kept shifts, added to
 * its layer with its uncertainty as their review signal; then its scores are those of its
 * predictions on the project's dev and test gold.
 */
async function predictFromFile(p: PredictArgs, run: RunRow, model: KeptModel & { inputs: ModelInputs }, unseen: ReadonlySet<number>): Promise<LaterPrediction> {
  const { db, runId } = p;
  const stage = (s: string) => p.emit({ kind: 'stage', stage: s });
  const cfg = parseRunConfig(run.config);
  const docs = await db.documents.where('projectId').equals(run.projectId).sortBy('id');
  const parsed = docs.map(toParsedDoc);
  const ks = docs.flatMap((d, k) => (unseen.has(d.id!) ? [k] : []));
  p.emit({ kind: 'backend', choice: await chooseBackend(cfg.backend, cfg.model.encoder) });
  stage('loading word vectors');
  const emb = await projectEmbeddings(
    db,
    run.projectId,
    docs.flatMap((d) => tokenTexts(d)),
    p.fetchGlove,
  );
  const sentences = toSentences(
    ks.map((k) => parsed[k]),
    ks.map(() => undefined),
    model.tags,
  ).map((s) => ({ ...s, doc: ks[s.doc] }));
  const { inputs } = model;
  if (inputs.weak)
    stage(`the weak labels its file's recipe makes (${inputs.weak.gazetteers.length} gazetteers, ${inputs.weak.rules.length} rules, ${inputs.weak.method})`);
  const starter = inputs.starter?.length ? await starterOf(await p.fetchStarter(), emb, sentences) : undefined;
  const notes: string[] = [];
  const lex = inputMatches(inputs, docs.map(weakDoc), sentences, notes, starter);
  for (const n of notes) stage(n);
  const feat: Featurizer = {
    glove: emb,
    chars: new Map(model.chars),
    oov: new Map(model.oov),
    tags: model.tags,
    ...(inputs.groups.length ? { lexicon: inputs.groups } : {}),
    ...(cfg.model.spelling ? { spelling: true } : {}),
  };
  const { taggers, decoding } = keptDecoding(cfg, model, feat);
  stage(`predicting ${count(ks.length, 'document')} with the model from ${(run.metrics as TrainMetrics).imported?.file ?? 'its file'}`);
  const withLex = sentences.map((s, i) => ({ ...s, lex: lex[i] }));
  let paths: number[][];
  let marginals: Float32Array[] | null;
  try {
    paths = (await predict(decoding, feat, withLex)).paths;
    marginals = await predictMarginals(decoding, feat, withLex);
  } finally {
    for (const t of taggers) t.dispose();
  }
  const signals = collectSignals(
    docs.map((d) => d.offsets.length >> 1),
    withLex,
    marginals,
    [],
    undefined,
    model.tags,
  );
  const predicted = new Map(ks.map((k) => [k, [] as Span[]]));
  withLex.forEach((s, i) =>
    predicted.get(s.doc)!.push(
      ...tagsToSpans(
        paths[i].map((t) => model.tags[t]),
        s.offset,
      ),
    ),
  );
  const added = await addLaterPredictions(
    db,
    runId,
    ks.map((k) => docs[k].id!),
    ks.map((k) => predicted.get(k)!),
    ks.map((k) => signals[k]),
  );
  await scoreOnProject(db, runId, docs, cfg.data.kind === 'project' ? cfg.data.goldLayerId : 0);
  return added;
}

const count = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? '' : 's'}`;

/** The starter model's spans on each sentence, and its types. */
async function starterOf(asset: StarterAsset, emb: Embeddings, sentences: readonly { words: readonly string[] }[]) {
  return { types: starterTypes(asset), spans: await starterPredictions(asset, emb, sentences) };
}

/** A model opened from a file scored by its predictions on the project's dev and test gold (where it has labeled them). */
async function scoreOnProject(db: StudioDB, runId: number, docs: readonly DocumentRow[], goldLayerId: number): Promise<void> {
  const run = await db.runs.get(runId);
  const metrics = run?.metrics as TrainMetrics | undefined;
  if (!metrics?.predictedLayerId || !(await db.layers.get(goldLayerId))) return;
  const ids = docs.map((d) => d.id!);
  const [pred, gold] = await Promise.all([layerRows(db, metrics.predictedLayerId, ids), layerRows(db, goldLayerId, ids)]);
  const score = (split: string) => {
    const ks = docs.flatMap((d, k) => (d.split === split && pred[k] && gold[k] ? [k] : []));
    return ks.length
      ? scoreSpans(
          ks.map((k) => gold[k]!.spans),
          ks.map((k) => pred[k]!.spans),
        )
      : undefined;
  };
  const [dev, test] = [score('dev'), score('test')];
  await updateRun(db, runId, { metrics: { ...metrics, ...(dev ? { dev } : {}), ...(test ? { test } : {}) } });
}

/**
 * A finished run's kept model and the config that reads the project for it as a review-loop
 * fine-tune of the run would (the dictionary through the model's groups); where the weak labels
 * were made again since the run (its weak training layer gone), the newest aggregate stands in.
 */
async function keptRun(p: PredictArgs, use: 'predict' | 'export') {
  const { db, runId } = p;
  const run = await db.runs.get(runId);
  if (!run) throw new Error(`run ${runId} does not exist`);
  const done = run.metrics as TrainMetrics | undefined;
  const what = use === 'predict' ? 'predicts' : 'has a model to download';
  if (run.status !== 'done' || done?.predictedLayerId === undefined)
    throw new Error(`run ${runId} ${done?.pruned ? `keeps no model: ${done.pruned}` : `has not finished with predictions: only a finished run ${what}`}`);
  const model = (
    await db.models
      .where('runId')
      .equals(runId)
      .filter((m) => m.kind === 'final')
      .first()
  )?.state as KeptModel | DecoupledState | undefined;
  if (!model?.weights || !model.chars)
    throw new Error(
      `run ${runId} keeps no model to ${use === 'predict' ? 'predict with' : 'download'}: ${model ? 'its kept state has no weights' : 'its model is not in this project (a run copied from a project file)'}`,
    );
  return { run, done, model, config: () => readingConfig(p, run, done) };
}

/** The config that reads the project for a kept model's run (keptRun). */
async function readingConfig(p: PredictArgs, run: RunRow, done: TrainMetrics): Promise<RunConfig> {
  const { db, runId } = p;
  let cfg = parseRunConfig({ ...(run.config as object), loop: { fromRunId: runId, corrections: 0 } });
  if (cfg.data.kind !== 'project') throw new Error(`run ${runId} did not train on a project`);
  if (!(await db.layers.get(cfg.data.layerId))) {
    const aggregate = done.weak && (await projectAggregateLayer(db, run.projectId));
    if (!aggregate)
      throw new Error(
        `run ${runId} trained on layer ${cfg.data.layerId}, which is gone${done.weak ? ', and the project has no weak labels to stand in for it: make weak labels, then predict' : ''}`,
      );
    p.emit({
      kind: 'stage',
      stage: `the run's training layer "${done.weak!.layer}" is gone (the weak labels were made again): the features read "${aggregate.name}"`,
    });
    cfg = { ...cfg, data: { ...cfg.data, layerId: aggregate.id! } };
  }
  return cfg;
}

/** The project read for a kept model's run, as a fine-tune of it would read it. */
function loadKept(p: PredictArgs, cfg: RunConfig) {
  const a: ProjectRunArgs = { ...p, cfg, metrics: { backend: '', backendReason: '', history: [], stepLosses: [] }, control: () => 'go', elapsed: () => 0 };
  return loadProject(a, cfg, 'predict');
}

/**
 * A finished token-tagger run's model as one file (core/modelFile.ts) that `studio predict` reads:
 * its weights (an ensemble's members), vocabularies and shifts, and how to make the features it
 * reads on new text: the project's dictionary read through the model's groups, as the run's
 * review-loop fine-tune reads it; the recipe of the project's weak labels (its sources, and the
 * label model and HMM of its newest weak labels run); the starter model's groups. Weak labels that
 * were imported, not made from the project's sources, cannot be made on new text: the error says so.
 */
export async function exportModel(p: PredictArgs): Promise<ModelFile> {
  const { run, model, config } = await keptRun(p, 'export');
  if ('kind' in model)
    throw new Error(
      `run ${p.runId} trained a span model (the decoupled method), which classifies candidates the project makes: label new text on the run's page (import it, then "Predict")`,
    );
  const project = await p.db.projects.get(run.projectId);
  const members: { weights: Weights; oShift: number }[] | undefined = model.members;
  const pack = (w: Weights) => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, { shape: v.shape, base64: encodeFloat32(v.data) }]));
  const imported = (run.metrics as TrainMetrics).imported;
  const file = (config: RunConfig, inputs: ModelInputs | undefined): ModelFile => {
    // A review-loop fine-tune's config names the run it started from, here: not in a file.
    const { loop: _, ...cfg } = config;
    return {
      format: MODEL_FORMAT,
      config: cfg as RunConfig,
      tags: model.tags,
      chars: model.chars,
      oov: model.oov,
      oShift: model.oShift,
      ...(model.typeShifts ? { typeShifts: model.typeShifts } : {}),
      weights: pack(model.weights),
      ...(members ? { members: members.map((m) => ({ weights: pack(m.weights), oShift: m.oShift })) } : {}),
      ...(inputs ? { inputs } : {}),
      provenance: {
        // A model opened from a file keeps where it was trained.
        project: project?.name ?? String(run.projectId),
        run: String(p.runId),
        method: runMethodName(config),
        trained: new Date(run.finishedAt ?? run.createdAt).toISOString(),
        ...imported?.provenance,
        downloaded: new Date().toISOString(),
      },
    };
  };
  // A model opened from a file makes its features as its file says, whatever this project has.
  if (model.inputs) return file(parseRunConfig(run.config), model.inputs.groups.length ? model.inputs : undefined);
  const cfg = await config();
  const { data, kept } = await loadKept(p, cfg);
  checkSameInput(p.runId, model, data.tags, data.feat);
  const { lexicon, weak, starter } = kept.makes;
  if (weak && weak.layer.role !== 'aggregate')
    throw new Error(
      `run ${p.runId}'s model reads the weak layer "${weak.layer.name}" as features, which was imported, not made from the project's gazetteers and rules: nothing could make it on new text. Train with "weak labels as features" off for a model that labels any text`,
    );
  return file(
    cfg,
    data.feat.lexicon && {
      groups: data.feat.lexicon,
      ...(lexicon ? { lexicon } : {}),
      ...(weak ? { weak: await weakRecipe(p.db, run.projectId, weak.types, weak.readAbbreviations) } : {}),
      ...(starter ? { starter } : {}),
    },
  );
}

/** A kept model made ready to label a finished run's unseen sentences (predictUnseen). */
interface UnseenDecoder {
  /** Whether it reads the weak labels (as features, or as candidates): a document they miss is said. */
  readsWeak: boolean;
  /** What it does for a document with no weak labels, after "no weak labels, ". */
  withoutWeak: string;
  /** Each sentence's spans in its own positions, and a tagger's marginals (null where it has none to give; a span model leaves them out). */
  decode(sentences: LabeledSentence[]): Promise<{ spans: Span[][]; marginals?: Float32Array[] | null }>;
  dispose(): void;
}

type KeptProject = Awaited<ReturnType<typeof loadProject>>['kept'];

/** A kept token model's taggers (an ensemble's members), and what decodes with them: the tagger or the ensemble, with the kept O and type shifts. */
function keptDecoding(cfg: RunConfig, model: KeptModel, feat: Featurizer): { taggers: Tagger[]; decoding: Decoding } {
  const taggers = (model.members ?? [{ weights: model.weights, oShift: model.oShift }]).map((m) => {
    const t = new Tagger(cfg.model, featureDims(feat), cfg.train.seed);
    t.setWeights(m.weights);
    t.oShift = m.oShift;
    return t;
  });
  const decoding: Decoding = taggers.length > 1 ? new TaggerEnsemble(taggers) : taggers[0];
  decoding.oShift = model.oShift;
  decoding.tagShifts = model.typeShifts ? tagShiftsOf(model.tags, model.typeShifts) : null;
  return { taggers, decoding };
}

/** The tagger or ensemble of a token-tagger run, decoding with its kept O and type shifts. */
function taggerDecoder(runId: number, cfg: RunConfig, model: KeptModel, data: EngineData, kept: KeptProject): UnseenDecoder {
  checkSameInput(runId, model, data.tags, data.feat);
  // The model's own vocabularies (its characters, its trained out-of-GloVe words): the training text may have changed since.
  const feat: Featurizer = { ...data.feat, chars: new Map(model.chars), oov: new Map(model.oov) };
  const { taggers, decoding } = keptDecoding(cfg, model, feat);
  return {
    // The model reads the weak labels where its groups say so.
    readsWeak: !!model.lexicon?.some((g) => g.startsWith(weakFeatureTypes([''])[0])) && kept.layer.kind === 'weak',
    withoutWeak: 'which this model reads as features: labeled without them',
    async decode(sentences) {
      const { paths } = await predict(decoding, feat, sentences);
      const marginals = await predictMarginals(decoding, feat, sentences);
      return { spans: paths.map((path) => tagsToSpans(path.map((t) => data.tags[t]))), marginals };
    },
    dispose: () => {
      for (const t of taggers) t.dispose();
    },
  };
}

/**
 * A decoupled run's model (paper 004): it classifies the candidates of the new sentences, made as
 * its run made them (short filtered spans, the project's typed gazetteer entries as they are now,
 * its token model's spans, and the weak layer's spans where it trained on one), decoded with its O shift.
 */
function spanDecoder(runId: number, cfg: RunConfig, state: DecoupledState, data: EngineData, kept: KeptProject): UnseenDecoder {
  const p = cfg.pipeline;
  if (p.kind !== 'decoupled') throw new Error(`run ${runId} kept a decoupled model, but its pipeline is ${p.kind}`);
  const classes = classesOf(data.tags);
  if (classes.join(' ') !== state.classes.join(' '))
    throw new Error(`run ${runId} classifies ${state.classes.join(' ')}, the project now ${classes.join(' ')}: the label set changed, so train a fresh model`);
  const feat: Featurizer = { ...data.feat, chars: new Map(state.chars), oov: new Map(state.oov) };
  const r = restoreDecoupled(p, cfg, feat, state, data.dictionary ?? []);
  const weak = kept.layer.kind === 'weak' ? kept.layerAnns : null;
  return {
    readsWeak: !!weak,
    withoutWeak: 'whose spans this model classifies as candidates: labeled from its other candidates',
    decode: async (sentences) => ({
      spans: await predictDecoupled(
        r,
        sentences,
        p,
        sentences.map((s) => weakSpansOf(weak, s)),
      ),
    }),
    dispose: () => disposeDecoupled(r),
  };
}
