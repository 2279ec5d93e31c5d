/**
 * `simulate-review --config FILE`: the simulated annotator (issue 47). From a setting's weak
 * labels it trains the base model, ranks the pool of sentences an annotator may correct by each
 * review signal (and at random, and by the oracle: the sentences whose weak labels are most
 * wrong), lets the gold labels correct the top k % of each ranking, fine-tunes the base model
 * with the corrected sentences as strong labels, and records the test F1. A correction may also
 * travel (the editor's "apply to all occurrences" and "stop list"): the same words elsewhere in
 * the pool are relabeled as the corrected sentence says. With `gazetteer` they also reach the
 * dictionary ("add to gazetteer", "add to the stop list"): every training sentence's weak labels
 * and every sentence's dictionary features, dev and test included, as the studio's next run reads
 * its gazetteers.
 *
 * The signals read models that did not train on the sentence they rank where that matters:
 * `doubt` and `crossfit` come from K fold models, each trained on the other folds; the base
 * model has seen every pool sentence, so on its own training data it reproduces the weak labels
 * and its disagreement with them vanishes (what the studio's queue showed on the demo).
 *
 * Every run is appended to the config's records (JSONL) as it finishes; a restart skips them.
 * `--report` writes the summary (`simulate.out`) from the records.
 */
import '../methods';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import {
  applyTravel,
  budgetCount,
  combineRanks,
  correctedLexicon,
  disagreement,
  doubt,
  doubtedPhrases,
  phraseCounts,
  rankByCover,
  reachItems,
  reachScore,
  travelOracle,
  travelOracleItems,
  foldsOf,
  precisionOf,
  queueOrder,
  randomOrder,
  rankBy,
  tokenErrors,
  travelEffect,
  travelRules,
  uncertaintyMax,
  uncertaintySum,
  type CoverItem,
  type PoolSentence,
} from '../core/guidedCorrection';
import type { experimentSchema, Setting } from '../core/experimentConfig';
import { meanStd, scoreSpans } from '../core/metrics';
import { tagsToSpans } from '../core/tagScheme';
import type { Annotation, ParsedCorpus, Span } from '../core/types';
import { lexiconMatcher, type Lexicon } from '../core/lexicon';
import { mulberry32 } from '../core/random';
import { runEngine, type RunSource, scopedStore } from '../engine/run';
import { pipelineSchema, START_STAGE } from '../methods/pipelines';
import { toSentences, type LabeledSentence } from '../model/data';
import { readGloveAsset, readSpellingModel } from '../model/gloveNode';
import type { Weights } from '../model/tagger';
import { evaluate, predict, predictMarginals } from '../model/train';
import type { RunConfig } from '../core/runConfig';
import { missingFilesError, readConfigJson, resolveConfigPath } from './dataFolder';
import { loadExperimentConfig, loadSetting, ownDictionaryLabels, prepareMethod, settingSources, type SettingData } from './experiment';
import { readCorpus } from './readCorpus';
import { fileRunStore, runStoreDir } from './runStore';
import { initWasmBackend } from './train';
import { weakLabelCorpus } from './weakLabel';
import { issueSentence } from '../core/issueSentence';
import { reachSignal, sourcesSignal } from '../core/reviewSignals';
import { keptStart } from '../core/queueLoco';

/** The ranking signals, each a sentence score over the pool (higher: correct it sooner). */
export const SIGNALS = ['doubt', 'crossfit', 'uncertainty', 'uncertainty-max', 'combined', 'reach', 'reach-set', 'reach-studio', 'sources'] as const;
export type SignalName = (typeof SIGNALS)[number];

/** The rankings that need no fold model: the base model's own signals, and the oracle of reach. */
const BASE_RANKINGS: readonly string[] = [
  'uncertainty',
  'uncertainty-max',
  'reach-studio',
  'reach',
  'reach-set',
  'sources',
  'oracle-reach',
  'oracle-reach-set',
];

/** Rankings a simulation may correct by: the signals, and the oracle of reach (gold ranks it: the bound of what reach could do). */
const TRAINABLE = [...SIGNALS, 'oracle-reach', 'oracle-reach-set'] as const;

export const SIGNAL_TITLES: Record<(typeof TRAINABLE)[number] | 'random' | 'oracle', string> = {
  doubt: 'cross-fitted doubt: Σ 1 − p(weak tag) under a fold model that did not train on the sentence',
  crossfit: "cross-fitted disagreement: tokens where a fold model's decoding differs from the weak tags",
  uncertainty: "the base model's uncertainty: Σ 1 − its largest marginal",
  'uncertainty-max': "the base model's least sure token: the largest 1 − its largest marginal (the studio's review queue ranks so)",
  combined: 'doubt and uncertainty by mean rank',
  reach:
    "the weak-label errors a correction is expected to fix once it travels: per phrase the base model doubts (1 − p(weak tag) ≥ 0.5), that doubt times the phrase's occurrences in the training text",
  'reach-set': 'reach as a set: greedily, each sentence by what its doubted phrases add to those of the sentences above it (a phrase counted once)',
  'reach-studio':
    "the studio's reach queue itself (its review page's ranking of the pool from the run's decoded spans and stored uncertainty; then the rest by the least sure token)",
  sources:
    "the studio's queue with no run, where the weak sources disagree: a source's type against another's, or the label model's aggregate overruling a source that fired (a dictionary setting's gazetteers and rules; the sentences it does not flag follow at random)",
  'oracle-reach-set':
    "the oracle of reach as a set: greedily, each sentence by its own token errors and its rules' net fixes in the pool's other sentences, a phrase counted once (the gold labels rank them)",
  'oracle-reach':
    'the oracle of reach: the token errors a correction fixes in the pool, its own and where its rules travel, less those it breaks (the gold labels rank them)',
  random: 'random sentences',
  oracle: 'the oracle: the sentences whose weak tags are most wrong (the gold labels rank them)',
};

