/**
 * `experiment --config FILE`: settings × methods × seeds, run in turn on the WASM backend. Each
 * finished run is appended at once to a JSONL record file, and a restarted experiment skips the
 * runs already recorded, so a long table can be built over several sittings. Prints a Markdown
 * table of test span F1 (mean ± std over the seeds recorded) and, last, one JSON line.
 */
import '../methods';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join, resolve } from 'node:path';
import { dataFolder, missingFilesError, readConfigJson, resolveConfigPath, resolveDataPaths } from './dataFolder';
import type { z } from 'zod';
import { keptPriors, LOCO_RULE, type LocoInput, type LocoPool, leaveOneCorpusOut, type LocoPrior, type LocoSetting } from '../core/loco';
import { publicGazetteerPath, publicGroup, publicPhrases } from '../core/publicGazetteers';
import { experimentSchema, isScoredOnly, planExperiment, type splitSchema, type Experiment, type PlannedRun, type Setting } from '../core/experimentConfig';
import { meanStd, scoreSpans, type SpanScores } from '../core/metrics';
import { tokenTexts, UNKNOWN_TYPE } from '../core/types';
import { WeakLabeler } from '../core/weak/pipeline';
import { withAbbreviations } from '../core/weak/abbreviations';
import { reliabilityLine, reliabilityValues, ruleReliabilityValues, type SourceReliability, sourceReliability } from '../core/weak/reliability';
import type { HmmParams } from '../core/weak/hmm';
import { type AggregateMethod, LABEL_MODEL_ORDER } from '../core/weak/aggregate';
import {
  entryReliability,
  lexiconFromSpans,
  lexiconMatcher,
  lexiconSize,
  makeLexicon,
  weakFeatureTypes,
  withSpanMatches,
  type Lexicon,
  type LexiconMatch,
} from '../core/lexicon';
import { spansOfTags } from '../methods/decoupled';
import { getPipeline } from '../methods';
import { parseRunRecords, type RunRecord } from '../core/runRecord';
import { mulberry32 } from '../core/random';
import type { Annotation, ParsedCorpus, Span } from '../core/types';
import { bioTags, ioTags, toSentences, type LabeledSentence } from '../model/data';
import { trimGlove } from '../model/embeddings';
import { buildFeaturizer, type Featurizer } from '../model/features';
import { adaptEncoder, parseEncoderAsset } from '../model/englishEncoder';
import { type EncoderLm, encoderKey, encoderPretraining, pretrainEncoder, textFingerprint, type PretrainedEncoder } from '../model/pretrain';
import type { Weights } from '../model/tagger';
import { type RunConfig, selfTrainingPoolSize } from '../core/runConfig';
import { readGloveAsset, readSpellingModel } from '../model/gloveNode';
import { evaluate, heldOutTypeShifts } from '../model/train';
import { type EncoderUse, type FinishedRun, noEntityWarning, runEngine } from '../engine/run';
import { readCorpus, readGazetteer, readJson, readText } from './readCorpus';
import { roundScores } from './roundScores';
import { claimRunStore, fileRunStore, runStoreDir, tryLock } from './runStore';
import { fillWithStarter, starterGroups, starterSpans, withStarterFeatures } from './starter';
import { initWasmBackend } from './train';
import { readRulesFile, weakLabelCorpus } from './weakLabel';
import { issueSentence } from '../core/issueSentence';

export { experimentSchema, type Experiment };

/** Where runs keep their checkpoints until they are recorded (not committed). */
const CHECKPOINTS = 'bench/out/checkpoints';
/** Pre-trained encoders, one per setting and model shape, shared by the runs that use them. */
const ENCODERS = 'bench/out/encoders';
export type { RunRecord };

const readSplit = (s: z.infer<typeof splitSchema>): ParsedCorpus =>
  'conll' in s ? readCorpus(s.conll, { format: 'conll' }) : readCorpus(s.text, { format: 'lines', labels: [{ file: s.labels, kind: 'gold', name: 'gold' }] });

/** A setting's sentences as text plus annotations; tags are made per scheme later. */
export interface SettingData {
  train: { corpus: ParsedCorpus; anns: ParsedCorpus['layers'][number]['annotations']; weak: boolean[]; hidden?: ParsedCorpus['layers'][number]['annotations'] };
  dev: ParsedCorpus;
  test: ParsedCorpus;
  types: string[];
  /** Heterogeneous settings: the typed dictionary. */
  dictionary?: { words: string[]; type: string }[];
  /** Dictionary settings with HMM aggregation: the HMM fitted on the training text (it labels dev and test text unfitted). */
  hmm?: HmmParams;
  /** A dictionary setting with aggregate "dev": the label model chosen, and each one's weak-label span F1 on the selecting dev sentences. */
  labelModel?: LabelModelChoice;
  /** A dictionary setting with sourceReliability: each source's reliability as the label model estimates it on the training text. */
  sourceReliability?: SourceReliability;
}

/** The label model that a dictionary setting's dev chose (aggregate "dev"). */
export interface LabelModelChoice {
  method: AggregateMethod;
  devF1: Record<AggregateMethod, number>;
  devSentences: number;
}

/** A seeded choice of exactly round(p · n) of n items, the same for every method and seed. */
function seededPick(n: number, p: number, seed: number): Set<number> {
  const rand = mulberry32(seed);
  const order = Array.from({ length: n }, (_, k) => [rand(), k] as const).sort((a, b) => a[0] - b[0]);
  return new Set(order.slice(0, Math.round(p * n)).map(([, k]) => k));
}

function loadHeterogeneous(s: Extract<Setting, { kind: 'heterogeneous' }>): SettingData {
  const test = readSplit(s.test);
  const humanAll =
    'conll' in s.human
      ? readCorpus(s.human.conll, { format: 'conll' })
      : readCorpus(s.human.text, { format: 'lines', labels: [{ file: s.human.gold, kind: 'gold', name: 'gold' }] });
  const goldLayer = humanAll.layers.find((l) => l.kind === 'gold');
  if (!goldLayer) throw new Error(`setting "${s.name}": the human-labeled data has no gold labels`);
  const chosen = seededPick(humanAll.docs.length, s.humanFraction, s.splitSeed);
  const held = s.holdOut ? seededPick(humanAll.docs.length, s.holdOut, s.splitSeed + 1) : new Set<number>();
  const humanIdx = [...chosen].filter((k) => !held.has(k)).sort((a, b) => a - b);
  const sub = (c: ParsedCorpus, ks: number[]): ParsedCorpus => ({
    docs: ks.map((k) => c.docs[k]),
    layers: c.layers.map((l) => ({ ...l, annotations: ks.map((k) => l.annotations[k]) })),
    types: c.types,
  });
  let dev: ParsedCorpus;
  if (s.holdOut)
    dev = sub(
      humanAll,
      [...held].sort((a, b) => a - b),
    );
  else if (s.dev) dev = readSplit(s.dev);
  else throw new Error(`setting "${s.name}": give a dev split or holdOut`);
  let distant: ParsedCorpus;
  let distantAnns: ParsedCorpus['layers'][number]['annotations'];
  if ('weak' in s.distant) {
    distant = readCorpus(s.distant.text, { format: 'lines', labels: [{ file: s.distant.weak, kind: 'weak', name: 'weak' }] });
    distantAnns = distant.layers[0].annotations;
  } else {
    const labeled = weakLabelCorpus({ corpus: s.distant.corpus, gazetteers: s.distant.gazetteers, untyped: [], mode: s.distant.case, method: 'priority' });
    distant = labeled.corpus;
    distantAnns = labeled.result.aggregate;
  }
  const nd = Math.min(distant.docs.length, s.limitDistant ?? Infinity);
  let dictionary: { words: string[]; type: string }[];
  if (s.dictionary === 'distant') {
    // The distinct entity strings of the distant labels, each with its most frequent type.
    const counts = new Map<string, Map<string, number>>();
    for (let k = 0; k < nd; k++) {
      const words = tokenTexts(distant.docs[k]);
      for (const x of distantAnns[k].spans) {
        if (x.label === '?') continue;
        const key = words.slice(x.start, x.end).join(' ');
        const m = counts.get(key) ?? new Map<string, number>();
        m.set(x.label, (m.get(x.label) ?? 0) + 1);
        counts.set(key, m);
      }
    }
    dictionary = [...counts].map(([phrase, m]) => ({ words: phrase.split(' '), type: [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0] }));
  } else {
    dictionary = readGazetteer(s.dictionary.file, 'tsv')
      .entries.filter((e) => e.type !== null)
      .map((e) => ({ words: e.phrase.split(' '), type: e.type! }));
  }
  const humanC = sub(humanAll, humanIdx);
  const corpus: ParsedCorpus = { docs: [...humanC.docs, ...distant.docs.slice(0, nd)], layers: [], types: [] };
  const anns = [...goldLayer.annotations.filter((_, k) => humanIdx.includes(k)), ...distantAnns.slice(0, nd)];
  const weak = corpus.docs.map((_, k) => k >= humanIdx.length);
  const types = [...new Set([...goldLayer.annotations.flatMap((a) => a.spans.map((x) => x.label)), ...test.types])].filter((l) => l !== '?').sort();
  return { train: { corpus, anns, weak }, dev, test, types, dictionary };
}

