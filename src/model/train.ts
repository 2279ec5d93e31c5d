import { mulberry32 } from '../core/random';
import type { SpanScores } from '../core/metrics';
import { prf, scoreSpans, type PRF } from '../core/metrics';
import type { RunConfig } from '../core/runConfig';
import { parseTag, tagsToSpans } from '../core/tagScheme';
import type { Span } from '../core/types';
import type { Method } from './method';
import type { LabeledSentence } from './data';
import type { Featurizer } from './features';
import { featureDims, makeBatch } from './features';
import { crfMarginals } from './crf';
import { WeightAverage } from './average';
import { LossReader, type LoopState, trainLoop, trainStepDeferred } from './loop';
import { batchTensors, type Decoding, Tagger, type Weights } from './tagger';
import * as tf from './tf';
import { programSource, programSourceAsync } from './programSource';

export interface StepEvent {
  epoch: number;
  step: number;
  steps: number;
  loss: number;
  tokensPerSecond: number;
}

export interface EpochEvent {
  epoch: number;
  loss: number;
  dev: SpanScores;
  seconds: number;
  tokensPerSecond: number;
  best: boolean;
  /** A method's own per-epoch means (negative sampling: missampling rate, sampled uncertainty). */
  methodStats?: Record<string, number>;
  /** In a multi-stage method: the stage's name, and its epoch budget. */
  stage?: string;
  epochs?: number;
}

/** Everything needed to go on training after a reload or a lost GPU device: the loop's state and the best epoch's dev scores. */
export interface Checkpoint extends LoopState<EpochEvent> {
  bestDev: SpanScores | null;
}

export { optimizerState, restoreOptimizer } from './loop';

/**
 * Where a run keeps what it has finished, so that a run started again goes on from there (the
 * CLI's checkpoint files, the studio's IndexedDB): each finished stage's model and record, the
 * running stage's last epoch checkpoint, a trained language model. Values hold typed arrays
 * (structured-clone data).
 */
export interface RunStore {
  load(key: string): Promise<unknown>;
  save(key: string, value: unknown): Promise<void>;
}

/**
 * trainTagger as one stage of a run with a store: restored whole when an earlier attempt finished
 * it (no epoch trains), else resumed from its last epoch checkpoint, and kept once finished; without
 * a store, plain trainTagger with the hooks' own onCheckpoint.
 */
export async function trainStage(
  method: Method,
  store: RunStore | undefined,
  id: string,
  cfg: RunConfig,
  feat: Featurizer,
  data: { train: LabeledSentence[]; dev: LabeledSentence[] },
  hooks: TrainHooks = {},
  init?: Weights,
  encoder?: Weights,
): Promise<TrainResult> {
  const saved = (await store?.load(`stage ${id}`)) as { weights: Weights; result: Omit<TrainResult, 'tagger'> } | undefined;
  if (saved) {
    const tagger = new Tagger(cfg.model, featureDims(feat), cfg.train.seed);
    tagger.setWeights(saved.weights);
    hooks.onStage?.(`stage ${id}: restored from the run's store`);
    return { ...saved.result, tagger };
  }
  const resume = (await store?.load(`checkpoint ${id}`)) as Checkpoint | undefined;
  if (resume) {
    hooks.onStage?.(`stage ${id}: resuming after epoch ${resume.epoch} from the run's store`);
    hooks.onResume?.(resume.epoch);
  }
  const onCheckpoint = store ? (cp: Checkpoint) => store.save(`checkpoint ${id}`, cp) : hooks.onCheckpoint;
  const r = await trainTagger(method, cfg, feat, data, { ...hooks, onCheckpoint }, resume, init, encoder);
  if (store && r.stopped !== 'cancelled' && r.stopped !== 'stopped') {
    const { tagger, ...result } = r;
    await store.save(`stage ${id}`, { weights: await tagger.getWeights(), result });
  }
  return r;
}

