import type { ModelConfig } from '../core/runConfig';
import type { CrfParams } from './crf';
import { viterbi } from './crf';
import { bilstmDirection, bilstmInsertedStates, charCnn, bilstm, gatherSameBits, idcnn, param, type Params } from './encoders';
import type { BatchArrays } from './features';
import { MAX_CHARS } from './features';
import { dense, matMulFast } from './ops';
import { decodeSpans, spanLogits, spanLogitsAt } from './spanHead';
import * as tf from './tf';
import { MADE_ONCE_VARIABLES, programSource } from './programSource';

export type TaggerConfig = ModelConfig;

export interface TaggerDims {
  word: number;
  chars: number;
  oov: number;
  tags: number;
  /** Dictionary features per token (0: none). */
  lex?: number;
}

/** Tensors of one batch, made inside the caller's tidy scope. */
export interface BatchTensors {
  words: tf.Tensor3D;
  chars: tf.Tensor2D;
  mask: tf.Tensor2D;
  oovSelect: tf.Tensor2D | null;
  oovOneHot: tf.Tensor2D | null;
  /** Where gathers give the products' bits (gatherSameBits): the n out-of-GloVe ids, and per token 1 + which of them it reads (0: none). */
  oovIds?: tf.Tensor1D;
  oovPlace?: tf.Tensor1D;
  /** [B, T, lex] dictionary features, when the model reads them. */
  lex?: tf.Tensor3D;
}

export function batchTensors(b: BatchArrays, dims: TaggerDims): BatchTensors {
  const n = b.oovPos.length;
  let oovSelect: tf.Tensor2D | null = null;
  let oovOneHot: tf.Tensor2D | null = null;
  if (n && gatherSameBits()) {
    const place = new Int32Array(b.B * b.T);
    b.oovPos.forEach((p, k) => (place[p] = k + 1));
    return {
      ...batchTensors({ ...b, oovPos: [], oovIds: [] }, dims),
      oovIds: tf.tensor1d(Int32Array.from(b.oovIds), 'int32'),
      oovPlace: tf.tensor1d(place, 'int32'),
    };
  }
  if (n) {
    // [B*T, n] places the n out-of-GloVe vectors at their positions; [n, V] picks their rows.
    const sel = new Float32Array(b.B * b.T * n);
    b.oovPos.forEach((p, k) => (sel[p * n + k] = 1));
    oovSelect = tf.tensor2d(sel, [b.B * b.T, n]);
    const oh = new Float32Array(n * dims.oov);
    b.oovIds.forEach((id, k) => (oh[k * dims.oov + id] = 1));
    oovOneHot = tf.tensor2d(oh, [n, dims.oov]);
  }
  return {
    words: tf.tensor3d(b.words, [b.B, b.T, dims.word]),
    chars: tf.tensor2d(b.chars, [b.B * b.T, MAX_CHARS], 'int32'),
    mask: tf.tensor2d(b.mask, [b.B, b.T]),
    oovSelect,
    oovOneHot,
    ...(dims.lex ? { lex: b.lex ? tf.tensor3d(b.lex, [b.B, b.T, dims.lex]) : tf.zeros([b.B, b.T, dims.lex]) } : {}),
  };
}

/**
 * RoSTER's two-part head: from raw scores [e, t_1..t_C] over the IO tags (O, I-1..I-C), the log
 * probabilities log P(O) = log σ(−e) and log P(I-j) = log σ(e) + log softmax(t)_j: one classifier
 * for entity against non-entity, one for the type.
 */
export function twoPartLogProbs(raw: tf.Tensor3D): tf.Tensor3D {
  const [B, T, K] = raw.shape;
  const e = tf.slice(raw, [0, 0, 0], [B, T, 1]);
  const types = tf.slice(raw, [0, 0, 1], [B, T, K - 1]);
  // log σ(x) = −softplus(−x); tf.logSigmoid's own gradient reads a tensor its tidy has disposed.
  return tf.concat([tf.neg(tf.softplus(e)), tf.sub(tf.logSoftmax(types), tf.softplus(tf.neg(e)))], 2) as tf.Tensor3D;
}