export function loadSetting(s: Setting): SettingData {
  if (s.kind === 'heterogeneous') return loadHeterogeneous(s);
  const dev = readSplit(s.dev);
  const test = readSplit(s.test);
  let corpus: ParsedCorpus;
  let anns: SettingData['train']['anns'];
  let weak: boolean[];
  let hmm: HmmParams | undefined;
  let labelModel: LabelModelChoice | undefined;
  let reliability: SourceReliability | undefined;
  if (s.kind === 'distant') {
    corpus = readCorpus(s.train.text, { format: 'lines', labels: [{ file: s.train.weak, kind: 'weak', name: 'weak' }] });
    anns = corpus.layers[0].annotations;
    // A definition holds only in the sentences after it, so a limitTrain prefix reads nothing beyond itself.
    if (s.abbreviations)
      anns = withAbbreviations(
        corpus.docs.map((doc) => ({ tokens: tokenTexts(doc) })),
        anns,
        s.abbreviations,
      ).annotations;
    weak = corpus.docs.map(() => true);
  } else if (s.kind === 'mixed') {
    corpus = readCorpus(s.train.text, {
      format: 'lines',
      labels: [
        { file: s.train.gold, kind: 'gold', name: 'gold' },
        { file: s.train.weak, kind: 'weak', name: 'weak' },
      ],
    });
    const [gold, weakLayer] = [corpus.layers.find((l) => l.kind === 'gold')!, corpus.layers.find((l) => l.kind === 'weak')!];
    // A seeded choice of exactly round(p · n) strong documents, the same for every method and seed.
    const strong = seededPick(corpus.docs.length, s.strongFraction, s.splitSeed);
    weak = corpus.docs.map((_, k) => !strong.has(k));
    anns = corpus.docs.map((_, k) => (strong.has(k) ? gold.annotations[k] : weakLayer.annotations[k]));
  } else if (s.kind === 'masked') {
    corpus = readCorpus(s.train.text, { format: 'lines', labels: [{ file: s.train.gold, kind: 'gold', name: 'gold' }] });
    const rand = mulberry32(s.maskSeed);
    const gold = corpus.layers[0].annotations;
    const kept = gold.map((a) => a.spans.map(() => rand() >= s.p));
    anns = gold.map((a, k) => ({ ...a, spans: a.spans.filter((_, i) => kept[k][i]) }));
    const hidden = gold.map((a, k) => ({ ...a, spans: a.spans.filter((_, i) => !kept[k][i]) }));
    weak = corpus.docs.map(() => true);
    const types = [...new Set([...gold.flatMap((a) => a.spans.map((x) => x.label)), ...dev.types, ...test.types])].sort();
    return { train: { corpus, anns, weak, hidden }, dev, test, types };
  } else {
    const fitAlso = s.labelModelText === 'all' ? { fitAlso: [dev, test] } : {};
    const choice = s.aggregate === 'dev' ? chooseLabelModel(s, dev, fitAlso) : null;
    const labeled = choice?.labeled ?? weakLabelCorpus({ corpus: s.corpus, ...settingSources(s), ...fitAlso });
    corpus = labeled.corpus;
    anns = labeled.result.aggregate;
    weak = corpus.docs.map(() => true);
    hmm = labeled.result.hmm;
    labelModel = choice?.labelModel;
    // Read where the label model is: before the abbreviations, which are no source's matches.
    if (s.sourceReliability) reliability = sourceReliability(labeled.result.sources, labeled.result.beforeAbbreviations);
  }
  const types = [...new Set([...anns.flatMap((a) => a.spans.map((x) => x.label)).filter((l) => l !== '?'), ...dev.types, ...test.types])].sort();
  return {
    train: { corpus, anns, weak },
    dev,
    test,
    types,
    ...(hmm ? { hmm } : {}),
    ...(labelModel ? { labelModel } : {}),
    ...(reliability ? { sourceReliability: reliability } : {}),
  };
}

/**
 * aggregate "dev": each label model labels the training text, then the dev sentences that select
 * models (the first limitDev; the HMM fitted on the training text decodes them, as it does for the
 * weak-label features); the one whose spans score best against dev gold is kept (scored as the
 * weak-labels row and the Weak labels page score them), the HMM on a tie. Reads no test text and
 * no training gold.
 */
function chooseLabelModel(s: DictionarySetting, dev: ParsedCorpus, fitAlso: { fitAlso?: ParsedCorpus[] }) {
  const gold = dev.layers.find((l) => l.kind === 'gold');
  if (!gold) throw new Error(`setting "${s.name}": aggregate "dev" chooses the label model on dev gold, and the dev split has none`);
  const n = Math.min(dev.docs.length, s.limitDev ?? Infinity);
  const devFile = 'conll' in s.dev ? s.dev.conll : s.dev.text;
  const tried = LABEL_MODEL_ORDER.map((method) => {
    const sources = sourcesWith(s, method);
    const labeled = weakLabelCorpus({ corpus: s.corpus, ...sources, ...fitAlso });
    const h = labeled.result.hmm;
    const onDev = weakLabelCorpus({ corpus: devFile, ...sources, ...(h ? { hmm: h, types: h.types } : {}) }).result.aggregate;
    const f1 = scoreSpans(
      gold.annotations.slice(0, n).map((a) => a.spans),
      onDev.slice(0, n).map((a) => a.spans),
    ).overall.f1;
    return { method, f1, labeled };
  });
  const best = tried.reduce((a, b) => (b.f1 > a.f1 ? b : a));
  const labelModel: LabelModelChoice = {
    method: best.method,
    devF1: Object.fromEntries(tried.map((t) => [t.method, Math.round(t.f1 * 10000) / 100])) as Record<AggregateMethod, number>,
    devSentences: n,
  };
  return { labelModel, labeled: best.labeled };
}

type DictionarySetting = Extract<Setting, { kind: 'dictionary' }>;

/** A dictionary setting's weak sources and how they are aggregated: what every labeling of its text (train, dev, test) uses alike. */
export function settingSources(s: DictionarySetting, d?: Pick<SettingData, 'labelModel'>) {
  if (s.aggregate !== 'dev') return sourcesWith(s, s.aggregate);
  if (!d?.labelModel) throw new Error(`setting "${s.name}": aggregate "dev" labels with the label model its loaded data chose (loadSetting)`);
  return sourcesWith(s, d.labelModel.method);
}

function sourcesWith(s: DictionarySetting, method: AggregateMethod) {
  return {
    gazetteers: s.gazetteers,
    untyped: s.untyped,
    rules: s.rules,
    mode: s.case,
    method,
    typeUntyped: s.typeUntyped,
    ...(s.abbreviations ? { abbreviations: s.abbreviations } : {}),
    ...(s.caseUpTo !== undefined ? { caseUpTo: s.caseUpTo } : {}),
    ...(s.hmmIterations !== undefined ? { hmmIterations: s.hmmIterations } : {}),
  };
}

/**
 * The dictionary a setting's model may read as features: a dictionary setting's gazetteers and
 * untyped lists; a distant setting's distinct typed strings that its labels matched in the
 * training sentences it uses (within limitTrain), nothing from dev or test; a heterogeneous
 * setting's typed dictionary. Others have none.
 */
function settingLexicon(s: Setting, d: SettingData, withRules: boolean): Lexicon | null {
  const lex = ownLexicon(s, d, withRules);
  const extra = 'publicGazetteers' in s ? (s.publicGazetteers ?? []) : [];
  if (!extra.length) return lex;
  const sources = extra.map(({ list, type }) => ({
    mode: 'sensitive' as const,
    entries: publicPhrases(readFileSync(new URL(`../../public/${publicGazetteerPath(list)}`, import.meta.url), 'utf8')).map((words) => ({
      words,
      type: publicGroup(type, list),
    })),
  }));
  return makeLexicon([...(lex?.sources ?? []), ...sources], lex?.rules ? [...lex.rules] : []);
}

/** The setting's own dictionary (see settingLexicon), without public gazetteers. */
function ownLexicon(s: Setting, d: SettingData, withRules: boolean): Lexicon | null {
  if (s.kind === 'dictionary') {
    const rules = withRules && s.rules ? readRulesFile(s.rules) : [];
    // One source per file (the weak labeler names a source by its file), merged into one where no reliability tells them apart.
    const files = [...s.gazetteers.map((f) => [f, f.endsWith('.jsonl') ? 'patterns' : 'tsv'] as const), ...s.untyped.map((f) => [f, 'untyped'] as const)];
    const perFile = files.map(([f, kind]) => ({
      name: basename(f),
      entries: readGazetteer(f, kind).entries.map((e) => ({ words: e.phrase.split(' '), type: e.type })),
    }));
    const entries = perFile.flatMap((p) => p.entries);
    if (!entries.length && !rules.length) return null;
    const mode = { mode: s.case, ...(s.caseUpTo !== undefined ? { caseUpTo: s.caseUpTo } : {}) };
    const r = d.sourceReliability;
    if (!r) return makeLexicon([{ ...mode, entries }], rules);
    return makeLexicon(
      perFile.map((p) => ({ ...mode, entries: p.entries, ...(r[p.name] ? { reliability: reliabilityValues(r[p.name]) } : {}) })),
      rules,
      [],
      ruleReliabilityValues(r, rules),
    );
  }
  // A heterogeneous setting's typed dictionary: its distant labels' strings (within limitDistant) or its file.
  if (s.kind === 'heterogeneous') return d.dictionary?.length ? makeLexicon([{ mode: 'sensitive', entries: d.dictionary }]) : null;
  if (s.kind !== 'distant') return null;
  const n = Math.min(d.train.corpus.docs.length, s.limitTrain ?? Infinity);
  const sentences = d.train.corpus.docs.slice(0, n).map((doc, k) => ({ words: tokenTexts(doc), spans: d.train.anns[k].spans }));
  const entries = lexiconFromSpans(sentences);
  return makeLexicon([{ mode: 'sensitive', entries: s.entryReliability ? entryReliability(entries, sentences) : entries }]);
}