export const simulateSchema = z
  .object({
    /** Fractions of the pool corrected. */
    budgets: z.array(z.number().positive().max(1)).min(1),
    folds: z.number().int().min(2).max(10).default(2),
    /** The signals whose top sentences are corrected and trained on; every signal's precision is recorded anyway. */
    train: z.array(z.enum(TRAINABLE)).min(1).default(['doubt']),
    /** Also train with the first trained signal's corrections travelling to the same words elsewhere, and random sentences' likewise. */
    travel: z.boolean().default(true),
    /** The trained signals whose corrections also travel (`travel`, `gazetteer`); unset: the first. */
    travelSignals: z.array(z.enum(TRAINABLE)).min(1).optional(),
    /**
     * Also train with the first trained signal's corrections, and random sentences', travelling
     * into the dictionary as well: typed phrases added to it, wrong ones stop-listed, so the
     * dictionary features change everywhere and the weak labels of every training sentence.
     */
    gazetteer: z.boolean().default(false),
    finetune: z
      .object({
        epochs: z.number().int().positive(),
        patience: z.number().int().positive().optional(),
        lr: z.number().positive().optional(),
        /**
         * The weak sentences' loss times this in the fine-tune (weighted WSL), so a few corrected
         * sentences are not drowned by thousands of weak ones; unset: the base model's method.
         */
        gamma: z.number().gt(0).max(1).optional(),
        /**
         * True: a fine-tune that does not beat the base on dev keeps the base (the studio's loop
         * with "keep the current model" ticked); default false, as the loop's default and every
         * simulation before: its best epoch whatever it scores. Recorded as each fine-tune's `start`.
         */
        keepStart: z.boolean().default(false),
      })
      .strict(),
    /**
     * Settings whose pool is part of dev (a dictionary setting has no gold on its training text,
     * nor a distant one without train.gold): `fromDev` dev sentences, weak-labeled as the setting
     * labels new text (a dictionary setting's sources, the HMM fitted on train; a distant setting's
     * dictionary of its training labels' strings), join the training sentences, and the rest of dev
     * selects the models. `limitTrain` caps the setting's own training sentences.
     */
    pools: z
      .record(
        z.string(),
        z
          .object({
            fromDev: z.number().int().positive().optional(),
            /**
             * The pool is drawn from test instead, and the rest of test scores the models, less any
             * document whose text equals a pool document's (a repeated tweet): where dev comes from
             * another period than test (twitter-distant), a pool from dev measures what corrections
             * of dev's kind of text are worth on test's. Nothing chooses on test: dev still selects.
             */
            fromTest: z.number().int().positive().optional(),
            limitTrain: z.number().int().positive().optional(),
            splitSeed: z.number().int().default(1),
            /**
             * The pool is dev's last `fromDev` sentences instead of a random draw, so that it shares
             * no document with the sentences that select models where the file keeps a document's
             * sentences together and marks no boundary (bc5cdr's dev.conll, abstract after abstract).
             */
            contiguous: z.boolean().default(false),
          })
          .strict()
          .refine((p) => (p.fromDev === undefined) !== (p.fromTest === undefined), { message: 'give one of fromDev and fromTest' }),
      )
      .default({}),
    /** The summary JSON (`--report` writes it). */
    out: z.string(),
  })
  .strict()
  .superRefine((o, ctx) => {
    for (const [k, sig] of (o.travelSignals ?? []).entries())
      if (!o.train.includes(sig)) ctx.addIssue({ code: 'custom', path: ['travelSignals', k], message: `"${sig}" is not among the trained signals (train)` });
  });

export type SimulateOptions = z.infer<typeof simulateSchema>;

/** One finished simulation run. */
export interface SimRecord {
  key: string;
  setting: string;
  seed: number;
  /** 'base', 'ranking' (the precision of every ranking, no training), 'control' (fine-tuned with no corrections), 'random', 'oracle', a signal, SIGNAL+travel or random+travel. */
  arm: string;
  fraction: number;
  /** Sentences corrected by the annotator. */
  corrected: number;
  /** Further sentences the corrections changed by travelling. */
  travelled?: number;
  /** How the travelled changes went against gold, on the pool's sentences (the others have none). */
  travel?: ReturnType<typeof travelEffect>;
  /** Arms travelling into the dictionary: phrases added, stop-listed, and left out for a type it has no features for. */
  gazetteer?: { added: number; stopped: number; skipped: number };
  /** Share of the corrected sentences that had a label error. */
  precision?: number;
  /** The corrected sentences' tokens: what the annotator read (a ranking by a sum over tokens favours long sentences). */
  tokens?: number;
  /** The corrected sentences' F1 against their gold: the fine-tuned model's, and their weak labels' before the correction. */
  fit?: { model: number; weak: number };
  /** Test and dev F1 (percent). */
  test?: number;
  dev?: number;
  /** A fine-tune's, with finetune.keepStart: whether it kept the base model (no epoch beat it on dev) or beat it; 'any' without (absent before the fifty-seventh session, alike). */
  start?: 'kept' | 'beaten' | 'any';
  /** arm 'ranking': precision per ranking and budget. */
  precisions?: Record<string, Record<string, number>>;
  /** arm 'tokens': per ranking and budget, the mean tokens a sentence of its top sentences. */
  tokensPerSentence?: Record<string, Record<string, number>>;
  poolSize?: number;
  /** Pool sentences with at least one weak-label error. */
  poolErrors?: number;
  wallSeconds: number;
  finishedAt: string;
}

const pct = (f1: number) => Math.round(f1 * 10000) / 100;

/** A setting's data with its correctable pool: the train sentence documents the annotator may correct, and their gold. */
interface PoolData {
  data: SettingData;
  setting: Setting;
  /** Gold annotations per training document (undefined outside the pool). */
  gold: (Annotation | undefined)[];
  /** Per training document, the spans of each weak source its weak labels aggregate (a dictionary setting's pool; undefined elsewhere). */
  sources?: (readonly { name: string; spans: readonly Span[] }[] | undefined)[];
}