/**
 * The k vertices of a centered simplex in k − 1 dimensions (Zhang and Liu 2014), as the columns of
 * a [k − 1, k] row-major matrix: W_1 = (k−1)^(−1/2) 1, W_j = −(1 + √k)/(k−1)^(3/2) 1 + √(k/(k−1)) e_(j−1).
 * They have unit length and sum to zero, so the scores ⟨h, W_j⟩ sum to zero for any h.
 */
export function simplexVertices(k: number): Float32Array {
  const d = k - 1;
  const out = new Float32Array(d * k);
  for (let r = 0; r < d; r++) {
    out[r * k] = 1 / Math.sqrt(d);
    for (let j = 1; j < k; j++) out[r * k + j] = -(1 + Math.sqrt(k)) / d ** 1.5 + (r === j - 1 ? Math.sqrt(k / d) : 0);
  }
  return out;
}

/** Span classes: "no entity", then each type (the tag set is O, B- and I- of each type). */
export const spanClasses = (dims: TaggerDims): number => (dims.tags - 1) / 2 + 1;

/** A model's weights by variable name, as copies (checkpoints, stores, saved models). */
/** A CRF's parameters read back as arrays: [K, K] transitions, start and end scores. */
export interface CrfArrays {
  transitions: Float32Array;
  start: Float32Array;
  end: Float32Array;
}

export type Weights = Record<string, { shape: number[]; data: Float32Array }>;

/** The token model: features, an encoder, emission scores, and a CRF or softmax head. */
let taggers = 0;

export class Tagger {
  /** Two taggers may live at once (a resumed run, a comparison), so variable names carry an id. */
  readonly params: Params = Object.assign(new Map<string, tf.Variable>(), { prefix: `tagger${++taggers}/` });
  /**
   * Subtracted from the O tag's score at decoding (not in training): a trained model's trade of
   * precision for recall, chosen on dev after training (chooseOShift). 0 decodes as trained.
   */
  oShift = 0;
  /**
   * Added to each tag's score at decoding, after the O shift: one value per entity type, on every
   * tag of that type (chooseTypeShifts, tagShiftsOf). null decodes with the O shift alone.
   */
  tagShifts: Float32Array | null = null;

  constructor(
    readonly cfg: TaggerConfig,
    readonly dims: TaggerDims,
    readonly seed: number,
  ) {
    // Build every variable once, on a one-token batch, so that the optimizer sees them all.
    programSource(MADE_ONCE_VARIABLES, () =>
      tf.tidy(() => {
        this.emissions(
          {
            words: tf.zeros([1, 1, dims.word]),
            chars: tf.zeros([1, MAX_CHARS], 'int32'),
            mask: tf.ones([1, 1]),
            oovSelect: tf.ones([1, 1]),
            oovOneHot: tf.cast(tf.oneHot([0], dims.oov), 'float32') as tf.Tensor2D,
            ...(dims.lex ? { lex: tf.zeros([1, 1, dims.lex]) } : {}),
          },
          false,
          0,
        );
      }),
    );
    if (cfg.head === 'crf') {
      param(this.params, 'crf/transitions', () => tf.zeros([dims.tags, dims.tags]));
      param(this.params, 'crf/start', () => tf.zeros([dims.tags]));
      param(this.params, 'crf/end', () => tf.zeros([dims.tags]));
    }
  }

  crf(): CrfParams {
    return {
      transitions: this.params.get('crf/transitions') as unknown as tf.Tensor2D,
      start: this.params.get('crf/start') as unknown as tf.Tensor1D,
      end: this.params.get('crf/end') as unknown as tf.Tensor1D,
    };
  }