type WithLex = { words: readonly string[]; doc: number; offset: number; lex?: readonly LexiconMatch[] };

/**
 * model.weakFeatures: every sentence gets its weak labels' spans as matches of the feature groups
 * after the dictionary's (`base`). Train: the setting's weak labels; dev and test: their text
 * labeled by the same sources, aggregated by the HMM fitted on the training text (the "weak labels
 * themselves, HMM fitted on the training text" row scores them).
 * Only a dictionary setting has weak labels for the text a model predicts.
 */
function settingWeakFeatures<A extends WithLex, B extends WithLex>(
  s: Setting,
  d: SettingData,
  sents: { train: A[]; dev: B[]; test: B[] },
  types: readonly string[],
  base: number,
  cache: Map<string, Annotation[]>,
): { train: A[]; dev: B[]; test: B[] } {
  if (s.kind !== 'dictionary') throw new Error(`setting "${s.name}": weak labels as features need weak labels on dev and test text (a dictionary setting)`);
  // The sources match the dev and test text; the HMM fitted on the training text decodes them, so
  // nothing is fitted on text that selects or scores the model.
  const fitted = d.hmm ? { hmm: d.hmm, types: d.hmm.types } : {};
  const label = (split: z.infer<typeof splitSchema>) =>
    weakLabelCorpus({ corpus: 'conll' in split ? split.conll : split.text, ...settingSources(s, d), ...fitted }).result.aggregate;
  const splitAnns = (which: 'dev' | 'test') => {
    const key = `${s.name}/${which}`;
    return cache.get(key) ?? cache.set(key, label(s[which])).get(key)!;
  };
  const add = <T extends WithLex>(xs: T[], anns: readonly { spans: readonly Span[] }[]): T[] =>
    withSpanMatches(xs, (x) => ({ spans: anns[x.doc]?.spans ?? [], offset: x.offset }), types, base);
  return { train: add(sents.train, d.train.anns), dev: add(sents.dev, splitAnns('dev')), test: add(sents.test, splitAnns('test')) };
}

/** Sentences with their dictionary matches attached. */
function withLexicon<T extends { words: readonly string[] }>(sentences: readonly T[], match: (words: readonly string[]) => LexiconMatch[]): T[] {
  return sentences.map((x) => ({ ...x, lex: match(x.words) }));
}

function sentencesFor(d: SettingData, tags: string[], s: Setting) {
  const hidden = d.train.hidden ? toSentences(d.train.corpus.docs, d.train.hidden, tags) : null;
  const train = toSentences(d.train.corpus.docs, d.train.anns, tags).map((x, k) => ({
    ...x,
    weak: d.train.weak[x.doc],
    ...(hidden ? { hidden: hidden[k].tags } : {}),
  }));
  const goldOf = (c: ParsedCorpus) => toSentences(c.docs, c.layers.find((l) => l.kind === 'gold')?.annotations ?? [], tags);
  return { train: train.slice(0, s.limitTrain), dev: goldOf(d.dev).slice(0, s.limitDev), test: goldOf(d.test) };
}

/**
 * The weak labels themselves against gold. A dictionary setting's sources and aggregation run over
 * the test text (split "test"). A distant setting's labels exist on its training sentences only:
 * they are scored against the train gold file (split "train"), which the record and table say.
 */
function scoreWeakLabels(
  s: Setting,
  d: SettingData,
  fitOnTrain = false,
): { split: 'test' | 'train'; scores: ReturnType<typeof roundScores>; dev?: ReturnType<typeof roundScores> } {
  if (s.kind === 'dictionary') {
    // A dictionary setting's weak labels on test, and on dev as well: what a choice made on dev
    // compares a model with.
    const score = (split: DictionarySetting['test']) => {
      const file = 'conll' in split ? split.conll : split.text;
      const labeled = weakLabelCorpus({
        corpus: file,
        gold: 'conll' in split ? file : split.labels,
        ...settingSources(s, d),
        // "fit": "train": the HMM fitted on the training text decodes this text (what weak-label features read).
        ...(fitOnTrain && d.hmm ? { hmm: d.hmm, types: d.hmm.types } : {}),
      });
      const gold = labeled.corpus.layers.find((l) => l.kind === 'gold')!;
      return roundScores(
        scoreSpans(
          gold.annotations.map((a) => a.spans),
          labeled.result.aggregate.map((a) => a.spans),
        ),
      );
    };
    return { split: 'test', scores: score(s.test), dev: score(s.dev) };
  }
  if (s.kind === 'heterogeneous') throw new Error(`setting "${s.name}": score the weak labels of a distant or dictionary setting`);
  const goldFile = s.train.gold;
  if (!goldFile) throw new Error(`setting "${s.name}": scoring the weak labels needs train.gold`);
  const gold = readCorpus(s.train.text, { format: 'lines', labels: [{ file: goldFile, kind: 'gold', name: 'gold' }] }).layers[0].annotations;
  const n = Math.min(d.train.weak.length, s.limitTrain ?? Infinity);
  const weakOnly = d.train.weak.map((w, k) => (w && k < n ? k : -1)).filter((k) => k >= 0);
  const scores = scoreSpans(
    weakOnly.map((k) => gold[k].spans),
    weakOnly.map((k) => d.train.anns[k].spans),
  );
  return { split: 'train', scores: roundScores(scores) };
}

/**
 * The setting's dictionary (settingLexicon) matched over the test text, longest match first, as
 * weak labels are made (an untyped list's matches typed by their spelling where the setting's weak
 * labels do that): what a model reading the dictionary has to beat on test.
 */
function scoreDictionaryMatch(s: Setting, d: SettingData, lexicon: Lexicon | null): ReturnType<typeof roundScores> {
  if (!lexicon) throw new Error(`setting "${s.name}": it has no dictionary to match (a distant or dictionary setting has one)`);
  const gold = d.test.layers.find((l) => l.kind === 'gold')!.annotations;
  const pred = dictionaryMatch(s, lexicon, d.test).map((a) => a.spans);
  return roundScores(
    scoreSpans(
      gold.map((a) => a.spans),
      pred,
    ),
  );
}

/** The longest dictionary match over a corpus's documents (overlaps resolved by length, then source order), untyped matches left out. */
function dictionaryMatch(s: Setting, lexicon: Lexicon, corpus: ParsedCorpus): Annotation[] {
  const docs = corpus.docs.map((doc) => ({ text: doc.text, offsets: doc.offsets, tokens: tokenTexts(doc), sentenceStarts: doc.sentenceStarts }));
  const gazetteers = lexicon.sources.map((src, k) => ({
    name: `dictionary ${k + 1}`,
    mode: src.mode,
    priority: k,
    entries: src.entries.map((e) => ({ phrase: e.words.join(' '), type: e.type })),
    ...(src.caseUpTo !== undefined ? { caseUpTo: src.caseUpTo } : {}),
  }));
  const types = lexicon.types.filter((t) => t !== UNKNOWN_TYPE);
  const result = new WeakLabeler(docs).run({
    gazetteers,
    rules: [],
    types,
    method: 'priority',
    typeUntyped: s.kind !== 'dictionary' || s.typeUntyped,
  });
  return result.aggregate.map((a) => ({ ...a, spans: a.spans.filter((x) => x.label !== UNKNOWN_TYPE) }));
}

/**
 * New text weak-labeled by a setting's own dictionary (its gazetteers, or a distant setting's
 * strings of its training labels; no public lists, no rules): what a project's gazetteers give the
 * documents it imports later. The simulated annotator's pool from dev in a distant setting.
 */
export function ownDictionaryLabels(s: Setting, d: SettingData, corpus: ParsedCorpus): Annotation[] {
  const lexicon = ownLexicon(s, d, false);
  if (!lexicon) throw new Error(`setting "${s.name}": it has no dictionary to label new text with`);
  return dictionaryMatch(s, lexicon, corpus);
}

/**
 * Leave-one-corpus-out over the recorded runs (core/loco.ts): per setting, the weak labels' and
 * WSL's test F1, the rule's choice from the other corpora's dev figures and its test F1, and the
 * row best on the setting's own dev. Written to `out` as JSON when given.
 */