export function poolData(setting: Setting, opts: Pick<SimulateOptions, 'pools'>): PoolData {
  const pool = opts.pools[setting.name];
  if (!pool) {
    if (setting.kind !== 'distant' || !setting.train.gold)
      throw new Error(
        `setting "${setting.name}": the annotator needs gold for the pool: a distant setting with train.gold, or simulate.pools["${setting.name}"].fromDev or .fromTest`,
      );
    const data = loadSetting(setting);
    const gold = readCorpus(setting.train.text, { format: 'lines', labels: [{ file: setting.train.gold, kind: 'gold', name: 'gold' }] }).layers[0].annotations;
    return { data, setting, gold };
  }
  const from = pool.fromTest !== undefined ? 'test' : 'dev';
  const size = (pool.fromTest ?? pool.fromDev)!;
  if (setting.kind !== 'dictionary' && setting.kind !== 'distant')
    throw new Error(`setting "${setting.name}": a pool from ${from} is for dictionary and distant settings (their dictionary labels the ${from} text)`);
  const { limitTrain, ...rest } = setting;
  const data = loadSetting(rest as Setting);
  const nTrain = Math.min(data.train.corpus.docs.length, pool.limitTrain ?? limitTrain ?? Infinity);
  const split = data[from];
  const { aggregate: poolWeak, sources: poolSources } = poolWeakLabels(setting, data, nTrain, from);
  const goldLayer = split.layers.find((l) => l.kind === 'gold');
  if (!goldLayer) throw new Error(`setting "${setting.name}": ${from} has no gold labels`);
  const n = split.docs.length;
  if (size >= n)
    throw new Error(
      `setting "${setting.name}": a pool of ${size} ${from} documents leaves none of the ${n} to ${from === 'dev' ? 'select models on' : 'score on'}`,
    );
  const rand = mulberry32(pool.splitSeed);
  const drawn = pool.contiguous
    ? Array.from({ length: size }, (_, k) => n - size + k)
    : Array.from({ length: n }, (_, k) => [rand(), k] as const)
        .sort((a, b) => a[0] - b[0])
        .slice(0, size)
        .map(([, k]) => k);
  const inPool = new Set(drawn);
  const poolIdx = [...inPool].sort((a, b) => a - b);
  // A test document whose text is a pool document's would score what the annotator corrected (dev's
  // repeats only select models, and stay as the recorded simulations had them).
  const poolTexts = new Set(from === 'test' ? poolIdx.map((k) => split.docs[k].text) : []);
  const restIdx = split.docs.map((_, k) => k).filter((k) => !inPool.has(k) && !poolTexts.has(split.docs[k].text));
  const sub = (c: ParsedCorpus, ks: number[]): ParsedCorpus => ({
    docs: ks.map((k) => c.docs[k]),
    layers: c.layers.map((l) => ({ ...l, annotations: ks.map((k) => l.annotations[k]) })),
    types: c.types,
  });
  const corpus: ParsedCorpus = { docs: [...data.train.corpus.docs.slice(0, nTrain), ...poolIdx.map((k) => split.docs[k])], layers: [], types: [] };
  const anns = [...data.train.anns.slice(0, nTrain), ...poolIdx.map((k) => poolWeak[k])];
  const gold = [...new Array<Annotation | undefined>(nTrain).fill(undefined), ...poolIdx.map((k) => goldLayer.annotations[k])];
  return {
    data: { ...data, train: { corpus, anns, weak: corpus.docs.map(() => true) }, [from]: sub(split, restIdx) },
    setting: rest as Setting,
    gold,
    ...(poolSources
      ? { sources: [...new Array<undefined>(nTrain).fill(undefined), ...poolIdx.map((k) => poolSources.map((x) => ({ name: x.name, spans: x.spans[k] })))] }
      : {}),
  };
}

/**
 * The weak labels of every document of a split, as the setting would label text it has not seen: a
 * dictionary setting's sources aggregated by the HMM fitted on its training text; a distant
 * setting's dictionary (the strings its labels matched in its first `nTrain` training sentences),
 * longest match first, since new text comes with no distant labels of its own.
 */
function poolWeakLabels(
  setting: Setting,
  data: SettingData,
  nTrain: number,
  from: 'dev' | 'test',
): { aggregate: Annotation[]; sources?: readonly { name: string; spans: readonly Span[][] }[] } {
  // The dictionary reads the first limitTrain training sentences' labels, the pool's never.
  if (setting.kind === 'distant') return { aggregate: ownDictionaryLabels({ ...setting, limitTrain: nTrain }, data, data[from]) };
  if (setting.kind !== 'dictionary') throw new Error(`setting "${setting.name}": no dictionary to label the pool with`);
  const file = setting[from];
  if (!('conll' in file)) throw new Error(`setting "${setting.name}": a pool from ${from} needs a CoNLL ${from} file`);
  const { result } = weakLabelCorpus({ corpus: file.conll, ...settingSources(setting, data), ...(data.hmm ? { hmm: data.hmm, types: data.hmm.types } : {}) });
  return { aggregate: result.aggregate, sources: result.sources };
}

/** The spans of a document inside its sentence [offset, offset + n), in the sentence's coordinates. */
function sentenceSpans(spans: readonly Span[], offset: number, n: number): Span[] {
  return spans.filter((x) => x.start >= offset && x.end <= offset + n).map((x) => ({ ...x, start: x.start - offset, end: x.end - offset }));
}

export function readSimRecords(file: string): SimRecord[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SimRecord)
    : [];
}

/** The rankings of the pool: every signal's, random and the oracle's; the oracles of reach (a pass of every sentence's rules over the pool) only where `trained` names them. */
function rankings(
  pool: readonly PoolSentence[],
  scores: Record<'doubt' | 'crossfit' | 'uncertainty' | 'uncertainty-max' | 'reach', number[]>,
  reachSet: CoverItem[],
  studioReach: number[],
  tags: readonly string[],
  seed: number,
  trained: readonly string[],
  sources: number[] | null,
): Record<string, number[]> {
  const r: Record<string, number[]> = {
    random: randomOrder(pool.length, seed),
    oracle: rankBy(pool.map(tokenErrors), seed),
    doubt: rankBy(scores.doubt, seed),
    crossfit: rankBy(scores.crossfit, seed),
    uncertainty: rankBy(scores.uncertainty, seed),
    'uncertainty-max': rankBy(scores['uncertainty-max'], seed),
    reach: rankBy(scores.reach, seed),
    'reach-set': rankByCover(reachSet, seed),
    'reach-studio': studioReach,
    ...(sources ? { sources } : {}),
  };
  if (trained.includes('oracle-reach')) r['oracle-reach'] = rankBy(travelOracle(pool, tags), seed);
  if (trained.includes('oracle-reach-set')) r['oracle-reach-set'] = rankByCover(travelOracleItems(pool, tags), seed);
  r.combined = combineRanks([r.doubt, r.uncertainty]);
  return r;
}