  /**
   * Emission scores [B, T, K] for the CRF and softmax heads; for the span head, span logits
   * [B, S, C] in `spanSlots` order. `step` varies the dropout masks from one step to the next.
   */
  emissions(b: BatchTensors, training: boolean, step: number): tf.Tensor3D {
    const { cfg, dims, params, seed } = this;
    const h = this.encode(b, training, step);
    if (cfg.head === 'span') return spanLogits(params, h, cfg.spanMaxLength, cfg.spanHidden, spanClasses(dims), seed + 19);
    return programSource('output layer', () => this.outputLayer(h));
  }

  /** Emission scores [B, T, K] from token states [B, T, H]: the output layer (and the two-part head's log-probabilities). */
  private outputLayer(h: tf.Tensor3D): tf.Tensor3D {
    const { cfg, dims, params, seed } = this;
    const H = h.shape[2];
    const D = cfg.angle ? dims.tags - 1 : dims.tags;
    const w = param(params, 'out/w', () => tf.randomUniform([H, D], -Math.sqrt(6 / (H + D)), Math.sqrt(6 / (H + D)), 'float32', seed + 17));
    const bias = param(params, 'out/b', () => tf.zeros([D]));
    let out = dense(h, w, bias) as tf.Tensor3D;
    if (cfg.angle) out = dense(out, tf.tensor2d(simplexVertices(dims.tags), [D, dims.tags])) as tf.Tensor3D;
    return cfg.head === 'twopart' ? twoPartLogProbs(out) : out;
  }

  /** Span logits [N, C] of chosen slots (flat b·S + s in spanSlots order), as `emissions` has them. */
  spanEmissionsAt(b: BatchTensors, slots: Int32Array, training: boolean, step: number): tf.Tensor2D {
    const { cfg, dims, params, seed } = this;
    if (cfg.head !== 'span') throw new Error('span logits need the span head');
    return spanLogitsAt(params, this.encode(b, training, step), cfg.spanMaxLength, slots, cfg.spanHidden, spanClasses(dims), seed + 19);
  }

  /** Token states [B, T, H] from the features and the encoder (dropout applied when training). */
  encode(b: BatchTensors, training: boolean, step: number): tf.Tensor3D {
    const { cfg, params, seed } = this;
    const x = programSource('embedding and character CNN', () => this.inputs(b, training, step));
    const h =
      cfg.encoder === 'bilstm'
        ? bilstm(params, x, b.mask, cfg.hidden, seed + 11)
        : programSource('ID-CNN', () =>
            idcnn(params, x, b.mask, cfg.hidden, cfg.idcnnIterations, cfg.dropout, training, seed + 11, seed * 7919 + step * 13 + 3),
          );
    return training && cfg.dropout > 0
      ? programSource('output layer', () => tf.dropout(h, cfg.dropout, undefined, seed * 7919 + step * 13 + 2) as tf.Tensor3D)
      : h;
  }

  /** One direction of the BiLSTM's states [B, T, hidden] from per-token inputs, at inference. */
  directionStates(x: tf.Tensor3D, mask: tf.Tensor2D, reverse: boolean): tf.Tensor3D {
    if (this.cfg.encoder !== 'bilstm') throw new Error('direction states need the BiLSTM encoder');
    return bilstmDirection(this.params, x, mask, this.cfg.hidden, this.seed + 11, reverse);
  }

  /**
   * BiLSTM states at one token put in place of each region [start, end) of the batch's sentences,
   * without re-encoding each edited sentence (see bilstmInsertedStates). `x`: the batch's inputs,
   * where the caller has them already.
   */
  insertedStates(
    b: BatchTensors,
    token: BatchTensors,
    regions: readonly (readonly [number, number, number])[],
    training = false,
    step = 0,
    x = this.inputs(b, training, step),
  ): tf.Tensor2D {
    const { cfg } = this;
    if (cfg.encoder !== 'bilstm') throw new Error('inserted-token states need the BiLSTM encoder');
    const tx = tf.reshape(this.inputs(token, training, step + 7_777), [1, -1]) as tf.Tensor2D;
    const h = bilstmInsertedStates(this.params, x, b.mask, cfg.hidden, this.seed + 11, tx, regions);
    return training && cfg.dropout > 0 ? (tf.dropout(h, cfg.dropout, undefined, this.seed * 7919 + step * 13 + 2) as tf.Tensor2D) : h;
  }