export function locoReport(
  exp: Experiment,
  records: RunRecord[],
  priors?: LocoPrior[],
  pool?: LocoPool,
): { corpora: LocoSetting[]; table: string; everyCorpus: EveryCorpus } {
  const input = { ...locoInput(exp, records, priors), ...(pool ? { pool } : {}) };
  const corpora = leaveOneCorpusOut(input);
  // A corpus outside the suite: every corpus of it votes (the training page's rule candidates);
  // and where a prior that can be inert cannot apply to it, what the rule keeps instead.
  const kept = (inert: ReadonlySet<string>) => keptPriors(input, null, inert).map(({ prior, rows, why }) => ({ name: prior.name, rows, why }));
  const everyCorpus = {
    priors: kept(new Set()),
    whereInert: (priors ?? []).filter((p) => p.inert).map((p) => ({ prior: p.name, priors: kept(new Set([p.name])) })),
  };
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(2));
  const table = [
    '| setting | weak labels (test) | WSL | leave-one-corpus-out choice | its test F1 | target | best row on its own dev: test F1 |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...corpora.map(
      (c) =>
        `| ${c.name} | ${f(c.weak)}${c.weakOnTrain !== null ? ` (${f(c.weakOnTrain)} on train)` : ''} | ${f(c.wsl)} | ${c.loco?.choice ?? '–'}${keptText(c)} | ${c.loco ? `${f(c.loco.mean)} ± ${f(c.loco.std)} (${c.loco.seeds.length})` : (c.notMeasured ?? '–')} | ${f(c.target)} | ${c.best ? `${f(c.best.mean)} (${c.best.label})` : '–'} |`,
    ),
  ].join('\n');
  return { corpora, table, everyCorpus };
}

const EVERY_CORPUS =
  "The priors the rule keeps with every corpus of the suite voting (none left out): what a corpus outside the suite gets, and what the training page's rule candidates run (src/core/ruleCandidates.ts); whereInert: the same for a corpus that a prior cannot apply to (a project whose types no list of the gazetteer library maps onto).";

type KeptView = { name: string; rows: string[]; why: string };
/** The priors kept with every corpus voting, and, for each prior that can be inert, those kept where it cannot apply. */
export type EveryCorpus = { priors: KeptView[]; whereInert: { prior: string; priors: KeptView[] }[] };

/** The rule's input from a config with a `loco` section, its records and its priors' records. */
export function locoInput(exp: Experiment, records: RunRecord[], priors?: LocoPrior[]): LocoInput {
  if (!exp.loco) throw new Error(`${exp.name}: --loco needs the config's "loco": { "reference": "<the plain WSL row's label>" }`);
  const trained = exp.methods.filter((m) => !isScoredOnly(m.method.name)).map((m) => m.label);
  const candidates = exp.loco.candidates ?? trained.filter((l) => l !== exp.loco!.reference);
  for (const l of [exp.loco.reference, ...candidates])
    if (!trained.includes(l)) throw new Error(`${exp.name}: loco: "${l}" is not a trained row of this config`);
  return {
    settings: exp.settings.map((s) => ({ name: s.name, corpus: s.dataset ?? s.name })),
    candidates,
    reference: exp.loco.reference,
    weakRows: exp.methods.filter((m) => isScoredOnly(m.method.name)).map((m) => m.label),
    records,
    ...(priors ? { priors } : {}),
  };
}

/** The priors a setting's rows read, for the leave-one-corpus-out table. */
const keptText = (c: LocoSetting) =>
  (c.priors ?? [])
    .filter((p) => p.rows.length)
    .map((p) => `; with ${p.name} for ${p.rows.join(', ')}`)
    .join('');

/**
 * A base setting and a prior's name from a setting named "<setting> + <prior>": the longest of
 * `names` it starts with ("bc5cdr core + train names + word dropout 0.1" is "bc5cdr core + train
 * names" with "word dropout 0.1", not "bc5cdr core" with "train names + ..."); null if none.
 */
export function splitPriorSetting(setting: string, names: readonly string[]): { base: string; prior: string } | null {
  const base = [...names].sort((a, b) => b.length - a.length).find((n) => setting.startsWith(`${n} + `));
  return base ? { base, prior: setting.slice(base.length + 3) } : null;
}

/** Records of runs with priors, grouped by prior, each record's setting read as its base setting's. */
export function priorsOfRecords(records: readonly RunRecord[], names: readonly string[]): LocoPrior[] {
  const byPrior = new Map<string, RunRecord[]>();
  for (const r of records) {
    const m = splitPriorSetting(r.setting, names);
    if (m) byPrior.set(m.prior, [...(byPrior.get(m.prior) ?? []), { ...r, setting: m.base }]);
  }
  return [...byPrior].map(([name, rs]) => ({ name, records: rs }));
}

/** The priors a config's `loco.priors` names: each an experiment config whose settings are "<a setting of this one> + <the prior>". */
export function readLocoPriors(exp: Experiment, configFile: string, dataOption?: string): LocoPrior[] {
  const names = exp.settings.map((s) => s.name);
  const priors: LocoPrior[] = [];
  const corpora = new Set(exp.settings.map((s) => s.dataset ?? s.name));
  for (const entry of exp.loco?.priors ?? []) {
    const { config: file, inert } = typeof entry === 'string' ? { config: entry, inert: undefined } : entry;
    const unknown = Object.keys(inert ?? {}).find((c) => !corpora.has(c));
    if (unknown) throw new Error(`${configFile}: loco.priors: ${file}: inert: "${unknown}" is not a corpus of this suite (${[...corpora].join(', ')})`);
    const path = resolve(dirname(resolve(configFile)), file);
    const prior = loadExperimentConfig(path, readConfigJson(path), dataOption).exp;
    const priorNames = new Set<string>();
    for (const s of prior.settings) {
      const m = splitPriorSetting(s.name, names);
      if (!m) throw new Error(`${path}: settings.${s.name}: not "<a setting of ${configFile}> + <the prior>"`);
      priorNames.add(m.prior);
    }
    if (priorNames.size !== 1)
      throw new Error(`${path}: its settings name ${priorNames.size} priors (${[...priorNames].join(', ')}); a prior's config names one`);
    const own = new Set(prior.settings.map((s) => s.name));
    // A prior is measured for the rows its config runs; a record of another row (a one-off) is not its evidence.
    const rows = new Set(prior.methods.map((m) => m.label));
    const name = [...priorNames][0];
    // A prior named "<an earlier prior> + <more>" stacks on that one.
    const over = splitPriorSetting(
      name,
      priors.map((p) => p.name),
    )?.base;
    const read = priorsOfRecords(
      readRecords(prior.records).filter((r) => own.has(r.setting) && rows.has(r.label)),
      names,
    )[0] ?? { name, records: [] };
    priors.push({ ...read, ...(over ? { over } : {}), ...(inert ? { inert } : {}) });
  }
  return priors;
}

/** Markdown table: methods by settings, test F1 mean ± std (n seeds); a cell scored on another split says which. */
export function resultsTable(exp: Experiment, records: RunRecord[]): string {
  const head = `| method | ${exp.settings.map((s) => s.name).join(' | ')} |\n| --- | ${exp.settings.map(() => '---').join(' | ')} |`;
  const cell = (f1: number[]) => {
    const { mean, std } = meanStd(f1);
    return f1.length > 1 ? `${mean.toFixed(2)} ± ${std.toFixed(2)} (${f1.length})` : `${f1[0].toFixed(2)} (1 seed)`;
  };
  const rows = exp.methods.map((m) => {
    const runs = (s: Experiment['settings'][number]) => records.filter((r) => r.setting === s.name && r.label === m.label);
    const cells = exp.settings.map((s) => {
      const rs = runs(s);
      const f1 = rs.map((r) => r.test.f1);
      if (!f1.length) return m.settings && !m.settings.includes(s.name) ? '' : 'not run';
      const where = rs[0].split === 'train' ? ' on train, not test' : '';
      if (rs[0].seed === 0) return `${f1[0].toFixed(2)}${where ? ` (${where.trim()})` : ''}`;
      return cell(f1);
    });
    // A decoding choice made on dev is recorded with its ablation, at no training cost: the same
    // models decoded without the O shift (and type shifts), and with the O shift but no type shifts.
    const ablation = (what: string, has: (r: RunRecord) => boolean, f1: (r: RunRecord) => number) => {
      const cells = exp.settings.map((s) => (runs(s).some(has) ? cell(runs(s).map(f1)) : ''));
      return cells.some(Boolean) ? `| ${m.label}, ${what} | ${cells.join(' | ')} |` : null;
    };
    return [
      `| ${m.label} | ${cells.join(' | ')} |`,
      ablation(
        'decoded without the O shift',
        (r) => r.oShift !== undefined,
        (r) => (r.unshifted ?? r).test.f1,
      ),
      ablation(
        'decoded with the O shift alone (no type shifts)',
        (r) => r.withoutTypeShifts !== undefined,
        (r) => (r.withoutTypeShifts ?? r).test.f1,
      ),
    ]
      .filter(Boolean)
      .join('\n');
  });
  return [head, ...rows].join('\n');
}

/**
 * Markdown table of what the recorded runs cost: per method and setting, the mean wall time of a run
 * in minutes and the slowest seed's (how a suite is held to a bound on one run's time).
 */
export function costTable(exp: Experiment, records: RunRecord[]): string {
  const head = `| method (wall minutes a run: mean, slowest) | ${exp.settings.map((s) => s.name).join(' | ')} |\n| --- | ${exp.settings.map(() => '---').join(' | ')} |`;
  const rows = exp.methods.map((m) => {
    const cells = exp.settings.map((s) => {
      const minutes = records.filter((r) => r.setting === s.name && r.label === m.label && r.wallSeconds > 0).map((r) => r.wallSeconds / 60);
      if (!minutes.length) return '';
      const mean = minutes.reduce((a, b) => a + b, 0) / minutes.length;
      return `${mean.toFixed(1)}, ${Math.max(...minutes).toFixed(1)} (${minutes.length})`;
    });
    return `| ${m.label} | ${cells.join(' | ')} |`;
  });
  return [head, ...rows].join('\n');
}

