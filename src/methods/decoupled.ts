/**
 * Training the decoupled model (paper 004) in its two stages: pre-training of the mention encoder
 * on a dictionary and of the context encoder on distantly labeled sentences (each optional: the
 * ablations), then unified training on the human-labeled sentences with early stopping on dev
 * span F1. Optionally first a token-level tagger on the human labels whose predicted spans join
 * the candidate regions (the "spans proposed by a token model"). Runs the same in Node and
 * in the training worker.
 */
import { getMethod, registerPipeline } from './registry';
import { scoreSpans, type SpanScores } from '../core/metrics';
import { mulberry32 } from '../core/random';
import type { Pipeline, RunConfig } from '../core/runConfig';
import { tagsToSpans } from '../core/tagScheme';
import type { Span } from '../core/types';
import type { LabeledSentence } from '../model/data';
import { candidates, DecoupledModel, decoupledFeaturizerWords, passesFilter, phraseIndex, type PhraseIndex, type RegionExample } from '../model/decoupled';
import { type Featurizer, featureDims } from '../model/features';
import { Tagger, type Weights } from '../model/tagger';
import type * as tf from '../model/tf';
import { predict, trainStage, type RunStore } from '../model/train';
import { type LoopState, trainLoop } from '../model/loop';
import { type StageRecord, stageRecord } from './stages';

/** Unified training's state after an epoch, to resume from (the run's store). */
type EpochRecord = NonNullable<StageRecord['history']>[number];

/** The unified training's checkpoint: the loop's state (stores written before it lack `bestEpoch`), and the O shift and throughput so far. */
interface UnifiedCheckpoint extends Omit<LoopState<EpochRecord>, 'bestEpoch'> {
  bestEpoch?: number;
  bestDev: SpanScores | null;
  oShift: number;
  tokens: number;
  trainMs: number;
}

export type DecoupledPipeline = Extract<Pipeline, { kind: 'decoupled' }>;

export interface DecoupledData {
  /** Human-labeled sentences (tags in the featurizer's tag set). */
  human: readonly LabeledSentence[];
  dev: readonly LabeledSentence[];
  /** Typed dictionary entries (mention pre-training, and candidates). */
  dictionary?: readonly { words: readonly string[]; type: string }[];
  /** Distantly labeled sentences (context pre-training); spans of unknown type are skipped. */
  distant?: readonly { words: readonly string[]; spans: readonly Span[] }[];
  /** Candidates of each dev sentence beside the generated ones (a weak layer's spans), as at prediction. */
  devProposals?: readonly (readonly Span[])[];
}

export interface DecoupledHooks {
  control?: () => 'go' | 'stop' | 'cancel';
  onStage?: (stage: string) => void;
  onEpoch?: (e: { stage: string; epoch: number; loss: number; devF1?: number; oShift?: number }) => void;
}

export interface DecoupledResult {
  model: DecoupledModel;
  dict: PhraseIndex | undefined;
  /** The token-level tagger whose predicted spans are candidates too (pipeline.proposer), or null. */
  proposer: Tagger | null;
  /** The shift of O's log-probability at prediction: the pipeline's, or the one chosen on dev. */
  oShift: number;
  dev: SpanScores | null;
  stages: StageRecord[];
  seconds: number;
  tokensPerSecond: number;
  stopped?: 'cancelled';
}

/** The spans of a sentence's tag ids. */
export const spansOfTags = (tags: readonly number[], tagNames: readonly string[]): Span[] => tagsToSpans(tags.map((t) => tagNames[t]));

/** Entity types of a tag set, in order: the classes are O then these. */
export function classesOf(tagNames: readonly string[]): string[] {
  return ['O', ...[...new Set(tagNames.filter((t) => t !== 'O').map((t) => t.slice(2)))]];
}

/**
 * O examples for mention pre-training: n-grams (1–3 tokens) of the text that pass the cheap
 * filter and that no dictionary entry is, drawn at random without repeats.
 */