  /** Per-token inputs [B, T, D]: word vector, casing, trainable out-of-GloVe vector, character CNN, dictionary matches. */
  inputs(b: BatchTensors, training: boolean, step: number): tf.Tensor3D {
    const { cfg, dims, params, seed } = this;
    const [B, T] = b.mask.shape;
    let words: tf.Tensor = b.words;
    if ((b.oovSelect && b.oovOneHot) || (b.oovIds && b.oovPlace)) {
      const table = param(params, 'oov/emb', () => tf.randomUniform([dims.oov, dims.word - 8], -0.1, 0.1, 'float32', seed + 3));
      // Gathers where they give the products' bits (a row picked, its gradient rows summed in order), else one-hot products.
      const placed = tf.reshape(
        b.oovIds && b.oovPlace
          ? tf.gather(tf.concat([tf.zeros([1, dims.word - 8]), tf.gather(table, b.oovIds)], 0), b.oovPlace)
          : matMulFast(b.oovSelect!, matMulFast(b.oovOneHot!, table as unknown as tf.Tensor2D)),
        [B, T, dims.word - 8],
      );
      words = tf.add(
        words,
        tf.pad(placed, [
          [0, 0],
          [0, 0],
          [0, 8],
        ]),
      );
    }
    const chars = tf.reshape(charCnn(params, b.chars, dims.chars, cfg.charDim, cfg.charFilters, seed + 5), [B, T, cfg.charFilters]);
    const x = tf.concat(b.lex ? [words, chars, b.lex] : [words, chars], 2) as tf.Tensor3D;
    const drop = (t: tf.Tensor3D, k: number) =>
      training && cfg.dropout > 0 ? (tf.dropout(t, cfg.dropout, undefined, seed * 7919 + step * 13 + k) as tf.Tensor3D) : t;
    return drop(x, 1);
  }

  /** The CRF's parameters as arrays, read once per decoding pass (reads are asynchronous on WebGPU). */
  async crfArrays(): Promise<CrfArrays | null> {
    if (this.cfg.head !== 'crf') return null;
    const p = this.crf();
    const [transitions, start, end] = await Promise.all([p.transitions.data(), p.start.data(), p.end.data()]);
    return { transitions: transitions as Float32Array, start: start as Float32Array, end: end as Float32Array };
  }

  /** Best tag paths under the tagger's shifts (decodeScores). */
  decode(emissions: Float32Array, lengths: readonly number[], T: number, crf: CrfArrays | null): { paths: number[][]; scores: number[] } {
    return decodeScores(this, emissions, lengths, T, crf);
  }

  /** A copy of every weight. Asynchronous: WebGPU cannot read a buffer synchronously (dataSync
   * there silently returned zeros in a worker). */
  async getWeights(): Promise<Weights> {
    const entries = await Promise.all([...this.params].map(async ([k, v]) => [k, { shape: v.shape, data: new Float32Array(await v.data()) }] as const));
    return Object.fromEntries(entries);
  }

  setWeights(w: Weights): void {
    for (const [k, v] of this.params) {
      const src = w[k];
      if (!src) throw new Error(`checkpoint has no weights for ${k}`);
      tf.tidy(() => v.assign(tf.tensor(src.data, src.shape)));
    }
  }

  /**
   * Starts from a pre-trained encoder (src/model/pretrain.ts): every weight it has under a name
   * and shape this model shares; the rest keep their fresh values. Returns how many were taken.
   */
  loadEncoder(w: Weights): number {
    let n = 0;
    for (const [k, v] of this.params) {
      const src = w[k];
      if (!src || src.shape.length !== v.shape.length || src.shape.some((d, i) => d !== v.shape[i])) continue;
      tf.tidy(() => v.assign(tf.tensor(src.data, src.shape)));
      n++;
    }
    return n;
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
  }
}