export function readRecords(file: string): RunRecord[] {
  return existsSync(file) ? parseRunRecords(file, readFileSync(file, 'utf8')) : [];
}

/** The seeds a method runs with: what trains nothing (the weak labels, the dictionary) is scored once, as seed 0. */
const seedsOf = (exp: Experiment, m: Experiment['methods'][number]): number[] => (isScoredOnly(m.method.name) ? [0] : (m.seeds ?? exp.seeds));

/** Every run of an experiment by key (setting/method/seed), in the order they run. */
/** A run key's setting, method label and seed. Labels may hold "/" (RoSTER "w/o ..."): the setting ends at the first, the seed starts after the last. */
export function runKeyParts(key: string): { setting: string; label: string; seed: number } {
  const i = key.indexOf('/');
  const j = key.lastIndexOf('/');
  return { setting: key.slice(0, i), label: key.slice(i + 1, j), seed: Number(key.slice(j + 1)) };
}

export function runKeys(exp: Experiment): string[] {
  return exp.settings.flatMap((s) =>
    exp.methods.filter((m) => !m.settings || m.settings.includes(s.name)).flatMap((m) => seedsOf(exp, m).map((seed) => `${s.name}/${m.label}/${seed}`)),
  );
}

/**
 * What is left of an experiment, and an estimate of its time on one core: the mean wall time of
 * the recorded runs of the same setting and method (runs with none recorded are counted apart).
 */
export function remainingRuns(exp: Experiment, records: readonly RunRecord[]): { runs: number; hours: number; untimed: number; text: string } {
  const done = new Set(records.map((r) => r.key));
  const left = runKeys(exp).filter((k) => !done.has(k));
  const perSetting = new Map<string, number>();
  let seconds = 0;
  let untimed = 0;
  for (const key of left) {
    const { setting, label } = runKeyParts(key);
    perSetting.set(setting, (perSetting.get(setting) ?? 0) + 1);
    const timed = records.filter((r) => r.setting === setting && r.label === label && r.wallSeconds > 0);
    if (timed.length) seconds += timed.reduce((a, r) => a + r.wallSeconds, 0) / timed.length;
    else untimed++;
  }
  const hours = Math.round((seconds / 3600) * 10) / 10;
  const where = [...perSetting].map(([s, n]) => `${s}: ${n}`).join(', ');
  const estimate =
    untimed < left.length ? `; about ${hours} h on one core for ${left.length - untimed} of them, by the recorded runs of the same setting and method` : '';
  const text = left.length
    ? `remaining: ${left.length} of ${runKeys(exp).length} runs (${where})${estimate}${untimed ? `; ${untimed} with no run of their setting and method recorded yet` : ''}`
    : `remaining: none of ${runKeys(exp).length} runs`;
  return { runs: left.length, hours, untimed, text };
}

/**
 * The setting's pre-trained encoder for a run's model (model.pretrain epochs): read from
 * bench/out/encoders when an earlier run built one with the same key, else pre-trained here on the
 * training sentences' text and the setting's `unlabeled` file, with seed 1 whatever the run's seed
 * (one encoder per setting and model shape), and kept there.
 */
async function settingEncoder(
  setting: Setting,
  cfg: RunConfig,
  feat: Featurizer,
  train: readonly { words: readonly string[] }[],
  log: (s: string) => void,
): Promise<{ weights: Weights; lm?: EncoderLm; epochs: number; sentences: number; seconds: number }> {
  const text = [...train.map((s) => ({ words: s.words })), ...(setting.unlabeled ? readUnlabeled(setting.unlabeled) : [])];
  const o = encoderPretraining(cfg);
  const key = encoderKey(cfg.model, feat, o, textFingerprint(text));
  const file = join(ENCODERS, `${createHash('sha1').update(key).digest('hex').slice(0, 20)}.bin`);
  mkdirSync(ENCODERS, { recursive: true });
  // Parallel jobs of one setting share one pre-training: the first takes the lock, the others wait for its file.
  let mine: { release(): void } | undefined;
  while (!existsSync(file) && !mine) {
    const lock = tryLock(`${file}.lock`);
    if ('release' in lock) mine = lock;
    else {
      log(`encoder: job ${lock.heldBy} is pre-training it; waiting`);
      await new Promise((r) => setTimeout(r, 15_000));
    }
  }
  if (existsSync(file)) {
    mine?.release();
    const e = deserialize(readFileSync(file)) as PretrainedEncoder;
    if (e.key === key) {
      log(`encoder: pre-trained earlier (${e.losses.length} epochs on ${e.sentences} sentences, ${Math.round(e.seconds)} s), from ${file}`);
      return { weights: e.weights, lm: e.lm, epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds };
    }
  }
  log(`encoder: pre-training on ${text.length} sentences (${o.epochs} epochs, ${o.vocab}-word language model)`);
  const e = await pretrainEncoder(cfg.model, feat, text, o, {
    onEpoch: (epoch, loss) => log(`encoder pre-training: epoch ${epoch} of ${o.epochs} done, loss ${loss.toFixed(3)}`),
    onProgress: (epoch, batch, batches, loss) =>
      log(`encoder pre-training: epoch ${epoch} of ${o.epochs}, batch ${batch} of ${batches}, loss ${loss.toFixed(3)}`),
  });
  if (!e) throw new Error('encoder pre-training stopped');
  writeFileSync(`${file}.${process.pid}.tmp`, serialize(e));
  renameSync(`${file}.${process.pid}.tmp`, file);
  mine?.release();
  return { weights: e.weights, lm: e.lm, epochs: e.losses.length, sentences: e.sentences, seconds: e.seconds };
}

/** A shipped encoder (a setting's `encoder.asset`, src/model/englishEncoder.ts) shaped for the run's model, its provenance logged. */
function assetEncoder(path: string, cfg: RunConfig, feat: Featurizer, log: (s: string) => void): EncoderUse {
  const asset = parseEncoderAsset(readJson(path), path);
  const { weights, chars, inputRows } = adaptEncoder(asset, cfg.model, feat, cfg.train.seed);
  log(
    `encoder: starts from ${path} (${asset.provenance.trainedOn ?? 'no provenance'}); ${chars} of ${feat.chars.size} characters known, ${inputRows} input rows carried`,
  );
  return { weights, epochs: 0, sentences: 0, seconds: 0, from: `encoder from ${path} (pre-trained elsewhere)` };
}

/** The first `n` sentences of an unlabeled text file that are none of `seen` (by their words), as unlabeled sentences (tags O). */
function selfTrainingPool(path: string, seen: readonly { words: readonly string[] }[], n: number): LabeledSentence[] {
  const known = new Set(seen.map((s) => s.words.join(' ')));
  const pool: LabeledSentence[] = [];
  for (const { words } of readUnlabeled(path)) {
    if (pool.length >= n) break;
    const key = words.join(' ');
    if (known.has(key)) continue;
    known.add(key);
    pool.push({ words, tags: words.map(() => 0), doc: pool.length, offset: 0 });
  }
  return pool;
}

/** A raw text file, one sentence a line, tokens between spaces; empty lines skipped. */
function readUnlabeled(path: string): { words: string[] }[] {
  return readText(path)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => ({ words: l.split(/\s+/) }));
}

/** The runs that `only`, `methods` and `keys` select, in runKeys order. */
function selectedKeys(exp: Experiment, opts: { only?: string[]; methods?: string[]; keys?: string[] }): string[] {
  return runKeys(exp).filter((key) => {
    const { setting, label } = runKeyParts(key);
    return (!opts.only || opts.only.includes(setting)) && (!opts.methods || opts.methods.includes(label)) && (!opts.keys || opts.keys.includes(key));
  });
}

/**
 * Runs the keys in `jobs` child processes of this CLI (the same Node, through tsx), dealt round-robin,
 * each child's log lines prefixed with its number. Returns what failed. Stopping this process
 * (SIGINT, SIGTERM, SIGHUP) stops the children first: left running, a child would die at its next
 * log line on the closed pipe, its run lost, while another process might start the same run.
 */
async function runJobs(configFile: string, keys: readonly string[], jobs: number, data: string, log: (s: string) => void): Promise<string[]> {
  const shares = Array.from({ length: Math.min(jobs, keys.length) }, (_, j) => keys.filter((_, i) => i % jobs === j));
  log(`experiment: ${keys.length} run${keys.length === 1 ? '' : 's'} in ${shares.length} job${shares.length === 1 ? '' : 's'}`);
  const failed: string[] = [];
  const children = new Set<ChildProcess>();
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const stop = (signal: NodeJS.Signals) => {
    for (const c of children) c.kill(signal);
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  };
  for (const s of signals) process.once(s, stop);
  await Promise.all(
    shares.map(
      (share, j) =>
        new Promise<void>((resolve) => {
          const args = [
            '--import',
            'tsx',
            fileURLToPath(new URL('./main.ts', import.meta.url)),
            'experiment',
            '--config',
            configFile,
            '--data',
            data,
            ...share.flatMap((k) => ['--key', k]),
          ];
          const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
          children.add(child);
          createInterface({ input: child.stderr! }).on('line', (line) => log(`[job ${j + 1}] ${line}`));
          // The job's last line is its JSON result: where it failed, its error says why.
          let last = '';
          createInterface({ input: child.stdout! }).on('line', (line) => {
            if (line.startsWith('{')) last = line;
          });
          child.on('close', (code) => {
            children.delete(child);
            if (code !== 0) failed.push(`job ${j + 1} exited with code ${code}${jobError(last)}`);
            resolve();
          });
        }),
    ),
  );
  for (const s of signals) process.off(s, stop);
  return failed;
}