export interface TrainHooks {
  /** Called after every epoch with the state to resume from. */
  onCheckpoint?: (c: Checkpoint) => void | Promise<void>;
  onStep?: (e: StepEvent) => void;
  /** A stage goes on from a checkpoint in the run's store, after this epoch (`stage`: a multi-stage run's stage, as its epochs name it). */
  onResume?: (epoch: number, stage?: string) => void;
  /** Progress of a multi-stage method's stages that do not go through this loop (a language model). */
  onStage?: (message: string) => void;
  onEpoch?: (e: EpochEvent) => void | Promise<void>;
  /** After each epoch, with the model as it is then (before any best-weights restore): a method's per-epoch records. */
  afterEpoch?: (tagger: Tagger, e: EpochEvent) => Promise<void>;
  /** Polled between steps; return 'cancel' to stop and discard, 'stop' to stop and keep the best. */
  control?: () => 'go' | 'stop' | 'cancel' | Promise<'go' | 'stop' | 'cancel'>;
}

export interface TrainResult {
  tagger: Tagger;
  bestEpoch: number;
  bestDev: SpanScores | null;
  history: EpochEvent[];
  seconds: number;
  trainTokens: number;
  /** The sentences trained on (after the method's choice of strong or all). */
  trainSentences: number;
  tokensPerSecond: number;
  stopped: 'done' | 'early' | 'stopped' | 'cancelled';
}

/**
 * Padded tokens (sentences × longest) a training batch may hold. The BiLSTM's tape over a long
 * batch outgrew the WASM heap: 16 BC5CDR sentences of ~200 tokens (3,400 padded tokens) aborted
 * the backend; CoNLL's 32-sentence batches change only where sentences pass 75 tokens.
 */
/**
 * Steps between reads of the loss from a GPU (issue 48: no read-back inside a step, so the next
 * step is dispatched while the device works). On the CPU backends a read costs nothing and the
 * page shows every step's loss: every step.
 */
export const lossReadEvery = (): number => (tf.getBackend() === 'webgpu' || tf.getBackend() === 'webgl' ? 16 : 1);

export const MAX_BATCH_TOKENS = 2_400;
/** The same for prediction (no tape, but a batch's intermediates live until its scope ends). */
export const MAX_SCORE_TOKENS = 4_096;

/** Consecutive runs of `order` of at most `size` items and at most `maxTokens` padded tokens. */
export function chunkByBudget(order: readonly number[], lengthOf: (k: number) => number, size: number, maxTokens: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let longest = 0;
  for (const k of order) {
    const n = Math.max(longest, lengthOf(k));
    if (cur.length && (cur.length >= size || (cur.length + 1) * n > maxTokens)) {
      out.push(cur);
      cur = [];
      longest = 0;
    }
    cur.push(k);
    longest = Math.max(longest, lengthOf(k));
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Length-bucketed batches: sentences sorted by length with a little noise, then shuffled as batches. */
export function makeBatches(sentences: readonly LabeledSentence[], batchSize: number, rand: () => number): number[][] {
  const order = sentences
    .map((s, k) => [s.words.length + 2 * rand(), k] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, k]) => k);
  const batches = chunkByBudget(order, (k) => sentences[k].words.length, batchSize, MAX_BATCH_TOKENS);
  for (let i = batches.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [batches[i], batches[j]] = [batches[j], batches[i]];
  }
  return batches;
}

const nextTick = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * The model's scores for sentences, without gradients, in batches of similar length (little
 * padding): `transform` maps the emissions inside the batch's tidy scope, `each` receives the
 * batch, its scores read back, and the sentences' indices. Shared by every kind of prediction.
 */
async function scoreBatches(
  tagger: Decoding,
  feat: Featurizer,
  sentences: readonly LabeledSentence[],
  transform: (em: tf.Tensor3D) => tf.Tensor,
  each: (batch: ReturnType<typeof makeBatch>, data: Float32Array, idx: number[]) => void,
  batchSize = 64,
): Promise<void> {
  const order = sentences.map((_, k) => k).sort((a, b) => sentences[a].words.length - sentences[b].words.length);
  for (const idx of chunkByBudget(order, (k) => sentences[k].words.length, batchSize, MAX_SCORE_TOKENS)) {
    const batch = makeBatch(
      feat,
      idx.map((k) => sentences[k]),
    );
    const out = tf.tidy(() => transform(tagger.emissions(batchTensors(batch, tagger.dims), false, 0)));
    const data = (await out.data()) as Float32Array;
    out.dispose();
    each(batch, data, idx);
  }
}