export function nonEntityPhrases(sentences: readonly { words: readonly string[] }[], dict: PhraseIndex, count: number, seed: number): string[][] {
  const rand = mulberry32(seed);
  const out: string[][] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < count && tries < count * 20 && sentences.length; tries++) {
    const s = sentences[Math.floor(rand() * sentences.length)].words;
    if (!s.length) continue;
    const len = 1 + Math.floor(rand() * Math.min(3, s.length));
    const a = Math.floor(rand() * (s.length - len + 1));
    const words = s.slice(a, a + len);
    const key = words.join(' ').toLowerCase();
    if (seen.has(key) || dict.phrases.has(key) || !passesFilter(s, a, a + len)) continue;
    seen.add(key);
    out.push([...words]);
  }
  return out;
}

/** A sentence's candidates that are no entity, `k` of them drawn at random. */
function sampleNegatives(
  words: readonly string[],
  entities: readonly Span[],
  maxLength: number,
  dict: PhraseIndex | undefined,
  k: number,
  rand: () => number,
): [number, number][] {
  const ents = new Set(entities.map((e) => `${e.start}:${e.end}`));
  const pool = candidates(words, maxLength, dict).filter(([a, b]) => !ents.has(`${a}:${b}`));
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, k);
}

/**
 * Spans of sentences: every candidate (short filtered spans, dictionary matches, the proposer's
 * spans, and any `proposals` of the caller's: a weak layer) classified, the best kept.
 */
export async function predictDecoupled(
  r: Pick<DecoupledResult, 'model' | 'dict' | 'proposer' | 'oShift'>,
  sentences: readonly LabeledSentence[],
  p: DecoupledPipeline,
  proposals?: readonly (readonly Span[])[],
): Promise<Span[][]> {
  const proposed = r.proposer ? await proposeSpans(r.proposer, r.model.feat, sentences) : null;
  const extra = (k: number) => [...(proposals?.[k] ?? []), ...(proposed?.[k] ?? [])];
  return r.model.predict(
    sentences,
    sentences.map((s, k) => candidates(s.words, p.maxLength, r.dict, extra(k))),
    r.oShift,
  );
}

/** The O shifts tried when the pipeline's oShift is 'dev'. */
export const O_SHIFTS = Array.from({ length: 25 }, (_, k) => -3 + k * 0.25);

/** Dev span F1 at each shift of O's log-probability; the best (the smallest |shift| among ties). */
export function bestShift(
  gold: readonly (readonly Span[])[],
  score: (shift: number) => Span[][],
  shifts: readonly number[],
): { shift: number; scores: SpanScores } {
  let best: { shift: number; scores: SpanScores } | null = null;
  for (const shift of [...shifts].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b)) {
    const scores = scoreSpans(gold, score(shift));
    if (!best || scores.overall.f1 > best.scores.overall.f1) best = { shift, scores };
  }
  return best!;
}