function jobError(line: string): string {
  try {
    const error = (JSON.parse(line) as { error?: unknown }).error;
    return typeof error === 'string' ? `: ${error}` : '';
  } catch {
    return '';
  }
}

/** `K/N`: the K-th of N shares of an experiment's runs, by their place in runKeys. */
export function parseShard(text: string): { k: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const [k, n] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || n < 1 || k < 1 || k > n) throw new Error(`experiment: --shard ${text}: expected K/N with 1 <= K <= N, e.g. 1/2`);
  return { k, n };
}

/**
 * Runs what the records lack of an experiment (settings × methods × seeds), recording each run as
 * it finishes, and prints the results table. `report`: print the table of what is recorded, run
 * nothing (no backend, no data loaded). `shard`: run only the K-th of N fixed shares of the runs,
 * so that N processes (one per core) build one table; each appends its records to the same file
 * with one write per record. `only` and `methods`: the settings and the methods (by label) to run;
 * `keys`: exactly these runs (setting/method/seed). `jobs`: split what is left among that many
 * child processes (one per core; the CLI's WASM has one thread), wait for them, then report.
 */
/**
 * An experiment config parsed, its paths resolved: from the config's folder, `$data/...` from the
 * data folder (--data, NER_STUDIO_DATA). `missing` lists the data files not there (the caller
 * decides whether that stops it). `experiment` and `simulate-review` read their configs here.
 */
export function loadExperimentConfig(configFile: string, raw: unknown, dataOption?: string) {
  const parsed = experimentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${configFile}: ${issue.path.join('.') || '(top)'}: ${issueSentence(issue)}`);
  }
  const exp = parsed.data;
  const configDir = dirname(resolve(configFile));
  const data = dataFolder(dataOption);
  const missing: { written: string; path: string }[] = [];
  exp.settings = resolveDataPaths(exp.settings, configDir, data, missing);
  exp.records = resolveConfigPath(exp.records, configDir, data);
  return { exp, data, configDir, missing };
}

export async function runExperiment(
  configFile: string,
  opts: {
    only?: string[];
    methods?: string[];
    keys?: string[];
    report?: boolean;
    /** With `report`: the table of wall minutes a run instead of the F1 table. */
    cost?: boolean;
    /** Leave-one-corpus-out over the records (locoReport), written to this JSON file when given. */
    loco?: boolean;
    out?: string;
    shard?: { k: number; n: number };
    jobs?: number;
    data?: string;
    log?: (s: string) => void;
  } = {},
): Promise<Record<string, unknown>> {
  const { exp, data, missing } = loadExperimentConfig(configFile, readConfigJson(configFile), opts.data);
  if (missing.length && !opts.report && !opts.loco) throw missingFilesError(configFile, missing, data);
  const unknown = (opts.methods ?? []).filter((l) => !exp.methods.some((m) => m.label === l));
  if (unknown.length)
    throw new Error(`${configFile}: --method "${unknown[0]}": no method of that label; the labels: ${exp.methods.map((m) => `"${m.label}"`).join(', ')}`);
  const unknownKey = (opts.keys ?? []).find((k) => !runKeys(exp).includes(k));
  if (unknownKey) throw new Error(`${configFile}: --key "${unknownKey}": no such run; keys are setting/method label/seed, e.g. "${runKeys(exp)[0]}"`);
  const log = opts.log ?? ((s: string) => void process.stderr.write(`${s}\n`));
  if (opts.loco) {
    const { corpora, table, everyCorpus } = locoReport(
      exp,
      readRecords(exp.records),
      exp.loco?.priors ? readLocoPriors(exp, configFile, opts.data) : undefined,
    );
    log(table);
    const priorsEverywhere = exp.loco?.priors ? { everyCorpus: { about: EVERY_CORPUS, ...everyCorpus } } : {};
    if (opts.out)
      writeFileSync(
        opts.out,
        `${JSON.stringify({ config: configFile, records: exp.records.replace(`${process.cwd()}/`, ''), rule: LOCO_RULE, corpora, ...priorsEverywhere }, null, 2)}\n`,
      );
    return { experiment: exp.name, loco: corpora };
  }
  if (opts.report) return report(exp, null, 0, opts.cost);
  if (opts.jobs !== undefined) {
    if (opts.shard) throw new Error('experiment: --jobs and --shard do not go together (--jobs makes its own shares)');
    const recorded = new Set(readRecords(exp.records).map((r) => r.key));
    const todo = selectedKeys(exp, opts).filter((k) => !recorded.has(k));
    const failed = await runJobs(configFile, todo, opts.jobs, data, log);
    if (failed.length) throw new Error(`experiment: ${failed.join('; ')} (the other jobs' runs are recorded)`);
    return report(exp, null, todo.length);
  }
  const backend = await initWasmBackend();
  mkdirSync(dirname(exp.records) || '.', { recursive: true });
  const recorded = new Set(readRecords(exp.records).map((r) => r.key));
  // Runs of another shard, and runs not among the given keys, count as done here.
  const shard = opts.shard;
  const done = shard ? new Set([...recorded, ...runKeys(exp).filter((_, i) => i % shard.n !== shard.k - 1)]) : recorded;
  if (opts.keys) for (const k of runKeys(exp)) if (!opts.keys.includes(k)) done.add(k);
  const glove = readGloveAsset();
  const spelling = readSpellingModel();
  const lexicons = new Map<string, Lexicon | null>();
  // Dev and test text labeled once per setting for the methods that read the weak labels as features.
  const weakLabelCache = new Map<string, Annotation[]>();
  let ran = 0;
  for (const setting of exp.settings) {
    const todo = exp.methods.filter(
      (m) =>
        (!opts.methods || opts.methods.includes(m.label)) &&
        (!m.settings || m.settings.includes(setting.name)) &&
        seedsOf(exp, m).some((seed) => !done.has(`${setting.name}/${m.label}/${seed}`)),
    );
    if (!todo.length || (opts.only && !opts.only.includes(setting.name))) continue;
    log(`setting ${setting.name}: loading`);
    const data = loadSetting(setting);
    if (data.labelModel)
      log(
        `setting ${setting.name}: the label model chosen on dev (${data.labelModel.devSentences} sentences): ${data.labelModel.method} (weak-label F1 ${Object.entries(
          data.labelModel.devF1,
        )
          .map(([m, f]) => `${m} ${f}`)
          .join(', ')})`,
      );
    for (const m of todo) {
      if (isScoredOnly(m.method.name)) {
        const key = `${setting.name}/${m.label}/0`;
        if (done.has(key)) continue;
        const record = scoredOnlyRecord(key, setting, data, m);
        appendFileSync(exp.records, `${JSON.stringify(record)}\n`);
        done.add(key);
        ran++;
        log(`${key}: F1 ${record.test.f1} on the ${record.split} split`);
        continue;
      }
      const { planned, sents, feat, unlabeled, tags } = await prepareMethod({
        exp,
        configFile,
        setting,
        data,
        m,
        glove,
        spelling,
        lexicons,
        weakLabelCache,
        log,
      });
      for (const { seed, config: cfg } of planned) {
        const key = `${setting.name}/${m.label}/${seed}`;
        if (done.has(key)) continue;
        log(`${key}: training (${sents.train.length} sentences, ${sents.train.filter((s) => s.weak).length} weak)`);
        const record = await trainSettingRun({ exp, key, seed, cfg, m, setting, data, prepared: { sents, feat, unlabeled, tags }, log });
        appendFileSync(exp.records, `${JSON.stringify(record)}\n`);
        done.add(key);
        ran++;
      }
    }
  }
  return report(exp, backend, ran);
}

/** What `prepareMethod` needs: the experiment, the setting's data, the method row and the caches shared across rows. */
export interface PrepareArgs {
  exp: Experiment;
  configFile: string;
  setting: Setting;
  data: SettingData;
  m: Experiment['methods'][number];
  glove: ReturnType<typeof readGloveAsset>;
  spelling: ReturnType<typeof readSpellingModel>;
  /** Dictionaries by setting and rule features, built once per experiment. */
  lexicons: Map<string, Lexicon | null>;
  /** Dev and test text labeled once per setting for the methods that read the weak labels as features. */
  weakLabelCache: Map<string, Annotation[]>;
  log: (s: string) => void;
}

/**
 * Model options that only the training page reads (from the project's stores), each with what an
 * experiment writes instead: a method that sets one is refused, never run without it.
 */
