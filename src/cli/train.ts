import '../methods';
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { dataFolder, missingFilesError, readConfigJson, resolveDataPaths } from './dataFolder';
import { parseCorpusImport } from '../core/formats/importSpec';
import type { Annotation, ParsedCorpus } from '../core/types';
import type { CorpusFormat } from '../core/formats/importSpec';
import { writeConll } from '../core/formats/conll';
import { writeJsonl } from '../core/formats/jsonl';
import { parseRunConfig, type RunConfig } from '../core/runConfig';
import { bioTags, toSentences, type LabeledSentence } from '../model/data';
import { trimGlove } from '../model/embeddings';
import { buildFeaturizer, featureDims, type Featurizer } from '../model/features';
import { type Decoding, Tagger, TaggerEnsemble } from '../model/tagger';
import { checkModelFile, fileWeights, type ModelFile } from '../core/modelFile';
import { withModelInputs } from './modelInputs';
import { scoreSpans, tokenAccuracy } from '../core/metrics';
import { tagsToSpans } from '../core/tagScheme';
import { readCorpus, readText } from './readCorpus';
import { readGloveAsset, readSpellingModel } from '../model/gloveNode';
import * as tf from '../model/tf';
import { registerWasmKernels } from '../model/wasmKernels';
import { evaluate, predict, tagShiftsOf } from '../model/train';
import { encoderPretraining, pretrainEncoder } from '../model/pretrain';
import { roundScores } from './roundScores';
import { runEngine, type RunSource } from '../engine/run';
import { getPipeline } from '../methods/registry';

type FileSplit = { text: string; labels: string } | { conll: string };

function readSplit(s: FileSplit, scheme: string): ParsedCorpus {
  const named = (f: string) => ({ file: f, text: readText(f) });
  if ('conll' in s) return parseCorpusImport({ format: 'conll', split: 'train', scheme: scheme as never, files: [named(s.conll)] });
  return parseCorpusImport({
    format: 'lines',
    split: 'train',
    scheme: scheme as never,
    files: [named(s.text)],
    labels: [{ ...named(s.labels), kind: 'gold', name: 'gold' }],
  });
}

export async function initWasmBackend(): Promise<string> {
  await import('@tensorflow/tfjs-backend-wasm');
  registerWasmKernels();

  if (!(await tf.setBackend('wasm'))) await tf.setBackend('cpu');
  await tf.ready();
  return `${tf.getBackend()}${tf.getBackend() === 'wasm' && tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? ' (SIMD)' : ''}`;
}

export interface FileData {
  tags: string[];
  train: LabeledSentence[];
  dev: LabeledSentence[];
  test: LabeledSentence[];
}

export function loadFileData(cfg: RunConfig): FileData {
  if (cfg.data.kind !== 'files') throw new Error('the CLI trains from files: data.kind must be "files"');
  const d = cfg.data;
  const train = readSplit(d.train, d.scheme);
  const dev = readSplit(d.dev, d.scheme);
  const test = d.test ? readSplit(d.test, d.scheme) : null;
  const devTypes = [...dev.types, ...(test?.types ?? [])].filter((t) => !train.types.includes(t));
  if (devTypes.length) throw new Error(`label sets differ between layers: ${devTypes.join(', ')} in dev/test but not in train`);
  const tags = bioTags(train.types);
  const sents = (c: ParsedCorpus, limit?: number) => toSentences(c.docs, c.layers[0]?.annotations ?? [], tags).slice(0, limit);
  return { tags, train: sents(train, d.limitTrain), dev: sents(dev, d.limitDev), test: test ? sents(test) : [] };
}

async function modelFile(cfg: RunConfig, feat: Featurizer, tagger: Tagger, typeShifts?: Record<string, number>): Promise<ModelFile> {
  const weights = Object.fromEntries(Object.entries(await tagger.getWeights()).map(([k, v]) => [k, { shape: v.shape, data: Array.from(v.data) }]));
  return {
    format: 'ner-studio-model/1',
    config: cfg,
    tags: feat.tags,
    chars: [...feat.chars],
    oov: [...feat.oov],
    oShift: tagger.oShift,
    ...(typeShifts ? { typeShifts } : {}),
    weights,
  };
}