export async function simulateReview(
  configFile: string,
  o: { only?: string[]; seeds?: number[]; report?: boolean; data?: string; log?: (s: string) => void } = {},
): Promise<Record<string, unknown>> {
  const { simulate: simRaw, ...expRaw } = readConfigJson(configFile) as Record<string, unknown>;
  const { exp, data, configDir, missing } = loadExperimentConfig(configFile, expRaw, o.data);
  const parsedSim = simulateSchema.safeParse(simRaw);
  if (!parsedSim.success) {
    const issue = parsedSim.error.issues[0];
    throw new Error(`${configFile}: simulate.${issue.path.join('.')}: ${issueSentence(issue)}`);
  }
  const sim = parsedSim.data;
  if (exp.methods.length !== 1) throw new Error(`${configFile}: methods: give exactly one, the base model's (got ${exp.methods.length})`);
  const out = resolveConfigPath(sim.out, configDir, data);
  const log = o.log ?? ((s: string) => void process.stderr.write(`${s}\n`));
  const summary = () =>
    writeSummary(
      exp.records,
      out,
      sim,
      exp.settings.map((s) => s.name),
      o.seeds ?? exp.seeds,
      log,
    );
  if (o.report) return summary();
  if (missing.length) throw missingFilesError(configFile, missing, data);
  await initWasmBackend();
  mkdirSync(dirname(exp.records), { recursive: true });
  const done = new Set(readSimRecords(exp.records).map((r) => r.key));
  const glove = readGloveAsset();
  const spelling = readSpellingModel();
  const m = exp.methods[0];
  const seeds = o.seeds ?? exp.seeds;
  for (const s0 of exp.settings) {
    if (o.only && !o.only.includes(s0.name)) continue;
    const left = seeds.filter((seed) => !seedComplete(sim, s0.name, seed, done));
    if (!left.length) continue;
    log(`${s0.name}: loading`);
    const { data: d, setting, gold, sources } = poolData(s0, sim);
    const lexicons = new Map<string, Lexicon | null>();
    const { planned, sents, feat, tags } = await prepareMethod({
      exp,
      configFile,
      setting,
      data: d,
      m,
      glove,
      spelling,
      lexicons,
      weakLabelCache: new Map(),
      log,
    });
    const lexicon = [...lexicons.values()][0] ?? null;
    if (sim.gazetteer && !lexicon)
      throw new Error(`${configFile}: simulate.gazetteer: setting "${s0.name}" gives its model no dictionary features to travel into`);
    const goldSents = toSentences(d.train.corpus.docs, gold, tags).slice(0, sents.train.length);
    const poolAt = sents.train.map((x, k) => (gold[x.doc] ? k : -1)).filter((k) => k >= 0);
    if (sim.train.includes('sources') && !sources)
      throw new Error(`${configFile}: simulate.train "sources": setting "${s0.name}" has no weak sources to disagree (its pool is labeled by one dictionary)`);
    const pool: PoolSentence[] = poolAt.map((k) => {
      const x = sents.train[k];
      const bySource = sources?.[x.doc];
      return {
        words: x.words,
        weak: x.tags,
        gold: goldSents[k].tags,
        ...(bySource ? { sources: bySource.map((src) => ({ name: src.name, spans: sentenceSpans(src.spans, x.offset, x.words.length) })) } : {}),
      };
    });
    log(
      `${s0.name}: ${sents.train.length} training sentences, a pool of ${pool.length} the annotator may correct (${pool.filter((p) => tokenErrors(p) > 0).length} with a weak-label error), dev ${sents.dev.length}, test ${sents.test.length}`,
    );
    for (const seed of left) {
      const cfg = planned.find((p) => p.seed === seed)?.config;
      if (!cfg) throw new Error(`${configFile}: seed ${seed} is not among the experiment's seeds`);
      await simulateSeed({ exp, sim, setting: s0.name, seed, cfg, m, feat, sents, lexicon, pool, poolAt, tags, done, log });
    }
  }
  return summary();
}

interface SeedArgs {
  exp: z.infer<typeof experimentSchema>;
  sim: SimulateOptions;
  setting: string;
  seed: number;
  cfg: RunConfig;
  m: z.infer<typeof experimentSchema>['methods'][number];
  feat: Awaited<ReturnType<typeof prepareMethod>>['feat'];
  sents: { train: LabeledSentence[]; dev: LabeledSentence[]; test: LabeledSentence[] };
  /** The dictionary the sentences' features were matched with (null: none). */
  lexicon: Lexicon | null;
  pool: PoolSentence[];
  poolAt: number[];
  tags: string[];
  done: Set<string>;
  log: (s: string) => void;
}

/** What a seed's steps share: its store, and how it records and logs. */
interface SeedContext extends SeedArgs {
  store: ReturnType<typeof fileRunStore>;
  key: (arm: string, fraction: number) => string;
  write: (r: Omit<SimRecord, 'finishedAt'>) => void;
  onEpoch: (stage: string) => (e: { epoch: number; loss: number; dev: { overall: { f1: number } } }) => void;
}

/** One seed of one setting: the base model, the fold models' signals, then a fine-tune per arm and budget. */
async function simulateSeed(a: SeedArgs): Promise<void> {
  const { exp, sim, setting, seed, cfg, m, sents, pool, done, log } = a;
  const store = fileRunStore(runStoreDir(join('bench/out/checkpoints', exp.name), `${setting}/${seed}`), {
    cfg,
    pipeline: m.pipeline,
    sim,
    poolSize: pool.length,
    sentences: { train: sents.train.length, dev: sents.dev.length, test: sents.test.length },
  });
  const c: SeedContext = {
    ...a,
    store,
    key: (arm, fraction) => `${setting}/${seed}/${arm}/${fraction}`,
    write: (r) => {
      appendFileSync(exp.records, `${JSON.stringify({ ...r, finishedAt: new Date().toISOString() })}\n`);
      done.add(r.key);
      log(
        `${r.key}: ${r.test !== undefined ? `test F1 ${r.test}` : 'recorded'}${r.precision !== undefined ? `, precision ${(100 * r.precision).toFixed(1)} %` : ''}${r.travelled ? `, ${r.travelled} sentences travelled to` : ''}`,
      );
    },
    onEpoch: (stage) => (e) => log(`${setting}/${seed} ${stage}: epoch ${e.epoch}, loss ${e.loss.toFixed(3)}, dev F1 ${(100 * e.dev.overall.f1).toFixed(2)}`),
  };
  const base = await baseModel(c);
  const ranked = await crossFit(c, base.stageCfg, base.base);
  await fineTunes(c, base.stageCfg, base.weights, ranked);
  if (!done.has(`${setting}/${seed}/summary`))
    c.write({ key: `${setting}/${seed}/summary`, setting, seed, arm: 'summary', fraction: 0, corrected: 0, wallSeconds: 0 });
  store.clear();
}