export const PAGE_ONLY_MODEL_OPTIONS: readonly (readonly ['starter' | 'publicLibrary' | 'abbreviations' | 'sourceReliability', string])[] = [
  [
    'starter',
    'the training page\'s switch; in an experiment give the setting a starter ({"model": "public/models/starter-conll03.json", "use": "features"}), which cli/starter.ts reads',
  ],
  [
    'publicLibrary',
    'the training page\'s switch; in an experiment give the setting its lists ("publicGazetteers": [{"list": "cities", "type": "LOC"}, ...]), mapped as the page maps them',
  ],
  [
    'abbreviations',
    'the training page\'s run option; in an experiment give the setting "abbreviations": {"following": N} (a dictionary or distant setting), which reads them into its weak labels before any method does',
  ],
  [
    'sourceReliability',
    'the training page\'s switch; in an experiment give a dictionary setting "sourceReliability": true, which values its dictionary features by the label model\'s trust in each source',
  ],
];

/**
 * A method row's runs on a setting, made ready to train: the planned configs (one per seed), the
 * sentences with the dictionary and weak-label features the model reads, the self-training pool
 * and the featurizer. `experiment` and `simulate-review` train from it alike.
 */
export async function prepareMethod({ exp, configFile, setting, data, m, glove, spelling, lexicons, weakLabelCache, log }: PrepareArgs) {
  const tags = m.scheme === 'IO' ? ioTags(data.types) : bioTags(data.types);
  let planned: PlannedRun[];
  try {
    planned = planExperiment({ ...exp, methods: [m] }, { data: { kind: 'files', scheme: m.scheme, train: { conll: '-' }, dev: { conll: '-' } } }).runs;
  } catch (e) {
    throw new Error(`${configFile}: ${(e as Error).message}`);
  }
  // The training page's switches that read the project's stores: an experiment says them in the setting.
  const pageOnly = planned[0] && PAGE_ONLY_MODEL_OPTIONS.find(([k]) => planned[0].config.model[k]);
  if (pageOnly) throw new Error(`${configFile}: methods["${m.label}"].model.${pageOnly[0]}: ${pageOnly[1]}`);
  let sents = sentencesFor(data, tags, setting);
  // The method's module says what its model reads (the decoupled model: words only, and a [MASK]).
  const mod = getPipeline(m.pipeline.kind);
  const tokenFeatures = mod.tokenFeatures !== false;
  const lexModel = planned[0]?.config.model;
  const lexKey = `${setting.name}|rules ${lexModel?.ruleFeatures}`;
  const lexicon =
    tokenFeatures && lexModel?.dictionary
      ? (lexicons.get(lexKey) ?? lexicons.set(lexKey, settingLexicon(setting, data, lexModel.ruleFeatures)).get(lexKey)!)
      : null;
  if (lexicon) {
    const match = lexiconMatcher(lexicon);
    sents = { train: withLexicon(sents.train, match), dev: withLexicon(sents.dev, match), test: withLexicon(sents.test, match) };
    log(
      `${setting.name}: dictionary features from ${lexiconSize(lexicon)} entries${lexicon.rules ? ` and ${lexicon.rules.length} rules` : ''} (${lexicon.types.join(', ')})`,
    );
    if (data.sourceReliability) log(`${setting.name}: dictionary features valued by each source's reliability: ${reliabilityLine(data.sourceReliability)}`);
  }
  // Weak labels as features need weak labels on the text a model predicts: a dictionary setting's.
  const weakTypes = lexModel?.weakFeatures && setting.kind === 'dictionary' && tokenFeatures ? data.types.filter((t) => t !== UNKNOWN_TYPE) : [];
  if (lexModel?.weakFeatures && !weakTypes.length) log(`${setting.name}: weak labels as features: off (no weak labels on dev and test text here)`);
  if (weakTypes.length) {
    sents = settingWeakFeatures(setting, data, sents, weakTypes, lexicon?.types.length ?? 0, weakLabelCache);
    const base = lexicon?.types.length ?? 0;
    const spans = (xs: readonly { lex?: readonly LexiconMatch[] }[]) => xs.reduce((a, x) => a + (x.lex ?? []).filter((m) => m.type >= base).length, 0);
    log(
      `${setting.name}: the weak labels as features (${weakTypes.join(', ')}): ${spans(sents.train)} spans on train, ${spans(sents.dev)} on dev, ${spans(sents.test)} on test${data.hmm ? ` (dev and test by the HMM fitted on ${setting.kind === 'dictionary' && setting.labelModelText === 'all' ? 'train, dev and test text' : 'train'}${data.hmm.fit ? (data.hmm.fit.converged ? `; EM settled in ${data.hmm.fit.iterations} iterations` : `; EM stopped at its cap of ${data.hmm.fit.cap} iterations, unsettled`) : ''})` : ''}`,
    );
  }
  const base = (lexicon?.types.length ?? 0) + weakTypes.length;
  // The self-training pool (of completion, BOND and RoSTER): the setting's unlabeled text less train, dev and test sentences.
  const poolSize = selfTrainingPoolSize(m.pipeline);
  let unlabeled: LabeledSentence[] | undefined;
  if (poolSize > 0 && (!setting.unlabeled || weakTypes.length))
    log(
      `${setting.name}: self-training: off, ${setting.unlabeled ? 'the unlabeled text has no weak labels to read as features' : 'the setting has no unlabeled file'} ("${m.label}")`,
    );
  else if (poolSize > 0 && setting.unlabeled) {
    unlabeled = selfTrainingPool(setting.unlabeled, [...sents.train, ...sents.dev, ...sents.test], poolSize);
    if (lexicon) unlabeled = withLexicon(unlabeled, lexiconMatcher(lexicon));
    log(`${setting.name}: self-training pool of ${unlabeled.length} unlabeled sentences`);
  }
  const starter = await settingStarter(setting, { ...sents, unlabeled }, tokenFeatures && !!lexModel?.dictionary, base, tags, log);
  if (starter) ({ sents, unlabeled } = starter);
  const words = [...sents.train, ...sents.dev, ...sents.test, ...(unlabeled ?? [])].flatMap((s) => s.words);
  const featWords = sents.train.map((s) => s.words);
  const feat = buildFeaturizer(
    trimGlove(glove, [...words, ...(data.dictionary ?? []).flatMap((e) => e.words)], spelling),
    mod.featurizerWords ? mod.featurizerWords(featWords) : featWords,
    tags,
    { spelling: lexModel?.spelling },
  );
  const groups = [...(lexicon?.types ?? []), ...weakFeatureTypes(weakTypes), ...(starter?.groups ?? [])];
  if (groups.length) feat.lexicon = groups;
  return { planned, sents, feat, unlabeled, mod, tags };
}

/**
 * A setting's starter model (cli/starter.ts): its predictions on every split as dictionary features
 * of their own groups after the `base` others (where the model reads dictionary features), or its
 * mapped spans filling the weak labels' O tokens on train. Null without one.
 */
async function settingStarter<S extends { words: readonly string[]; lex?: readonly LexiconMatch[] }, T extends S & { tags: number[] }>(
  setting: Setting,
  sents: { train: T[]; dev: S[]; test: S[]; unlabeled?: LabeledSentence[] },
  dictionaryFeatures: boolean,
  base: number,
  tags: readonly string[],
  log: (s: string) => void,
) {
  const st = 'starter' in setting ? setting.starter : undefined;
  if (!st) return null;
  const parts = [sents.train, sents.dev, sents.test, sents.unlabeled ?? []] as const;
  // The pool depends on the row's pipeline (its size), and a pool of a size is always the same sentences.
  const { types, spans } = await starterSpans(st.model, `${setting.name}|${parts.map((p) => p.length).join(',')}`, parts.flat());
  const cut: Span[][][] = [];
  let at = 0;
  for (const p of parts) cut.push(spans.slice(at, (at += p.length)));
  if (st.use === 'source') {
    const { sentences, added } = fillWithStarter(sents.train, cut[0], st.map, tags);
    log(`${setting.name}: starter model as a weak source: ${added} of its spans fill weak O tokens on train (map ${JSON.stringify(st.map)})`);
    return { sents: { train: sentences, dev: sents.dev, test: sents.test }, unlabeled: sents.unlabeled, groups: [] };
  }
  if (!dictionaryFeatures) {
    log(`${setting.name}: starter model features: off (the model reads no dictionary features)`);
    return null;
  }
  const count = (k: number) => cut[k].reduce((a, s) => a + s.length, 0);
  log(`${setting.name}: starter model features (${types.join(', ')}): ${count(0)} spans on train, ${count(1)} on dev, ${count(2)} on test`);
  return {
    sents: {
      train: withStarterFeatures(sents.train, cut[0], types, base),
      dev: withStarterFeatures(sents.dev, cut[1], types, base),
      test: withStarterFeatures(sents.test, cut[2], types, base),
    },
    unlabeled: sents.unlabeled && withStarterFeatures(sents.unlabeled, cut[3], types, base),
    groups: starterGroups(types),
  };
}