/** Per sentence, its rows [length, K] of a batch's [B, T, K] scores. */
async function tokenRows(
  tagger: Decoding,
  feat: Featurizer,
  sentences: readonly LabeledSentence[],
  transform: (em: tf.Tensor3D) => tf.Tensor,
): Promise<Float32Array[]> {
  const K = tagger.dims.tags;
  const out: Float32Array[] = new Array(sentences.length);
  await scoreBatches(tagger, feat, sentences, transform, (batch, data, idx) =>
    idx.forEach((k, j) => (out[k] = data.slice(j * batch.T * K, (j * batch.T + sentences[k].words.length) * K))),
  );
  return out;
}

/** Best paths for sentences (Viterbi, argmax or span decoding), with their scores. */
export async function predict(tagger: Decoding, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<{ paths: number[][]; scores: number[] }> {
  const crf = await tagger.crfArrays();
  const paths: number[][] = new Array(sentences.length);
  const scores: number[] = new Array(sentences.length);
  await scoreBatches(
    tagger,
    feat,
    sentences,
    (em) => em,
    (batch, data, idx) => {
      const r = tagger.decode(data, batch.lengths, batch.T, crf);
      idx.forEach((k, j) => {
        paths[k] = r.paths[j];
        scores[k] = r.scores[j];
      });
    },
  );
  return { paths, scores };
}

/** Raw per-token scores (emissions), [length, K] per sentence: the O-values are column 0. */
export function predictEmissions(tagger: Decoding, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<Float32Array[]> {
  return tokenRows(tagger, feat, sentences, (em) => em);
}

/**
 * Per-token distributions over the tags, [length, K] per sentence: softmax of the scores, or the
 * two-part head's own probabilities (the CRF head's would be marginals; not needed yet).
 */
export function predictProbs(tagger: Decoding, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<Float32Array[]> {
  if (tagger.cfg.head !== 'softmax' && tagger.cfg.head !== 'twopart')
    throw new Error(`token distributions need the softmax or twopart head, not ${tagger.cfg.head}`);
  return tokenRows(tagger, feat, sentences, (em) => (tagger.cfg.head === 'twopart' ? tf.exp(em) : tf.softmax(em)));
}

/**
 * Per-token marginal distributions, [length, K] per sentence, for any token head: the CRF's by
 * forward-backward, the softmax's and the two-part head's directly. The span head has none (null).
 */
export async function predictMarginals(tagger: Decoding, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<Float32Array[] | null> {
  if (tagger.cfg.head === 'span') return null;
  if (tagger.cfg.head !== 'crf') return predictProbs(tagger, feat, sentences);
  const crf = (await tagger.crfArrays())!;
  const K = tagger.dims.tags;
  const out: Float32Array[] = new Array(sentences.length);
  await scoreBatches(
    tagger,
    feat,
    sentences,
    (em) => em,
    (batch, data, idx) => {
      const m = crfMarginals(data, batch.lengths, batch.T, K, crf.transitions, crf.start, crf.end);
      idx.forEach((k, j) => (out[k] = m.slice(j * batch.T * K, (j * batch.T + sentences[k].words.length) * K)));
    },
  );
  return out;
}

/**
 * Dev scored under any O shift and type shifts: the emissions are computed once, and each call
 * decodes them again (a Viterbi pass, no model call). The tagger's shifts are left as they were.
 */
async function devDecoder(tagger: Decoding, feat: Featurizer, dev: readonly LabeledSentence[]): Promise<DevScorer> {
  const crf = await tagger.crfArrays();
  const rows = await predictEmissions(tagger, feat, dev);
  const toSpans = (ids: readonly number[]): Span[] => tagsToSpans(ids.map((t) => feat.tags[t]));
  const gold = dev.map((s) => toSpans(s.tags));
  const all = dev.map((_, k) => k);
  return (oShift, tagShifts, only = all) => {
    const saved = [tagger.oShift, tagger.tagShifts] as const;
    tagger.oShift = oShift;
    tagger.tagShifts = tagShifts;
    const paths = only.map((k) => tagger.decode(rows[k], [dev[k].words.length], dev[k].words.length, crf).paths[0]);
    [tagger.oShift, tagger.tagShifts] = saved;
    return scoreSpans(
      only.map((k) => gold[k]),
      paths.map(toSpans),
    );
  };
}

/** Dev (or the sentences `only` names) scored under given shifts, from emissions computed once. */
type DevScorer = (oShift: number, tagShifts: Float32Array | null, only?: readonly number[]) => SpanScores;

/**
 * The O shift (Tagger.oShift) that scores best on dev, from `grid`: the emissions are computed
 * once and decoded under each shift. Models trained on weak labels that miss entities (distant
 * supervision) predict too few, dictionaries with false matches too many; the shift moves the
 * decision and dev says how far. Ties go to the smallest shift in size. Sets it on the tagger
 * (any type shifts it had are kept while it scores).
 */
export async function chooseOShift(
  tagger: Decoding,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  grid: readonly number[] = O_SHIFTS,
): Promise<{ shift: number; dev: SpanScores; byShift: { shift: number; f1: number }[] }> {
  if (tagger.cfg.head === 'span') {
    tagger.oShift = 0;
    return { shift: 0, dev: await evaluate(tagger, feat, dev), byShift: [] };
  }
  const chosen = searchOShift(await devDecoder(tagger, feat, dev), tagger.tagShifts, grid);
  tagger.oShift = chosen.shift;
  return chosen;
}

function searchOShift(score: DevScorer, tagShifts: Float32Array | null, grid: readonly number[]) {
  let best: { shift: number; dev: SpanScores } | null = null;
  const byShift: { shift: number; f1: number }[] = [];
  for (const shift of [...grid].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b)) {
    const scores = score(shift, tagShifts);
    byShift.push({ shift, f1: scores.overall.f1 });
    if (!best || scores.overall.f1 > best.dev.overall.f1) best = { shift, dev: scores };
  }
  return { shift: best!.shift, dev: best!.dev, byShift: byShift.sort((a, b) => a.shift - b.shift) };
}

/** The O shifts tried on dev (scores are log-potentials: 1 is a factor of e on the O tag). */
export const O_SHIFTS = [-2, -1.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5, 2, 3];

/** The shifts tried per entity type after the O shift (log-potentials added to the type's tags). */
export const TYPE_SHIFTS = [-1, -0.5, -0.25, 0, 0.25, 0.5, 1];

/** The entity type of a tag ("B-PER": "PER"); undefined for O. */
function entityTypeOf(tag: string): string | undefined {
  const p = parseTag(tag);
  return p && p[0] !== 'O' ? p[1] : undefined;
}

/** Per tag, the shift of its entity type (0 for O and for types not named); null when all are 0. */
export function tagShiftsOf(tags: readonly string[], shifts: Readonly<Record<string, number>>): Float32Array | null {
  const out = new Float32Array(tags.length);
  tags.forEach((t, k) => {
    const type = entityTypeOf(t);
    if (type !== undefined) out[k] = shifts[type] ?? 0;
  });
  return out.some((v) => v !== 0) ? out : null;
}

/**
 * A shift per entity type on top of the tagger's O shift, chosen on dev by coordinate ascent:
 * each type in turn takes the value of `grid` that scores best with the others held, until a sweep
 * changes nothing (at most `sweeps`). Weak labels miss each type at its own rate (distant
 * supervision finds people far more often than MISC), which one O shift cannot follow. A value
 * must beat the one held by dev F1 to replace it, and the grid is tried from the smallest shift
 * in size, so a type whose shift dev cannot tell apart keeps 0. Sets Tagger.tagShifts.
 */
export async function chooseTypeShifts(
  tagger: Tagger,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  grid: readonly number[] = TYPE_SHIFTS,
  sweeps = 3,
): Promise<{ shifts: Record<string, number>; dev: SpanScores; before: SpanScores }> {
  const types = [...new Set(feat.tags.map(entityTypeOf).filter((t): t is string => t !== undefined))];
  const shifts: Record<string, number> = Object.fromEntries(types.map((t) => [t, 0]));
  if (tagger.cfg.head === 'span') {
    const dev0 = await evaluate(tagger, feat, dev);
    return { shifts, dev: dev0, before: dev0 };
  }
  const chosen = searchTypeShifts(await devDecoder(tagger, feat, dev), tagger.oShift, feat.tags, grid, sweeps);
  tagger.tagShifts = tagShiftsOf(feat.tags, chosen.shifts);
  return chosen;
}

function searchTypeShifts(
  score: DevScorer,
  oShift: number,
  tags: readonly string[],
  grid: readonly number[] = TYPE_SHIFTS,
  sweeps = 3,
  only?: readonly number[],
) {
  const types = [...new Set(tags.map(entityTypeOf).filter((t): t is string => t !== undefined))];
  const shifts: Record<string, number> = Object.fromEntries(types.map((t) => [t, 0]));
  const before = score(oShift, null, only);
  let best = before;
  const order = [...grid].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b);
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let changed = false;
    for (const type of types) {
      for (const v of order) {
        if (v === shifts[type]) continue;
        const scores = score(oShift, tagShiftsOf(tags, { ...shifts, [type]: v }), only);
        if (scores.overall.f1 > best.overall.f1) {
          shifts[type] = v;
          best = scores;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return { shifts, dev: best, before };
}

/**
 * The O shift (unless `oShift` fixes it) and then, with `types`, the type shifts, chosen on dev
 * from one pass of the model over it; both set on the tagger. What a run's final model and
 * completion's teacher decode with.
 */
export async function chooseShifts(
  tagger: Decoding,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  o: { oShift: number | 'dev'; types: boolean },
): Promise<{ oShift: number; byShift?: { shift: number; f1: number }[]; typeShifts?: Record<string, number>; before?: SpanScores; dev?: SpanScores }> {
  if (tagger.cfg.head === 'span' || (o.oShift !== 'dev' && !o.types)) {
    // Nothing to choose: the configured O shift, and no type shifts (a model that decoded as a
    // teacher drops its own).
    tagger.oShift = o.oShift === 'dev' ? 0 : o.oShift;
    tagger.tagShifts = null;
    return o.oShift === 'dev' ? { oShift: 0, dev: await evaluate(tagger, feat, dev) } : { oShift: tagger.oShift };
  }
  const score = await devDecoder(tagger, feat, dev);
  const chosen = o.oShift === 'dev' ? searchOShift(score, null, O_SHIFTS) : null;
  tagger.oShift = chosen ? chosen.shift : (o.oShift as number);
  tagger.tagShifts = null;
  if (!o.types) return { oShift: tagger.oShift, byShift: chosen?.byShift, dev: chosen?.dev };
  const typed = searchTypeShifts(score, tagger.oShift, feat.tags);
  tagger.tagShifts = tagShiftsOf(feat.tags, typed.shifts);
  return { oShift: tagger.oShift, byShift: chosen?.byShift, typeShifts: typed.shifts, before: typed.before, dev: typed.dev };
}

/**
 * What type shifts are worth on text they were not chosen on, from dev alone: two folds over dev
 * (its even and its odd sentences), each choosing the shifts on one half and scoring the other,
 * with them and with the O shift alone; the counts of both folds summed. Dev cannot judge a
 * decoding option fitted on it; this can. The tagger's shifts are left as they were.
 */
export async function heldOutTypeShifts(tagger: Decoding, feat: Featurizer, dev: readonly LabeledSentence[]): Promise<{ with: PRF; without: PRF }> {
  const score = await devDecoder(tagger, feat, dev);
  const halves = [dev.map((_, k) => k).filter((k) => k % 2 === 0), dev.map((_, k) => k).filter((k) => k % 2 === 1)];
  const sum = { with: [0, 0, 0], without: [0, 0, 0] };
  for (const [fit, held] of [halves, [halves[1], halves[0]]]) {
    const { shifts } = searchTypeShifts(score, tagger.oShift, feat.tags, TYPE_SHIFTS, 3, fit);
    for (const [k, x] of [
      ['with', score(tagger.oShift, tagShiftsOf(feat.tags, shifts), held).overall],
      ['without', score(tagger.oShift, null, held).overall],
    ] as const) {
      sum[k][0] += x.tp;
      sum[k][1] += x.fp;
      sum[k][2] += x.fn;
    }
  }
  return { with: prf(sum.with[0], sum.with[1], sum.with[2]), without: prf(sum.without[0], sum.without[1], sum.without[2]) };
}

/** Span scores of predicted paths against the sentences' own tags. */
export async function evaluate(tagger: Decoding, feat: Featurizer, sentences: readonly LabeledSentence[]): Promise<SpanScores> {
  const { paths } = await programSourceAsync('dev pass', () => predict(tagger, feat, sentences));
  const toSpans = (ids: readonly number[]): Span[] => tagsToSpans(ids.map((t) => feat.tags[t]));
  return scoreSpans(
    sentences.map((s) => toSpans(s.tags)),
    paths.map(toSpans),
  );
}

/** What a stage trains on, checked before anything is built: the method's head, sentences to learn from and to select on, a dictionary dropout it can use. */
function checkTraining(method: Method, cfg: RunConfig, feat: Featurizer, data: { train: LabeledSentence[]; dev: LabeledSentence[] }) {
  if (method.name !== cfg.method.name) throw new Error(`the training loop was handed method "${method.name}" for a run of "${cfg.method.name}"`);
  if (method.heads && !method.heads.includes(cfg.model.head))
    throw new Error(`method "${method.name}" needs the ${method.heads.join(' or ')} head, not ${cfg.model.head}`);
  const out = method.trainsOn === 'strong' ? { ...data, train: data.train.filter((s) => !s.weak) } : data;
  if (!out.train.length)
    throw new Error(
      method.trainsOn === 'strong' ? `method "${method.name}" learns from strong labels and the training data has none` : 'no training sentences',
    );
  if (!out.dev.length) throw new Error('no dev sentences to select the model on');
  if (cfg.model.dictionaryDropout === 'dev' && feat.lexicon)
    throw new Error('model.dictionaryDropout "dev" is chosen by the run\'s pipeline (stages.ts); a single training needs a number');
  return out;
}

/**
 * A step's batch (dictionary matches dropped at the run's rate), its random generator and what the
 * method prepares from the current model (negative sampling's oracle). Generators are seeded per
 * step, so that a resumed run draws what an uninterrupted one draws.
 */
async function stepInputs(
  method: Method,
  methodConfig: { name: string },
  tagger: Tagger,
  feat: Featurizer,
  train: readonly LabeledSentence[],
  indices: number[],
  t: RunConfig['train'],
  dictionaryDropout: number | null,
  wordDropout: number,
  epoch: number,
  step: number,
) {
  const lexDrop = feat.lexicon && dictionaryDropout ? { rate: dictionaryDropout, rand: mulberry32(t.seed * 4_099 + step * 65_537 + 29) } : undefined;
  const wordDrop = wordDropout > 0 ? { rate: wordDropout, rand: mulberry32(t.seed * 6_067 + step * 48_611 + 37) } : undefined;
  const batch = makeBatch(
    feat,
    indices.map((k) => train[k]),
    indices,
    lexDrop,
    wordDrop,
  );
  const rand = mulberry32(t.seed * 7_919 + step * 104_729 + 17);
  const prepared = method.prepare ? await method.prepare({ tagger, batch, config: methodConfig, epoch, epochs: t.epochs, step, rand }) : undefined;
  return { batch, rand, prepared };
}

/**
 * The one training loop every method uses: Adam with gradient clipping by global norm,
 * length-bucketed mini-batches, early stopping on dev F1 with the best weights kept.
 */
export async function trainTagger(
  /** The run's method (src/methods' getMethod(cfg.method.name)): its loss and what it learns from. */
  method: Method,
  cfg: RunConfig,
  feat: Featurizer,
  data: { train: LabeledSentence[]; dev: LabeledSentence[] },
  hooks: TrainHooks = {},
  resume?: Checkpoint,
  /** Starting weights (a multi-stage method continues from an earlier model); fresh ones when absent. */
  init?: Weights,
  /** A pre-trained encoder (src/model/pretrain.ts) the fresh model starts from, when there is no `init`. */
  encoder?: Weights,
): Promise<TrainResult> {
  const methodConfig = method.schema.parse(cfg.method);
  const t = cfg.train;
  data = checkTraining(method, cfg, feat, data);
  const tagger = new Tagger(cfg.model, featureDims(feat), t.seed);
  const vars = [...tagger.params.values()];
  if (init && !resume) tagger.setWeights(init);
  else if (encoder && !resume) tagger.loadEncoder(encoder);
  let bestDev: SpanScores | null = resume?.bestDev ?? null;
  const trainTokens = data.train.reduce((a, s) => a + s.words.length, 0);
  const dictionaryDropout = cfg.model.dictionaryDropout === 'dev' ? null : cfg.model.dictionaryDropout;
  const t0 = performance.now();
  let trainMs = 0;
  let tokensSeen = 0;
  let epochTokens = 0;
  let epochStart = 0;
  let epochStats: Record<string, number[]> = {};
  let dev: SpanScores | null = null;
  const average = t.average > 0 ? new WeightAverage(t.average, tagger.params) : undefined;
  const loop = await trainLoop<EpochEvent>({
    ...(average ? { average } : {}),
    epochs: t.epochs,
    lr: t.lr,
    patience: t.patience,
    vars,
    getWeights: () => tagger.getWeights(),
    setWeights: (w) => tagger.setWeights(w),
    ...(resume ? { resume } : {}),
    async epoch(epoch, first, optimizer) {
      epochStart = performance.now();
      // One generator per epoch, so a resumed run batches exactly as an uninterrupted one.
      const batches = makeBatches(data.train, t.batchSize, mulberry32(t.seed * 100_003 + epoch));
      let lossSum = 0;
      let step = first;
      epochTokens = 0;
      epochStats = {};
      // On a GPU, losses are read back every few steps, not after each: a step does not wait for the
      // device. They are summed in step order, as if read one by one.
      const reader = new LossReader<{ n: number; bi: number }>(lossReadEvery(), (loss, x) => {
        lossSum += loss * x.n;
        hooks.onStep?.({ epoch, step: x.bi + 1, steps: batches.length, loss, tokensPerSecond: tokensSeen / (trainMs / 1000) });
      });
      for (let bi = 0; bi < batches.length; bi++) {
        const control = hooks.control ? await hooks.control() : 'go';
        if (control !== 'go') {
          await reader.flush();
          return { loss: 0, steps: step - first, stopped: control === 'cancel' ? 'cancelled' : 'stopped' };
        }
        const s0 = performance.now();
        const { batch, rand, prepared } = await stepInputs(
          method,
          methodConfig,
          tagger,
          feat,
          data.train,
          batches[bi],
          t,
          dictionaryDropout,
          cfg.model.wordDropout,
          epoch,
          step,
        );
        if (prepared?.stats) for (const [k, v] of Object.entries(prepared.stats)) (epochStats[k] ??= []).push(v);
        const at = step;
        const loss = await trainStepDeferred(
          optimizer,
          vars,
          t.clip,
          () => {
            const tensors = batchTensors(batch, tagger.dims);
            const emissions = method.emissions
              ? method.emissions({ tagger, tensors, step: at, prepared: prepared?.data })
              : tagger.emissions(tensors, true, at);
            return programSource('CRF and loss', () =>
              method.loss({ tagger, batch, tensors, emissions, config: methodConfig, epoch, step: at, rand, prepared: prepared?.data }),
            );
          },
          average,
        );
        const tokens = batch.lengths.reduce((a, b) => a + b, 0);
        tokensSeen += tokens;
        epochTokens += tokens;
        await reader.push(loss, { n: batches[bi].length, bi });
        trainMs += performance.now() - s0;
        step++;
        await nextTick();
      }
      const f0 = performance.now();
      await reader.flush();
      trainMs += performance.now() - f0;
      return { loss: lossSum / data.train.length, steps: step - first };
    },
    async record(epoch, loss) {
      dev = await evaluate(tagger, feat, data.dev);
      const seconds = (performance.now() - epochStart) / 1000;
      const methodStats = Object.fromEntries(Object.entries(epochStats).map(([k, v]) => [k, v.reduce((a, b) => a + b, 0) / v.length]));
      const record: EpochEvent = {
        epoch,
        loss,
        dev,
        seconds,
        tokensPerSecond: epochTokens / seconds,
        best: false,
        ...(Object.keys(methodStats).length ? { methodStats } : {}),
      };
      return { record, score: dev.overall.f1 };
    },
    async onEpoch(ev, improved) {
      ev.best = improved;
      if (improved) bestDev = dev;
      await hooks.onEpoch?.(ev);
      await hooks.afterEpoch?.(tagger, ev);
    },
    ...(hooks.onCheckpoint ? { checkpoint: (state: LoopState<EpochEvent>) => hooks.onCheckpoint!({ ...state, bestDev }) } : {}),
    // The shadows go with the loop, whether it ends or throws.
  }).finally(() => average?.dispose());
  const { bestEpoch, history } = loop;
  const stopped: TrainResult['stopped'] = loop.stopped;
  const seconds = (performance.now() - t0) / 1000;
  return {
    tagger,
    bestEpoch,
    bestDev,
    history,
    seconds,
    trainTokens,
    trainSentences: data.train.length,
    tokensPerSecond: tokensSeen / (trainMs / 1000 || 1),
    stopped,
  };
}