/** The base model (the config's method on the weak labels), recorded; its weights, the one-stage config the fold and fine-tune models use, and its signals on the pool: uncertainty and reach. */
async function baseModel(c: SeedContext): Promise<{
  weights: Weights;
  stageCfg: RunConfig;
  base: { uncertainty: number[]; 'uncertainty-max': number[]; reach: number[]; reachSet: CoverItem[]; studioReach: number[]; sources: number[] | null };
}> {
  const { setting, seed, cfg, m, feat, sents, pool, poolAt, tags, done, log, store, key, write, onEpoch } = c;
  const t0 = performance.now();
  const base = await runEngine(
    { ...cfg, pipeline: m.pipeline },
    engineSource(c, sents.train, async (run) => {
      const tagger = run.model.tagger!;
      const r = {
        weights: (await tagger.getWeights()) as Weights,
        dictionaryDropout: run.dictionaryDropout,
        test: pct((await evaluate(tagger, feat, sents.test)).overall.f1),
        dev: run.dev ? pct(run.dev.overall.f1) : undefined,
        marg: (await predictMarginals(
          tagger,
          feat,
          poolAt.map((k) => sents.train[k]),
        ))!,
        paths: (
          await predict(
            tagger,
            feat,
            poolAt.map((k) => sents.train[k]),
          )
        ).paths,
      };
      run.model.dispose();
      return r;
    }),
    store,
    { onStage: (x) => log(`${setting}/${seed} base: ${x}`), onEpoch: onEpoch('base') },
  );
  const { weights, test: baseTest, dev: baseDev, marg, paths } = base;
  const dropout = base.dictionaryDropout ?? cfg.model.dictionaryDropout;
  const stageCfg: RunConfig = { ...cfg, model: { ...cfg.model, dictionaryDropout: typeof dropout === 'number' ? dropout : 0.5 } };
  // A seed resumed (or given new arms) trains its base model again for the weights: the same run, so the same figure.
  if (done.has(key('base', 0))) log(`${setting}/${seed} base trained again for its weights: test F1 ${baseTest}, dev ${baseDev ?? '–'}`);
  else
    write({
      key: key('base', 0),
      setting,
      seed,
      arm: 'base',
      fraction: 0,
      corrected: 0,
      test: baseTest,
      ...(baseDev !== undefined ? { dev: baseDev } : {}),
      wallSeconds: Math.round((performance.now() - t0) / 1000),
    });
  const uncertainty = pool.map((_, i) => uncertaintySum(marg[i], tags.length));
  const doubted = pool.map((p, i) => doubtedPhrases(p.words, p.weak, marg[i], tags));
  const counts = phraseCounts(
    sents.train.map((x) => x.words),
    new Set(doubted.flatMap((m) => [...m.keys()])),
  );
  return {
    weights,
    stageCfg,
    base: {
      uncertainty,
      'uncertainty-max': pool.map((_, i) => uncertaintyMax(marg[i], tags.length)),
      reach: pool.map((_, i) => reachScore(doubted[i], counts, uncertainty[i])),
      reachSet: reachItems(doubted, counts, uncertainty),
      studioReach: queueOrder(pool, marg, paths, tags, reachSignal, seed),
      // Only a pool whose weak labels aggregate sources has a ranking by their disagreement.
      sources: pool.some((x) => x.sources) ? queueOrder(pool, marg, paths, tags, sourcesSignal, seed) : null,
    },
  };
}

/** Cross-fitting: each fold's pool sentences scored by a model trained on everything else; every ranking, with its precision at each budget recorded. */
async function crossFit(
  c: SeedContext,
  stageCfg: RunConfig,
  base: { uncertainty: number[]; 'uncertainty-max': number[]; reach: number[]; reachSet: CoverItem[]; studioReach: number[]; sources: number[] | null },
): Promise<Record<string, number[]>> {
  const { sim, setting, seed, feat, sents, pool, poolAt, tags, done, store, key, write, onEpoch } = c;
  const t0 = performance.now();
  const fold = foldsOf(pool.length, sim.folds, seed);
  const scores = { doubt: new Array<number>(pool.length).fill(0), crossfit: new Array<number>(pool.length).fill(0), ...base };
  // The fold models cost two trainings a seed; a simulation that trains only on the base model's signals (and the oracle's) skips them.
  const folds = sim.train.some((s) => !BASE_RANKINGS.includes(s)) ? sim.folds : 0;
  for (let f = 0; f < folds; f++) {
    const held = new Set(poolAt.filter((_, i) => fold[i] === f));
    const idx = pool.map((_, i) => i).filter((i) => fold[i] === f);
    const xs = idx.map((i) => sents.train[poolAt[i]]);
    const { marg, paths } = await runEngine(
      single(stageCfg),
      engineSource(
        c,
        sents.train.filter((_, k) => !held.has(k)),
        async (run) => {
          const tagger = run.model.tagger!;
          const r = { marg: (await predictMarginals(tagger, feat, xs))!, paths: (await predict(tagger, feat, xs)).paths };
          run.model.dispose();
          return r;
        },
      ),
      scopedStore(store, `fold ${f + 1}`),
      { onEpoch: onEpoch(`fold ${f + 1} of ${sim.folds}`) },
    );
    idx.forEach((i, j) => {
      scores.doubt[i] = doubt(marg[j], pool[i].weak, tags.length);
      scores.crossfit[i] = disagreement(paths[j], pool[i].weak);
    });
  }
  const ranked = rankings(pool, scores, base.reachSet, base.studioReach, tags, seed, sim.train, base.sources);
  const precisions: Record<string, Record<string, number>> = {};
  for (const [name, order] of Object.entries(ranked))
    if (folds || ['random', 'oracle', ...BASE_RANKINGS].includes(name))
      precisions[name] = Object.fromEntries(
        sim.budgets.map((b) => [String(b), Math.round(10000 * precisionOf(pool, order.slice(0, budgetCount(pool.length, b)))) / 10000]),
      );
  if (!done.has(key('ranking', 0)))
    write({
      key: key('ranking', 0),
      setting,
      seed,
      arm: 'ranking',
      fraction: 0,
      corrected: 0,
      precisions,
      poolSize: pool.length,
      poolErrors: pool.filter((p) => tokenErrors(p) > 0).length,
      wallSeconds: Math.round((performance.now() - t0) / 1000),
    });
  // What each ranking's top sentences cost the annotator to read: their mean tokens a sentence (a ranking by a sum over tokens favours long sentences).
  if (!done.has(key('tokens', 0))) {
    const tokens: Record<string, Record<string, number>> = {};
    for (const name of Object.keys(precisions))
      tokens[name] = Object.fromEntries(
        sim.budgets.map((b) => {
          const top = ranked[name].slice(0, budgetCount(pool.length, b));
          return [String(b), Math.round((100 * top.reduce((a, i) => a + pool[i].words.length, 0)) / top.length) / 100];
        }),
      );
    write({ key: key('tokens', 0), setting, seed, arm: 'tokens', fraction: 0, corrected: 0, tokensPerSentence: tokens, wallSeconds: 0 });
  }
  return ranked;
}