/** Prints the Markdown table of the recorded runs (their F1, or with `cost` their wall minutes); the summary with each cell's F1 per seed. */
function report(exp: Experiment, backend: string | null, ran: number, cost = false): Record<string, unknown> {
  const records = readRecords(exp.records);
  process.stdout.write(`${(cost ? costTable : resultsTable)(exp, records)}\n`);
  const left = remainingRuns(exp, records);
  process.stderr.write(`${left.text}\n`);
  return {
    experiment: exp.name,
    backend,
    ran,
    recorded: records.length,
    remaining: left.runs,
    estimatedCoreHours: left.hours,
    records: exp.records,
    table: exp.methods.map((m) => ({
      label: m.label,
      ...Object.fromEntries(exp.settings.map((s) => [s.name, records.filter((r) => r.setting === s.name && r.label === m.label).map((r) => r.test.f1)])),
    })),
  };
}

interface SettingRunArgs {
  exp: Experiment;
  key: string;
  seed: number;
  cfg: RunConfig;
  m: Experiment['methods'][number];
  setting: Setting;
  data: SettingData;
  prepared: Pick<Awaited<ReturnType<typeof prepareMethod>>, 'sents' | 'feat' | 'unlabeled' | 'tags'>;
  log: (s: string) => void;
}

/**
 * One run of an experiment through the run engine: the setting's prepared sentences as its
 * source, its finished stages and running epochs kept on disk until it is recorded (a stopped
 * experiment goes on inside a run as well as between runs), then scored on test with the
 * decoding ablations that cost no training.
 */
async function trainSettingRun(a: SettingRunArgs): Promise<RunRecord> {
  const { key, cfg, m, setting } = a;
  const dir = runStoreDir(join(CHECKPOINTS, a.exp.name), key);
  const claim = claimRunStore(dir);
  try {
    return await trainClaimedRun(a, fileRunStore(dir, { config: cfg, pipeline: m.pipeline, scheme: m.scheme, setting }));
  } finally {
    claim.release();
  }
}

async function trainClaimedRun(a: SettingRunArgs, store: ReturnType<typeof fileRunStore>): Promise<RunRecord> {
  const { key, cfg, m, setting, log } = a;
  const { sents, feat, unlabeled, tags } = a.prepared;
  const t0 = performance.now();
  // The wall time of the run's earlier attempts, kept beside its checkpoints at each epoch.
  const earlier = ((await store.load('wall seconds')) as number | undefined) ?? 0;
  // A setting's encoder is built once and shared by its runs: its pre-training is not this run's cost.
  let sharedSeconds = 0;
  const wall = () => earlier + (performance.now() - t0) / 1000 - sharedSeconds;
  const { record, warning } = await runEngine<{ record: RunRecord; warning: string | null }>(
    { ...cfg, pipeline: m.pipeline },
    {
      ensembles: true,
      load: async () => ({
        tags,
        feat,
        train: sents.train as LabeledSentence[],
        dev: sents.dev,
        ...(unlabeled ? { unlabeled } : {}),
        ...(a.data.dictionary ? { dictionary: a.data.dictionary } : {}),
      }),
      async encoder(c) {
        const t1 = performance.now();
        const pre = await settingEncoder(setting, c, feat, sents.train, (message) => log(`${key}: ${message}`));
        sharedSeconds = (performance.now() - t1) / 1000;
        return pre;
      },
      ...('encoder' in setting && setting.encoder
        ? { startEncoder: async (c: RunConfig) => assetEncoder(setting.encoder!.asset, c, feat, (message) => log(`${key}: ${message}`)) }
        : {}),
      record: async (run) => {
        const r = await settingRecord(a, run, wall());
        return { record: r, warning: noEntityWarning(run, cfg, sents.train as LabeledSentence[], r.test.tp + r.test.fp) };
      },
      ended: async (how, reason) => {
        throw new Error(`${key}: ${how}: ${reason}`);
      },
    },
    store,
    {
      onStage: (message) => log(`${key}: ${message}`),
      onEpoch: (e) => {
        void store.save('wall seconds', wall());
        log(
          `${key}: ${e.stage ? `${e.stage}, ` : ''}epoch ${e.epoch}${e.epochs ? ` of ${e.epochs}` : ''}: loss ${e.loss.toFixed(4)}, dev F1 ${(100 * e.dev.overall.f1).toFixed(2)}${e.best ? ' (best so far)' : ''}`,
        );
      },
    },
  );
  store.clear();
  log(`${key}: test F1 ${record.test.f1} (${record.wallSeconds} s)`);
  if (warning) log(`${key}: ${warning}`);
  return record;
}

/** A finished experiment run scored on test, with the same model decoded without its type shifts and without any shift (no training cost). */
async function settingRecord(a: SettingRunArgs, run: FinishedRun, wallSeconds: number): Promise<RunRecord> {
  const { sents, feat, tags } = a.prepared;
  const tagger = run.model.decoding;
  const extra: Pick<RunRecord, 'unshifted' | 'withoutTypeShifts' | 'typeShiftsHeldOut' | 'members'> = {};
  // An ensemble's members scored as their own runs were: what the ensemble adds over one of them, in the same record.
  if (run.model.members && run.membersDev) {
    const pctOf = (x: number) => Math.round(x * 10000) / 100;
    extra.members = [];
    for (const [k, t] of run.model.members.entries()) {
      const d = run.membersDev[k];
      extra.members.push({
        seed: d.seed,
        dev: d.devF1 === null ? null : pctOf(d.devF1),
        test: pctOf((await evaluate(t, feat, sents.test)).overall.f1),
        oShift: d.oShift,
      });
    }
  }
  let test: SpanScores;
  if (!tagger)
    test = scoreSpans(
      sents.test.map((x) => spansOfTags(x.tags, tags)),
      await run.model.predict(sents.test),
    );
  else {
    test = await evaluate(tagger, feat, sents.test);
    if (tagger.tagShifts) {
      const kept = tagger.tagShifts;
      tagger.tagShifts = null;
      extra.withoutTypeShifts = { dev: roundScores(await evaluate(tagger, feat, sents.dev)), test: roundScores(await evaluate(tagger, feat, sents.test)) };
      tagger.tagShifts = kept;
      // Chosen on one half of dev, scored on the other: what they are worth from dev alone.
      const h = await heldOutTypeShifts(tagger, feat, sents.dev);
      extra.typeShiftsHeldOut = { with: Math.round(h.with.f1 * 10000) / 100, without: Math.round(h.without.f1 * 10000) / 100 };
    }
    if (tagger.oShift !== 0 || tagger.tagShifts) {
      tagger.oShift = 0;
      tagger.tagShifts = null;
      extra.unshifted = { dev: roundScores(await evaluate(tagger, feat, sents.dev)), test: roundScores(await evaluate(tagger, feat, sents.test)) };
    }
  }
  run.model.dispose();
  const stages = run.encoder
    ? [
        {
          stage:
            run.encoder.from ??
            `encoder pre-training (${run.encoder.epochs} epochs on ${run.encoder.sentences} sentences; once per setting, shared by its runs)`,
          devF1: 0,
          epochs: run.encoder.epochs,
          seconds: run.encoder.seconds,
          trainSentences: run.encoder.sentences,
        },
        ...run.stages,
      ]
    : run.stages;
  return {
    key: a.key,
    setting: a.setting.name,
    label: a.m.label,
    seed: a.seed,
    split: 'test',
    test: roundScores(test),
    dev: run.dev && roundScores(run.dev),
    stages: stages.map((s) => ({ ...s, devF1: Math.round(s.devF1 * 10000) / 100, seconds: Math.round(s.seconds) })),
    wallSeconds: Math.round(wallSeconds),
    tokensPerSecond: Math.round(run.tokensPerSecond),
    ...(run.oShift !== undefined ? { oShift: run.oShift } : {}),
    ...(extra.unshifted ? { unshifted: extra.unshifted } : {}),
    ...(run.typeShifts ? { typeShifts: run.typeShifts } : {}),
    ...(extra.withoutTypeShifts ? { withoutTypeShifts: extra.withoutTypeShifts } : {}),
    ...(extra.typeShiftsHeldOut ? { typeShiftsHeldOut: extra.typeShiftsHeldOut } : {}),
    ...(run.keptStage ? { keptStage: run.keptStage } : {}),
    ...(run.dictionaryDropout !== undefined ? { dictionaryDropout: run.dictionaryDropout } : {}),
    ...(a.data.labelModel ? { labelModel: a.data.labelModel } : {}),
    ...(extra.members ? { members: extra.members } : {}),
    finishedAt: new Date().toISOString(),
    config: { ...a.cfg, pipeline: a.m.pipeline, scheme: a.m.scheme } as Record<string, unknown>,
  };
}

/** A row that trains nothing: the weak labels themselves, or the longest dictionary match, scored. */
function scoredOnlyRecord(key: string, setting: Setting, data: SettingData, m: Experiment['methods'][number]): RunRecord {
  const lexicon = m.method.name === 'dictionary-match' ? settingLexicon(setting, data, false) : null;
  const {
    split,
    scores: test,
    dev,
  } = m.method.name === 'dictionary-match'
    ? { split: 'test' as const, scores: scoreDictionaryMatch(setting, data, lexicon), dev: undefined }
    : scoreWeakLabels(setting, data, (m.method as { fit?: string }).fit === 'train');
  return {
    key,
    setting: setting.name,
    label: m.label,
    seed: 0,
    split,
    test,
    dev: dev ?? null,
    stages: [],
    wallSeconds: 0,
    tokensPerSecond: 0,
    ...(data.labelModel ? { labelModel: data.labelModel } : {}),
    finishedAt: new Date().toISOString(),
  };
}