/** A token tagger's Viterbi spans of each sentence. */
async function proposeSpans(tagger: Tagger, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<Span[][]> {
  const { paths } = await predict(tagger, feat, sentences);
  return paths.map((path) => spansOfTags(path, feat.tags));
}

// The decoupled model classifies regions, not tokens: the worker and the CLI train it through its
// spanModel, and its featurizer has a trainable [MASK] (the context encoder's input).
registerPipeline({
  kind: 'decoupled',
  featurizerWords: (words) => decoupledFeaturizerWords(words),
  tokenFeatures: false,
  async spanModel(p, cfg, feat, data, hooks, store) {
    if (!data.strong.length)
      throw new Error('the decoupled model trains on strong labels: choose a gold training layer, or a strong layer beside the weak one');
    const distantSpans = data.weak.map((x) => spansOfTags(x.tags, feat.tags));
    const r = await runDecoupled(
      p,
      cfg,
      feat,
      {
        human: data.strong,
        dev: data.dev,
        dictionary: data.dictionary,
        distant: data.weak.map((x, k) => ({ words: x.words, spans: distantSpans[k] })),
        ...(data.devProposals ? { devProposals: data.devProposals } : {}),
      },
      // The unified training's epochs are the run's (pre-training and the proposer are progress).
      { ...hooks, onEpoch: (e) => hooks.onEpoch?.({ ...e, main: e.stage === 'unified' }) },
      store,
    );
    return {
      predict: (sentences, proposals) => predictDecoupled(r, sentences, p, proposals),
      state: async (): Promise<DecoupledState> => ({
        kind: 'decoupled',
        classes: r.model.classes,
        oShift: r.oShift,
        weights: await r.model.getWeights(),
        chars: [...feat.chars],
        oov: [...feat.oov],
        ...(r.proposer ? { proposer: { weights: await r.proposer.getWeights(), oShift: r.proposer.oShift } } : {}),
      }),
      dispose: () => disposeDecoupled(r),
      trainSentences: data.strong.length,
      dev: r.dev,
      stages: r.stages,
      tokensPerSecond: r.tokensPerSecond,
      oShift: r.oShift,
      ...(r.stopped ? { stopped: r.stopped } : {}),
    };
  },
});

/** A finished decoupled run's model as the project keeps it: enough to classify the candidates of text that comes later. */
export interface DecoupledState {
  kind: 'decoupled';
  /** 'O' then the entity types. */
  classes: string[];
  oShift: number;
  weights: Weights;
  chars: [string, number][];
  oov: [string, number][];
  /** The token tagger whose spans are candidates too (pipeline.proposer); runs recorded before it was kept lack it. */
  proposer?: { weights: Weights; oShift: number };
}

/**
 * A kept decoupled model made whole again, to predict with (predictDecoupled): its weights, its
 * proposer's, and the dictionary index of `dictionary` (the project's typed entries as they are
 * now). `feat` is the featurizer of its run's words with the run's own character and OOV maps.
 */
export function restoreDecoupled(
  p: DecoupledPipeline,
  cfg: RunConfig,
  feat: Featurizer,
  state: DecoupledState,
  dictionary: readonly { words: readonly string[]; type: string }[],
): Pick<DecoupledResult, 'model' | 'dict' | 'proposer' | 'oShift'> {
  if (p.proposer && !state.proposer)
    throw new Error('this run kept no weights of its token model (candidate proposals): it was trained before the studio kept them, so train it again');
  const { model, dict } = decoupledParts(p, cfg, feat, state.classes, dictionary);
  model.setWeights(state.weights);
  let proposer: Tagger | null = null;
  if (p.proposer && state.proposer) {
    proposer = new Tagger(cfg.model, featureDims(feat), cfg.train.seed);
    proposer.setWeights(state.proposer.weights);
    proposer.oShift = state.proposer.oShift;
  }
  return { model, dict, proposer, oShift: state.oShift };
}

/** A fresh decoupled model of `classes`, and the dictionary index of the entries of those types: what training and a restored model share. */
function decoupledParts(
  p: DecoupledPipeline,
  cfg: RunConfig,
  feat: Featurizer,
  classes: string[],
  dictionary: readonly { words: readonly string[]; type: string }[],
) {
  const cls = new Map(classes.map((c, k) => [c, k]));
  const model = new DecoupledModel(
    cfg.model,
    feat,
    classes,
    { alpha: p.alpha, beta: p.beta, shared: p.shared, vocab: p.contextPretrain.vocab },
    cfg.train.seed,
  );
  const dictEntries = dictionary.filter((e) => cls.has(e.type) && e.words.length);
  const dict = dictEntries.length ? phraseIndex(dictEntries.map((e) => ({ words: e.words, label: cls.get(e.type)! }))) : undefined;
  return { model, cls, dictEntries, dict };
}

/** Frees the model and the proposer. */
export function disposeDecoupled(r: Pick<DecoupledResult, 'model' | 'proposer'>): void {
  r.model.dispose();
  r.proposer?.dispose();
}

export async function runDecoupled(
  p: DecoupledPipeline,
  cfg: RunConfig,
  feat: Featurizer,
  data: DecoupledData,
  hooks: DecoupledHooks = {},
  store?: RunStore,
): Promise<DecoupledResult> {
  const t0 = performance.now();
  const { model, cls, dictEntries, dict } = decoupledParts(p, cfg, feat, classesOf(feat.tags), data.dictionary ?? []);
  const t = cfg.train;
  const stages: StageRecord[] = [];
  let step = 0;
  const stopped = () => (hooks.control?.() ?? 'go') !== 'go';

  // Stage 0: a token-level tagger on the human labels, whose spans join the candidates at prediction.
  let proposer: Tagger | null = null;
  if (p.proposer) {
    const name = 'token model (candidate proposals)';
    hooks.onStage?.(name);
    const pcfg: RunConfig = { ...cfg, method: { name: 'supervised' }, pipeline: { kind: 'single' } };
    const r = await trainStage(
      getMethod(pcfg.method.name),
      store,
      'proposer',
      pcfg,
      feat,
      { train: [...data.human], dev: [...data.dev] },
      {
        control: hooks.control,
        onEpoch: (e) => hooks.onEpoch?.({ stage: name, epoch: e.epoch, loss: e.loss, devF1: e.dev.overall.f1 }),
      },
    );
    proposer = r.tagger;
    stages.push(stageRecord(name, r));
    if (r.stopped === 'cancelled')
      return { model, dict, proposer, oShift: 0, dev: null, stages, seconds: (performance.now() - t0) / 1000, tokensPerSecond: 0, stopped: 'cancelled' };
  }

  // The pre-trainings, restored whole from the run's store when an earlier attempt finished them.
  step = await pretrainings({ p, t, model, data, hooks, store, dict, dictEntries, cls, stages, step, stopped });
  if (stopped() && hooks.control?.() === 'cancel')
    return { model, dict, proposer, oShift: 0, dev: null, stages, seconds: (performance.now() - t0) / 1000, tokensPerSecond: 0, stopped: 'cancelled' };

  // Stage 2: unified training on the human labels, the model chosen on dev span F1.
  const u = await unifiedTraining({ p, cfg, feat, data, hooks, store, model, dict, cls, proposer, step });
  stages.push(u.stage);
  const cancelled = hooks.control?.() === 'cancel';
  return {
    model,
    dict,
    proposer,
    oShift: u.oShift,
    dev: u.dev,
    stages,
    seconds: (performance.now() - t0) / 1000,
    tokensPerSecond: u.tokensPerSecond,
    ...(cancelled ? { stopped: 'cancelled' as const } : {}),
  };
}

/**
 * The unified training on the human labels (paper 004's stage 2): regions of every labeled entity
 * and sampled negatives, the model chosen on dev span F1 over the candidates (with the O shift
 * chosen there when the pipeline says "dev"), checkpointed every epoch in the run's store.
 */
async function unifiedTraining(c: {
  p: DecoupledPipeline;
  cfg: RunConfig;
  feat: Featurizer;
  data: DecoupledData;
  hooks: DecoupledHooks;
  store: RunStore | undefined;
  model: DecoupledModel;
  dict: PhraseIndex | undefined;
  cls: Map<string, number>;
  proposer: Tagger | null;
  step: number;
}) {
  const { p, feat, data, hooks, store, model, dict, cls, proposer, step } = c;
  const t = c.cfg.train;
  hooks.onStage?.('unified training (human labels)');
  const u0 = performance.now();
  const human = data.human.map((s) => ({ words: s.words, entities: spansOfTags(s.tags, feat.tags) }));
  const devGold = data.dev.map((s) => spansOfTags(s.tags, feat.tags));
  // The proposer is fixed by now: its dev spans once.
  const proposed = proposer ? await proposeSpans(proposer, feat, data.dev) : undefined;
  const devCands = data.dev.map((s, k) => candidates(s.words, p.maxLength, dict, [...(data.devProposals?.[k] ?? []), ...(proposed?.[k] ?? [])]));
  let oShift = p.oShift === 'dev' ? 0 : p.oShift;
  const vars = model.encoderVars('both');
  let bestDev: SpanScores | null = null;
  let tokens = 0;
  let trainMs = 0;
  let dev: { shift: number; scores: SpanScores } | null = null;
  const cp = (await store?.load('checkpoint unified')) as UnifiedCheckpoint | undefined;
  if (cp) {
    ({ bestDev, oShift, tokens, trainMs } = cp);
    hooks.onStage?.(`unified training: resuming after epoch ${cp.epoch} from the run's store`);
  }
  const loop = await trainLoop<EpochRecord>({
    epochs: t.epochs,
    lr: t.lr,
    patience: t.patience,
    vars,
    getWeights: () => model.getWeights(),
    setWeights: (w) => model.setWeights(w),
    resume: cp ?? { step },
    // The heads joined the optimizer's variables after the encoders in the first epoch: the same order.
    beforeRestore: () => void vars.push(...model.unifiedHeadVars()),
    epoch: async (epoch, first, optimizer) => {
      const rand = mulberry32(t.seed * 1_000_003 + epoch);
      const examples: RegionExample[] = [];
      for (const s of human) {
        for (const e of s.entities) examples.push({ words: s.words, start: e.start, end: e.end, label: cls.get(e.label) ?? 0 });
        for (const [a, b] of sampleNegatives(s.words, s.entities, p.maxLength, dict, p.negatives, rand))
          examples.push({ words: s.words, start: a, end: b, label: 0 });
      }
      const e0 = performance.now();
      const r = await model.fit(examples, (b, s) => model.unifiedLosses(b, true, s).total, vars, {
        optimizer,
        batchSize: t.batchSize,
        clip: t.clip,
        seed: t.seed * 7_919 + epoch,
        step: first,
        control: hooks.control,
      });
      trainMs += performance.now() - e0;
      tokens += r.tokens;
      return { loss: r.loss, steps: r.steps, ...(r.stopped ? { stopped: 'stopped' as const } : {}) };
    },
    record: async (epoch, loss) => {
      const probs = await model.candidateProbs(data.dev, devCands);
      const chosen = bestShift(devGold, (x) => model.decode(probs, devCands, x), p.oShift === 'dev' ? O_SHIFTS : [p.oShift]);
      dev = chosen;
      return {
        record: { epoch, loss, devF1: chosen.scores.overall.f1, ...(p.oShift === 'dev' ? { methodStats: { oShift: chosen.shift } } : {}) },
        score: chosen.scores.overall.f1,
      };
    },
    onEpoch: (h, improved) => {
      hooks.onEpoch?.({ stage: 'unified', epoch: h.epoch, loss: h.loss, devF1: h.devF1, ...(p.oShift === 'dev' ? { oShift: dev!.shift } : {}) });
      if (improved) {
        bestDev = dev!.scores;
        oShift = dev!.shift;
      }
    },
    ...(store
      ? {
          checkpoint: (state: LoopState<EpochRecord>) =>
            store.save('checkpoint unified', { ...state, bestDev, oShift, tokens, trainMs } satisfies UnifiedCheckpoint),
        }
      : {}),
  });
  const { best, history } = loop;
  const stage: StageRecord = {
    stage: 'unified training (human labels)',
    devF1: Math.max(best, 0),
    epochs: history.length,
    seconds: (performance.now() - u0) / 1000,
    trainSentences: human.length,
    history,
  };
  return { stage, oShift, dev: bestDev as SpanScores | null, tokensPerSecond: tokens / Math.max(trainMs / 1000, 1e-9), step: loop.step };
}

/**
 * Paper 004's stage 1: the mention encoder learns what entities of each type look like from the
 * dictionary, and the context encoder where entities occur, from the distant labels; restored
 * whole from the run's store when an earlier attempt finished them. Returns the step count.
 */
async function pretrainings(c: {
  p: DecoupledPipeline;
  t: RunConfig['train'];
  model: DecoupledModel;
  data: DecoupledData;
  hooks: DecoupledHooks;
  store: RunStore | undefined;
  dict: PhraseIndex | undefined;
  dictEntries: readonly { words: readonly string[]; type: string }[];
  cls: Map<string, number>;
  stages: StageRecord[];
  step: number;
  stopped: () => boolean;
}): Promise<number> {
  const { p, t, model, data, hooks, store, dict, dictEntries, cls, stages, stopped } = c;
  let step = c.step;
  const pretrain = async (
    name: string,
    epochs: number,
    which: 'mention' | 'context',
    examples: RegionExample[],
    loss: (b: readonly RegionExample[], step: number) => tf.Scalar,
  ) => {
    if (!epochs || !examples.length) return;
    hooks.onStage?.(name);
    const s0 = performance.now();
    const vars = model.encoderVars(which);
    // The one training loop, with no dev score: every epoch runs; steps count on from the run's.
    const loop = await trainLoop<EpochRecord>({
      epochs,
      lr: t.lr,
      vars,
      getWeights: () => model.getWeights(),
      setWeights: (w) => model.setWeights(w),
      resume: { step },
      epoch: async (epoch, first, optimizer) => {
        const r = await model.fit(examples, loss, vars, {
          optimizer,
          batchSize: t.batchSize,
          clip: t.clip,
          seed: t.seed * 7_919 + epoch * 31 + (which === 'mention' ? 1 : 2),
          step: first,
          control: hooks.control,
        });
        return { loss: r.loss, steps: r.steps, ...(r.stopped ? { stopped: 'stopped' as const } : {}) };
      },
      record: async (epoch, loss) => ({ record: { epoch, loss, devF1: 0 } }),
      onEpoch: (h) => hooks.onEpoch?.({ stage: name, epoch: h.epoch, loss: h.loss }),
    });
    step = loop.step;
    const history = loop.history;
    stages.push({ stage: name, devF1: 0, epochs: history.length, seconds: (performance.now() - s0) / 1000, trainSentences: examples.length, history });
  };

  const pre = (await store?.load('pre-training')) as { weights: Weights; stages: StageRecord[]; step: number } | undefined;
  if (pre) {
    model.setWeights(pre.weights);
    stages.push(...pre.stages);
    step = pre.step;
    hooks.onStage?.(`pre-training restored from the run's store`);
  } else {
    const before = stages.length;
    // Stage 1a: the mention encoder learns what entities of each type look like from the dictionary.
    if (p.mentionPretrain.epochs > 0 && dict) {
      const text = [...data.human, ...(data.distant ?? [])];
      const o = nonEntityPhrases(text, dict, Math.round(p.mentionPretrain.oRatio * dictEntries.length), t.seed * 13 + 5);
      const examples: RegionExample[] = [
        ...dictEntries.map((e) => ({ words: e.words, start: 0, end: e.words.length, label: cls.get(e.type)! })),
        ...o.map((words) => ({ words, start: 0, end: words.length, label: 0 })),
      ];
      await pretrain('mention pre-training (dictionary)', p.mentionPretrain.epochs, 'mention', examples, (b, s) => model.mentionPretrainLoss(b, s));
    }
    // Stage 1b: the context encoder learns where entities occur, from the distant labels.
    if (p.contextPretrain.epochs > 0 && data.distant?.length && !stopped()) {
      const rand = mulberry32(t.seed * 17 + 3);
      const sents = data.distant.slice(0, p.contextPretrain.maxSentences);
      model.setVocab(sents.map((s) => s.words));
      const examples: RegionExample[] = [];
      for (const s of sents) {
        const typed = s.spans.filter((x) => cls.has(x.label));
        for (const x of typed) examples.push({ words: s.words, start: x.start, end: x.end, label: cls.get(x.label)! });
        // O regions: candidates that overlap no labeled span (of any type, unknown included).
        const k = Math.max(1, Math.round(p.contextPretrain.oRatio * typed.length));
        const free = candidates(s.words, p.maxLength).filter(([a, b]) => s.spans.every((x) => b <= x.start || x.end <= a));
        for (let i = 0; i < k && free.length; i++) {
          const [a, b] = free.splice(Math.floor(rand() * free.length), 1)[0];
          examples.push({ words: s.words, start: a, end: b, label: 0 });
        }
      }
      await pretrain('context pre-training (distant labels: masked words + type)', p.contextPretrain.epochs, 'context', examples, (b, s) =>
        model.contextPretrainLoss(b, s),
      );
    }
    if (!stopped()) await store?.save('pre-training', { weights: await model.getWeights(), stages: stages.slice(before), step });
  }
  return step;
}