/** Fine-tunes from the base model: no corrections (the control), then each arm at each budget, each recorded. */
async function fineTunes(c: SeedContext, stageCfg: RunConfig, baseWeights: Weights, ranked: Record<string, number[]>): Promise<void> {
  const { sim, setting, seed, feat, sents, pool, poolAt, tags, done, store, key, write, onEpoch, log } = c;
  const ftCfg: RunConfig = {
    ...stageCfg,
    train: {
      ...stageCfg.train,
      epochs: sim.finetune.epochs,
      ...(sim.finetune.patience ? { patience: sim.finetune.patience } : {}),
      ...(sim.finetune.lr ? { lr: sim.finetune.lr } : {}),
    },
    ...(sim.finetune.gamma !== undefined ? { method: { name: 'weighted-wsl', gamma: sim.finetune.gamma } } : {}),
    pipeline: pipelineSchema.parse(sim.finetune.keepStart ? { kind: 'single', keepStart: true } : { kind: 'single' }),
  };
  const fineTune = async (arm: string, fraction: number, corrected: readonly number[], travel: Travel) => {
    const k = key(arm, fraction);
    if (done.has(k)) return;
    const t1 = performance.now();
    let train = sents.train.slice();
    for (const i of corrected) train[poolAt[i]] = { ...train[poolAt[i]], tags: [...pool[i].gold], weak: false };
    let travelled: Map<number, number[]> | undefined;
    let moved = 0;
    let now = sents;
    let gazetteer: SimRecord['gazetteer'];
    if (travel === 'labels') {
      travelled = applyTravel(pool, travelRules(pool, corrected, tags), new Set(corrected), tags);
      for (const [i, row] of travelled) train[poolAt[i]] = { ...train[poolAt[i]], tags: row };
      moved = travelled.size;
    } else if (travel === 'gazetteer') {
      const rules = travelRules(pool, corrected, tags);
      // The weak labels of every training sentence, not only the pool's, as re-labeling does.
      const everyRow = train.map((x) => ({ words: x.words, weak: x.tags, gold: x.tags }));
      const rows = applyTravel(everyRow, rules, new Set(corrected.map((i) => poolAt[i])), tags);
      for (const [t, row] of rows) train[t] = { ...train[t], tags: row };
      const poolIndex = new Map(poolAt.map((t, i) => [t, i]));
      travelled = new Map([...rows].filter(([t]) => poolIndex.has(t)).map(([t, row]) => [poolIndex.get(t)!, row]));
      moved = rows.size;
      const g = correctedLexicon(c.lexicon!, rules);
      gazetteer = { added: g.added, stopped: g.stopped, skipped: g.skipped };
      const relex = rematcher(c.lexicon!, g.lexicon);
      train = train.map(relex);
      now = { train, dev: sents.dev.map(relex), test: sents.test.map(relex) };
    }
    log(`${k}: fine-tuning with ${ftCfg.method.name}${sim.finetune.gamma !== undefined ? ` (weak sentences × ${sim.finetune.gamma})` : ''}`);
    // The fine-tune the studio's review loop runs: one stage from the base model's weights.
    // The corrected sentences with their gold: how well the fine-tuned model learned them (against how wrong their weak labels were).
    const fixed = corrected.map((i) => ({ ...train[poolAt[i]], tags: [...pool[i].gold] }));
    const { test, dev, fit, start } = await runEngine(
      ftCfg,
      {
        ...engineSource({ ...c, sents: now }, train, async (run) => {
          const tagger = run.model.tagger!;
          const r = {
            test: pct((await evaluate(tagger, feat, now.test)).overall.f1),
            dev: run.dev,
            fit: fixed.length ? pct((await evaluate(tagger, feat, fixed)).overall.f1) : undefined,
            // As the studio's loop runs it: no epoch beat the base on dev, so the run kept the base ('any': not asked).
            start: !sim.finetune.keepStart ? ('any' as const) : run.keptStage === START_STAGE ? ('kept' as const) : ('beaten' as const),
          };
          run.model.dispose();
          return r;
        }),
        init: async () => baseWeights,
      },
      scopedStore(store, k),
      { onEpoch: onEpoch(`${arm} ${fraction}`) },
    );
    write({
      key: k,
      setting,
      seed,
      arm,
      fraction,
      corrected: corrected.length,
      ...(travelled ? { travelled: moved, travel: travelEffect(pool, travelled) } : {}),
      ...(gazetteer ? { gazetteer } : {}),
      precision: Math.round(10000 * precisionOf(pool, corrected)) / 10000,
      tokens: corrected.reduce((a, i) => a + pool[i].words.length, 0),
      ...(fit !== undefined ? { fit: { model: fit, weak: pct(weakF1(pool, corrected, tags)) } } : {}),
      test,
      ...(dev ? { dev: pct(dev.overall.f1) } : {}),
      start,
      wallSeconds: Math.round((performance.now() - t1) / 1000),
    });
  };
  for (const p of plannedArms(sim))
    await fineTune(p.arm, p.fraction, p.ranking ? ranked[p.ranking].slice(0, budgetCount(pool.length, p.fraction)) : [], p.travel);
}