/** A saved model's file, read and checked. */
export function readModelFile(modelPath: string): ModelFile {
  return checkModelFile(readModelJson(modelPath), modelPath);
}

/** A model file's JSON, whatever wrote it (`train --out`, a run's page, or the studio's starter asset). */
export function readModelJson(modelPath: string): unknown {
  const text = readText(modelPath);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${modelPath}: not a model file (${(e as Error).message})`);
  }
}

/** A saved model's tagger (an ensemble's members decoded as one) and what it owns, to dispose of. */
export interface FileModel {
  tagger: Decoding;
  feat: Featurizer;
  dispose(): void;
}

/**
 * A saved model as a tagger, with the featurizer of its vocabularies and feature groups and the
 * GloVe vectors of `words` (the text it will read); the sentences it labels carry their feature
 * matches (modelInputs.ts).
 */
export function modelFromFile(m: ModelFile, words: readonly string[]): FileModel {
  const groups = m.inputs?.groups ?? [];
  const feat: Featurizer = {
    glove: trimGlove(readGloveAsset(), words, m.config.model.spelling ? readSpellingModel() : undefined),
    chars: new Map(m.chars),
    oov: new Map(m.oov),
    tags: m.tags,
    ...(m.config.model.spelling ? { spelling: true } : {}),
    ...(groups.length ? { lexicon: groups } : {}),
  };
  const taggers = (m.members ?? [{ weights: m.weights, oShift: m.oShift ?? 0 }]).map((x) => {
    const t = new Tagger(m.config.model, featureDims(feat), m.config.train.seed);
    t.setWeights(fileWeights(x.weights));
    t.oShift = x.oShift;
    return t;
  });
  const tagger: Decoding = taggers.length > 1 ? new TaggerEnsemble(taggers) : taggers[0];
  tagger.oShift = m.oShift ?? 0;
  tagger.tagShifts = m.typeShifts ? tagShiftsOf(m.tags, m.typeShifts) : null;
  return {
    tagger,
    feat,
    dispose: () => {
      for (const t of taggers) t.dispose();
    },
  };
}

/** What the model read beyond words, for the verbs' output: its feature groups and the seconds making them took, and how its weak labels were made where that differs from the project. */
function inputsSummary(m: ModelFile, notes: string[], featureSeconds: number): Record<string, unknown> {
  return {
    ...(m.inputs?.groups.length ? { features: m.inputs.groups, featureSeconds: +featureSeconds.toFixed(2) } : {}),
    ...(m.members ? { members: m.members.length } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * `eval --model FILE --corpus FILE [--labels FILE] [--scheme S]`: a saved model on a labeled
 * corpus (CoNLL, or sentence lines with a parallel label file), on the WASM backend.
 */
export async function evalModel(modelPath: string, corpusPath: string, labelsPath?: string, scheme?: string): Promise<Record<string, unknown>> {
  const m = readModelFile(modelPath);
  const backend = await initWasmBackend();
  const corpus = readCorpus(corpusPath, { scheme: (scheme ?? 'BIO') as never, labels: labelsPath ? [{ file: labelsPath, kind: 'gold', name: 'gold' }] : [] });
  const layer = corpus.layers[0];
  if (!layer) throw new Error(`${corpusPath}: no labels to evaluate against (give a CoNLL file or --labels)`);
  const unknown = corpus.types.filter((t) => !m.tags.includes(`B-${t}`));
  if (unknown.length) throw new Error(`label sets differ: ${unknown.join(', ')} in ${corpusPath} but not in the model (${m.tags.join(' ')})`);
  const tf0 = performance.now();
  const { sentences, notes } = await withModelInputs(m, corpus, toSentences(corpus.docs, layer.annotations, m.tags));
  const featureSeconds = (performance.now() - tf0) / 1000;
  const { tagger, feat, dispose } = modelFromFile(
    m,
    sentences.flatMap((s) => s.words),
  );
  const t0 = performance.now();
  let paths: number[][];
  try {
    paths = (await predict(tagger, feat, sentences)).paths;
  } finally {
    dispose();
  }
  const seconds = (performance.now() - t0) / 1000;
  const gold = sentences.map((s) => s.tags.map((t) => m.tags[t]));
  const pred = paths.map((p) => p.map((t) => m.tags[t]));
  const tokens = gold.reduce((a, s) => a + s.length, 0);
  return {
    model: modelPath,
    corpus: corpusPath,
    backend,
    sentences: sentences.length,
    tokens,
    scores: roundScores(
      scoreSpans(
        gold.map((g) => tagsToSpans(g)),
        pred.map((p) => tagsToSpans(p)),
      ),
    ),
    tokenAccuracy: Math.round(tokenAccuracy(gold, pred) * 10000) / 100,
    ...inputsSummary(m, notes, featureSeconds),
    wallSeconds: +seconds.toFixed(2),
    tokensPerSecond: Math.round(tokens / seconds),
  };
}

/**
 * `predict --model FILE --corpus FILE --out FILE [--format F]`: a saved model (train --out, or a run's page) labels a
 * corpus, labeled or not, in Node on the WASM backend; its spans are written as CoNLL (BIO) or,
 * for an --out ending in .jsonl, as JSONL with character offsets (the formats the studio imports).
 */
export async function predictCorpus(modelPath: string, corpusPath: string, out: string, format?: CorpusFormat): Promise<Record<string, unknown>> {
  const m = readModelFile(modelPath);
  const backend = await initWasmBackend();
  const corpus = readCorpus(corpusPath, { format, split: 'unassigned' });
  const tf0 = performance.now();
  const { sentences, notes } = await withModelInputs(
    m,
    corpus,
    toSentences(
      corpus.docs,
      corpus.docs.map(() => undefined),
      m.tags,
    ),
  );
  const featureSeconds = (performance.now() - tf0) / 1000;
  const { tagger, feat, dispose } = modelFromFile(
    m,
    sentences.flatMap((s) => s.words),
  );
  const t0 = performance.now();
  let paths: number[][];
  try {
    paths = (await predict(tagger, feat, sentences)).paths;
  } finally {
    dispose();
  }
  const seconds = (performance.now() - t0) / 1000;
  const annotations: Annotation[] = corpus.docs.map(() => ({ spans: [], oMode: 'complete' }));
  sentences.forEach((s, k) =>
    annotations[s.doc].spans.push(
      ...tagsToSpans(
        paths[k].map((t) => m.tags[t]),
        s.offset,
      ),
    ),
  );
  writeFileSync(out, out.endsWith('.jsonl') ? writeJsonl(corpus.docs, annotations) : writeConll(corpus.docs, annotations, 'BIO'));
  const spans: Record<string, number> = {};
  for (const a of annotations) for (const x of a.spans) spans[x.label] = (spans[x.label] ?? 0) + 1;
  const tokens = sentences.reduce((n, s) => n + s.words.length, 0);
  return {
    model: modelPath,
    corpus: corpusPath,
    out,
    backend,
    documents: corpus.docs.length,
    sentences: sentences.length,
    tokens,
    spans,
    ...inputsSummary(m, notes, featureSeconds),
    wallSeconds: +seconds.toFixed(2),
    tokensPerSecond: Math.round(tokens / seconds),
  };
}

/** `train --config FILE [--out model.json]`: trains in Node on the WASM backend, through the run engine. */
export async function trainFromConfig(configFile: string, out?: string, dataFlag?: string): Promise<Record<string, unknown>> {
  let cfg = parseRunConfig(readConfigJson(configFile), configFile);
  // Paths resolve from the config's folder, `$data/...` from the data folder (--data, NER_STUDIO_DATA).
  const folder = dataFolder(dataFlag);
  const missing: { written: string; path: string }[] = [];
  cfg = { ...cfg, data: resolveDataPaths(cfg.data, dirname(resolve(configFile)), folder, missing) };
  if (missing.length) throw missingFilesError(configFile, missing, folder);
  // A model file holds one token tagger: a span model's run would end with nothing written.
  if (out && getPipeline(cfg.pipeline.kind).spanModel)
    throw new Error(
      `${configFile}: --out writes a token tagger's model, and the "${cfg.pipeline.kind}" pipeline trains a span model: train it without --out, or on the training page, where its model labels later text`,
    );
  const backend = await initWasmBackend();
  const tensorsBefore = tf.memory().numTensors;
  const log = (m: string) => void process.stderr.write(`${m}\n`);
  const summary = await runEngine(cfg, fileSource(cfg, out, log), undefined, {
    onStage: log,
    onEpoch: (e) =>
      log(
        `${e.stage ? `${e.stage}, ` : ''}epoch ${e.epoch}: loss ${e.loss.toFixed(3)} dev F1 ${(100 * e.dev.overall.f1).toFixed(2)} ${e.best ? '*' : ''} (${e.seconds.toFixed(0)} s, ${e.tokensPerSecond.toFixed(0)} tokens/s)`,
      ),
  });
  return { config: cfg.name, backend, method: cfg.method.name, pipeline: cfg.pipeline.kind, ...summary, leakedTensors: tf.memory().numTensors - tensorsBefore };
}