/**
 * Best tag paths from emission scores: Viterbi under the CRF, the per-token argmax of the softmax
 * head, or the span head's decoding; under the model's O shift and type shifts. What a Tagger and
 * a TaggerEnsemble decode with.
 */
export function decodeScores(
  model: Pick<Tagger, 'cfg' | 'dims' | 'oShift' | 'tagShifts'>,
  emissions: Float32Array,
  lengths: readonly number[],
  T: number,
  crf: CrfArrays | null,
): { paths: number[][]; scores: number[] } {
  const K = model.dims.tags;
  if (model.cfg.head === 'span') return decodeSpans(emissions, lengths, T, model.cfg.spanMaxLength, spanClasses(model.dims));
  if (model.oShift !== 0 || model.tagShifts) {
    // The O tag's score lowered by the shift chosen on dev (chooseOShift): more entities when
    // positive; each type's tags raised by its own shift (chooseTypeShifts).
    emissions = emissions.slice();
    const ts = model.tagShifts;
    for (let p = 0; p < emissions.length; p += K) {
      emissions[p] -= model.oShift;
      if (ts) for (let k = 1; k < K; k++) emissions[p + k] += ts[k];
    }
  }
  if (crf) return viterbi(emissions, lengths, T, K, crf.transitions, crf.start, crf.end);
  const paths = lengths.map((n, b) =>
    Array.from({ length: n }, (_, t) => {
      let best = 0;
      for (let k = 1; k < K; k++) if (emissions[(b * T + t) * K + k] > emissions[(b * T + t) * K + best]) best = k;
      return best;
    }),
  );
  return { paths, scores: paths.map(() => 0) };
}

/** What decoding reads of a model: a Tagger, or several decoding as one (TaggerEnsemble). */
export type Decoding = Pick<Tagger, 'cfg' | 'dims' | 'oShift' | 'tagShifts' | 'emissions' | 'crfArrays' | 'decode'>;

/**
 * Taggers of one shape and featurizer decoding as one model: the mean of their emission scores
 * and of their CRF parameters (a product of experts: the members' log-potentials averaged), under
 * shifts of its own. Prediction only; the members stay the caller's to dispose.
 */
export class TaggerEnsemble implements Decoding {
  oShift = 0;
  tagShifts: Float32Array | null = null;

  constructor(readonly members: readonly Tagger[]) {
    if (!members.length) throw new Error('an ensemble needs at least one tagger');
    const { head, spanMaxLength } = members[0].cfg;
    const key = (t: Tagger) => JSON.stringify([t.dims, t.cfg.head, t.cfg.spanMaxLength]);
    if (head === 'span') throw new Error('an ensemble decodes token heads (CRF, softmax, two-part), not the span head');
    if (members.some((t) => key(t) !== key(members[0])))
      throw new Error(`an ensemble's taggers must share their tags, features and head (${head}, ${spanMaxLength})`);
  }

  get cfg(): TaggerConfig {
    return this.members[0].cfg;
  }

  get dims(): TaggerDims {
    return this.members[0].dims;
  }

  emissions(b: BatchTensors, training: boolean, step: number): tf.Tensor3D {
    return tf.tidy(() => tf.div(tf.addN(this.members.map((t) => t.emissions(b, training, step))), this.members.length) as tf.Tensor3D);
  }

  async crfArrays(): Promise<CrfArrays | null> {
    const all = await Promise.all(this.members.map((t) => t.crfArrays()));
    if (!all[0]) return null;
    const mean = (pick: (c: CrfArrays) => Float32Array) => {
      const out = new Float32Array(pick(all[0]!).length);
      for (const c of all) pick(c!).forEach((v, i) => (out[i] += v / all.length));
      return out;
    };
    return { transitions: mean((c) => c.transitions), start: mean((c) => c.start), end: mean((c) => c.end) };
  }

  decode(emissions: Float32Array, lengths: readonly number[], T: number, crf: CrfArrays | null): { paths: number[][]; scores: number[] } {
    return decodeScores(this, emissions, lengths, T, crf);
  }
}