/** How far a fine-tune's corrections go: nowhere else, to the same words in the pool, or into the dictionary too. */
type Travel = 'none' | 'labels' | 'gazetteer';

/** Every fine-tune a seed records, in the order they run: its arm, budget, the ranking whose top sentences it corrects, and how they travel. */
function plannedArms(sim: SimulateOptions): { arm: string; fraction: number; ranking: string; travel: Travel }[] {
  const out: { arm: string; fraction: number; ranking: string; travel: Travel }[] = [{ arm: 'control', fraction: 0, ranking: '', travel: 'none' }];
  for (const fraction of sim.budgets) {
    out.push({ arm: 'random', fraction, ranking: 'random', travel: 'none' }, { arm: 'oracle', fraction, ranking: 'oracle', travel: 'none' });
    for (const sig of sim.train) out.push({ arm: sig, fraction, ranking: sig, travel: 'none' });
    // Each travelling arm beside the same travelling from random sentences: what travel is worth apart from the ranking.
    for (const travel of ['labels', 'gazetteer'] as const)
      if (travel === 'labels' ? sim.travel : sim.gazetteer)
        out.push(...(sim.travelSignals ?? [sim.train[0]]).map((sig) => ({ arm: `${sig}+${TRAVEL_ARM[travel]}`, fraction, ranking: sig, travel })), {
          arm: `random+${TRAVEL_ARM[travel]}`,
          fraction,
          ranking: 'random',
          travel,
        });
  }
  return out;
}

const TRAVEL_ARM = { labels: 'travel', gazetteer: 'gazetteer' } as const;

/** Sentences' dictionary features matched again with `after` (the features of later groups, weak labels' and the starter's, kept). */
function rematcher(before: Lexicon, after: Lexicon) {
  const match = lexiconMatcher(after);
  const base = before.types.length;
  return <T extends LabeledSentence>(x: T): T => ({ ...x, lex: [...match(x.words), ...(x.lex ?? []).filter((m) => m.type >= base)] });
}

/** Whether a seed has every record its config plans (an arm added to the simulator runs on seeds simulated before it). */
function seedComplete(sim: SimulateOptions, setting: string, seed: number, done: ReadonlySet<string>): boolean {
  const has = (arm: string, fraction: number) => done.has(`${setting}/${seed}/${arm}/${fraction}`);
  return done.has(`${setting}/${seed}/summary`) && has('tokens', 0) && plannedArms(sim).every((p) => has(p.arm, p.fraction));
}

interface TravelSummary {
  gain: number;
  std: number;
  travelled: number;
  better: number;
  worse: number;
}

interface BudgetSummary {
  fraction: number;
  sentences: number;
  random: { gain: number; std: number; precision: number };
  oracle: { gain: number; std: number; precision: number };
  guided: { signal: string; gain: number; std: number; precision: number };
  travel?: TravelSummary;
  /** Random sentences' corrections travelling the same way. */
  randomTravel?: TravelSummary;
  /** The guided and random corrections travelling into the dictionary too. */
  gazetteer?: TravelSummary;
  randomGazetteer?: TravelSummary;
  /** Each ranking's precision (mean over seeds), trained on or not. */
  precisions: Record<string, number>;
  /** Every arm recorded at the budget (the records may hold arms of other configs): its gain, spread and seeds, and on how many seeds the fine-tune kept the base model. */
  arms: Record<string, { gain: number; std: number; seeds: number; kept: number }>;
}

/**
 * The summary in the issue's format: per setting and budget, the mean gain in test F1 points over
 * the base model (`gain`) for random, the oracle and the guided signal, with the queue's precision.
 * The fine-tune with no corrections (`control`) is given too: a gain it matches is the extra
 * epochs', not the corrections'.
 */