/**
 * A config's files as the run engine's source: the splits it names; the encoder pre-trained on the
 * training text (model.pretrain); the finished run scored on test and written to `out`.
 * Dictionary features need a dictionary, which a files config does not name (experiment settings do).
 */
function fileSource(cfg: RunConfig, out: string | undefined, log: (s: string) => void): RunSource<Record<string, unknown>> {
  let data: FileData;
  return {
    async load() {
      data = loadFileData(cfg);
      if (!data.train.some((s) => s.tags.some((t) => t !== 0))) throw new Error('the training data has no labeled entity');
      if (cfg.model.dictionary) log('dictionary features: off (a train config names no dictionary; experiment settings do)');
      if (cfg.model.starter) log('starter model features: off (the training page reads them; in an experiment, a setting\'s "starter" does)');
      const words = [...data.train, ...data.dev, ...data.test].flatMap((s) => s.words);
      const feat = buildFeaturizer(
        trimGlove(readGloveAsset(), words, cfg.model.spelling ? readSpellingModel() : undefined),
        data.train.map((s) => s.words),
        data.tags,
        { spelling: cfg.model.spelling },
      );
      return { tags: data.tags, feat, train: data.train, dev: data.dev };
    },
    async encoder(c, d) {
      const e = await pretrainEncoder(c.model, d.feat, d.train, encoderPretraining(c), {
        onEpoch: (epoch, loss) => log(`encoder pre-training, epoch ${epoch}: loss ${loss.toFixed(3)}`),
      });
      return e && { weights: e.weights, lm: e.lm, epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds };
    },
    async record(run, d) {
      const tagger = run.model.tagger;
      const test = data.test.length
        ? tagger
          ? await evaluate(tagger, d.feat, data.test)
          : scoreSpans(
              data.test.map((x) => tagsToSpans(x.tags.map((t) => data.tags[t]))),
              await run.model.predict(data.test),
            )
        : null;
      if (out && tagger) writeFileSync(out, JSON.stringify(await modelFile(cfg, d.feat, tagger, run.typeShifts)));
      run.model.dispose();
      const history = run.stages.flatMap((st) => (st.history ?? []).map((h) => ({ stage: st.stage, ...h })));
      return {
        ...(run.encoder ? { encoder: { epochs: run.encoder.epochs, sentences: run.encoder.sentences } } : {}),
        trainSentences: data.train.length,
        stages: run.stages.map((st) => ({ stage: st.stage, epochs: st.epochs, devF1: st.devF1, seconds: st.seconds })),
        epochs: history.length,
        dev: run.dev && roundScores(run.dev),
        oShift: run.oShift,
        ...(run.typeShifts ? { typeShifts: run.typeShifts } : {}),
        test: test && roundScores(test),
        wallSeconds: Math.round(run.seconds),
        trainTokensPerSecond: Math.round(run.tokensPerSecond),
        history: history.map((h) => ({ stage: h.stage, epoch: h.epoch, loss: +h.loss.toFixed(4), devF1: +(100 * h.devF1).toFixed(2) })),
      };
    },
    ended: async (how, reason) => {
      throw new Error(`train: ${how}: ${reason}`);
    },
  };
}