export function summarize(
  records: readonly SimRecord[],
  sim: Pick<SimulateOptions, 'budgets' | 'train' | 'travel'> & { finetune?: { keepStart?: boolean } },
  settings: readonly string[],
  /** The config's seeds: records of other seeds (another config's, sharing the file) are left out, so every arm is compared over the same seeds. */
  onlySeeds?: readonly number[],
) {
  const out = [];
  // With finetune.keepStart, every fine-tune as the loop runs it then, older records included: one that does not beat its base on dev keeps the base.
  const asRun = sim.finetune?.keepStart ? keptStart(records) : records;
  for (const name of settings) {
    const rs = asRun.filter((r) => r.setting === name && (!onlySeeds || onlySeeds.includes(r.seed)));
    const seeds = [...new Set(rs.filter((r) => r.arm === 'base').map((r) => r.seed))].sort();
    if (!seeds.length) continue;
    const base = new Map(rs.filter((r) => r.arm === 'base').map((r) => [r.seed, r.test!]));
    const ranking = rs.filter((r) => r.arm === 'ranking');
    const gainOf = (arm: string, fraction: number) => {
      const xs = rs.filter((r) => r.arm === arm && r.fraction === fraction && base.has(r.seed));
      const g = meanStd(xs.map((r) => r.test! - base.get(r.seed)!));
      return { n: xs.length, gain: round(g.mean), std: round(g.std), xs };
    };
    // From the ranking records; where they lack the budget (added after them), from the fine-tunes that corrected its top sentences.
    const precisionOfArm = (arm: string, fraction: number) => {
      const ranked = ranking.map((r) => r.precisions?.[arm]?.[String(fraction)]).filter((x): x is number => x !== undefined);
      const trained = rs.filter((r) => r.arm === arm && r.fraction === fraction && r.precision !== undefined).map((r) => r.precision!);
      return round(100 * mean(ranked.length ? ranked : trained.length ? trained : [NaN]));
    };
    const control = gainOf('control', 0);
    const budgets: BudgetSummary[] = sim.budgets
      .map((b): BudgetSummary | null => {
        const random = gainOf('random', b);
        const oracle = gainOf('oracle', b);
        const guided = gainOf(sim.train[0], b);
        const travelOf = (arm: string): TravelSummary | null => {
          const t = gainOf(arm, b);
          if (!t.n) return null;
          const m = (f: (r: SimRecord) => number) => round(mean(t.xs.map(f)));
          return {
            gain: t.gain,
            std: t.std,
            travelled: m((r) => r.travelled ?? 0),
            better: m((r) => r.travel?.better ?? 0),
            worse: m((r) => r.travel?.worse ?? 0),
          };
        };
        const travel = travelOf(`${sim.train[0]}+travel`);
        const randomTravel = travelOf('random+travel');
        const gazetteer = travelOf(`${sim.train[0]}+gazetteer`);
        const randomGazetteer = travelOf('random+gazetteer');
        if (!random.n || !oracle.n || !guided.n) return null;
        return {
          fraction: b,
          sentences: rs.find((r) => r.arm === 'random' && r.fraction === b)!.corrected,
          random: { gain: random.gain, std: random.std, precision: precisionOfArm('random', b) },
          oracle: { gain: oracle.gain, std: oracle.std, precision: precisionOfArm('oracle', b) },
          guided: { signal: sim.train[0], gain: guided.gain, std: guided.std, precision: precisionOfArm(sim.train[0], b) },
          ...(travel ? { travel } : {}),
          ...(randomTravel ? { randomTravel } : {}),
          ...(gazetteer ? { gazetteer } : {}),
          ...(randomGazetteer ? { randomGazetteer } : {}),
          precisions: Object.fromEntries(['random', 'oracle', 'oracle-reach', 'oracle-reach-set', ...SIGNALS].map((s) => [s, precisionOfArm(s, b)])),
          arms: Object.fromEntries(
            [...new Set(rs.filter((r) => r.fraction === b).map((r) => r.arm))].sort().map((arm) => {
              const g = gainOf(arm, b);
              return [arm, { gain: g.gain, std: g.std, seeds: g.n, kept: g.xs.filter((r) => r.start === 'kept').length }];
            }),
          ),
        };
      })
      .filter((x): x is BudgetSummary => x !== null);
    out.push({
      name,
      seeds,
      base: { mean: round(mean([...base.values()])), std: round(meanStd([...base.values()]).std) },
      control: control.n ? { gain: control.gain, std: control.std } : null,
      poolSize: ranking[0]?.poolSize,
      poolErrors: ranking[0]?.poolErrors,
      budgets,
    });
  }
  return out;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round = (x: number) => Math.round(x * 100) / 100;

function writeSummary(recordsFile: string, out: string, sim: SimulateOptions, settings: readonly string[], seeds: readonly number[], log: (s: string) => void) {
  const settingsOut = summarize(readSimRecords(recordsFile), sim, settings, seeds);
  const signals = Object.fromEntries(Object.entries(SIGNAL_TITLES));
  writeFileSync(out, `${JSON.stringify({ records: recordsFile.replace(`${process.cwd()}/`, ''), signals, settings: settingsOut }, null, 2)}\n`);
  for (const s of settingsOut) {
    log(
      `\n${s.name} (seeds ${s.seeds.join(', ')}): base ${s.base.mean} ± ${s.base.std}; fine-tuned with no corrections ${s.control ? `${sign(s.control.gain)} ± ${s.control.std}` : '–'}; pool ${s.poolSize} sentences, ${s.poolErrors} with an error`,
    );
    const gaz = s.budgets.some((b) => b.gazetteer || b.randomGazetteer);
    const travelCell = (t?: TravelSummary) => (t ? `${sign(t.gain)} ± ${t.std} (${t.travelled})` : '–');
    log(
      `| budget | sentences | random | oracle | guided (precision) | guided, travelling (sentences travelled to) | random, travelling |${gaz ? ' guided, into the dictionary too | random, into the dictionary too |' : ''}`,
    );
    log(`|---|---|---|---|---|---|---|${gaz ? '---|---|' : ''}`);
    for (const b of s.budgets)
      log(
        `| ${b.fraction * 100} % | ${b.sentences} | ${sign(b.random.gain)} ± ${b.random.std} (${pctOrDash(b.random.precision)}) | ${sign(b.oracle.gain)} ± ${b.oracle.std} | ${sign(b.guided.gain)} ± ${b.guided.std} (${pctOrDash(b.guided.precision)}) | ${travelCell(b.travel)} | ${travelCell(b.randomTravel)} |${gaz ? ` ${travelCell(b.gazetteer)} | ${travelCell(b.randomGazetteer)} |` : ''}`,
      );
  }
  return { out, settings: settingsOut };
}

const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
/** A precision in percent, or a note where no ranking record holds it (a budget added after the rankings were recorded). */
const pctOrDash = (x: number) => (Number.isFinite(x) ? `${x} %` : 'precision not recorded');

/** A one-stage run of the config's method (the fold models and the fine-tunes). */
const single = (cfg: RunConfig): RunConfig => ({ ...cfg, pipeline: pipelineSchema.parse({ kind: 'single' }) });

/** The seed's prepared sentences as the run engine's source, `train` as the training sentences, `record` reading the trained model. */
function engineSource<R>(c: SeedContext, train: LabeledSentence[], record: RunSource<R>['record']): RunSource<R> {
  return {
    load: async () => ({ tags: c.tags, feat: c.feat, train, dev: c.sents.dev }),
    record,
    ended: async (how, reason) => {
      throw new Error(`simulate-review: ${how}: ${reason}`);
    },
  };
}

/** The weak labels' span F1 against gold on the pool sentences `idx`. */
function weakF1(pool: readonly PoolSentence[], idx: readonly number[], tags: readonly string[]): number {
  const spans = (ids: readonly number[]) => tagsToSpans(ids.map((t) => tags[t]));
  return scoreSpans(
    idx.map((i) => spans(pool[i].gold)),
    idx.map((i) => spans(pool[i].weak)),
  ).overall.f1;
}
