/**
 * The span classifier head: every span of up to L tokens, represented as
 * [h_i; h_j; h_i − h_j; h_i ⊙ h_j] (i the first token, j the last) and classified by an MLP into
 * "no entity" (class 0) or one of the types (class c + 1 for type c). Used by negative sampling
 * (Li et al. 2021), which needs a loss per span.
 *
 * The spans are laid out by width: for width w = 1..L, the starts 0..T−w. Building their
 * representations takes two slices of h per width and no gather (whose gradient has no WASM
 * kernel), so it runs on every backend at the speed of a few dense ops.
 */
import { dense } from './ops';
import { param, type Params } from './encoders';
import * as tf from './tf';

export interface SpanSlots {
  /** Number of span slots per sequence. */
  S: number;
  /** Per slot: first token and one past the last. */
  starts: Int32Array;
  ends: Int32Array;
}

const slotCache = new Map<string, SpanSlots>();

/** The span slots of a padded length T with spans up to L tokens. */
export function spanSlots(T: number, L: number): SpanSlots {
  const key = `${T}/${L}`;
  let slots = slotCache.get(key);
  if (slots) return slots;
  const maxW = Math.min(L, T);
  let S = 0;
  for (let w = 1; w <= maxW; w++) S += T - w + 1;
  const starts = new Int32Array(S);
  const ends = new Int32Array(S);
  let s = 0;
  for (let w = 1; w <= maxW; w++) {
    for (let i = 0; i + w <= T; i++, s++) {
      starts[s] = i;
      ends[s] = i + w;
    }
  }
  slotCache.set(key, (slots = { S, starts, ends }));
  return slots;
}

/** Span representations [B, S, 4H] from token states h [B, T, H], in slot order. */
export function spanFeatures(h: tf.Tensor3D, L: number): tf.Tensor3D {
  const [B, T, H] = h.shape;
  const parts: tf.Tensor3D[] = [];
  for (let w = 1; w <= Math.min(L, T); w++) {
    const first = tf.slice(h, [0, 0, 0], [B, T - w + 1, H]);
    const last = tf.slice(h, [0, w - 1, 0], [B, T - w + 1, H]);
    parts.push(tf.concat([first, last, tf.sub(first, last), tf.mul(first, last)], 2) as tf.Tensor3D);
  }
  return (parts.length === 1 ? parts[0] : tf.concat(parts, 1)) as tf.Tensor3D;
}

/** The MLP's weights (Glorot-uniform, zero biases), made at first use. */
function spanParams(
  params: Params,
  H: number,
  hidden: number,
  classes: number,
  seed: number,
): { w1: tf.Tensor2D; b1: tf.Tensor1D; w2: tf.Tensor2D; b2: tf.Tensor1D } {
  const glorot = (fanIn: number, fanOut: number, s: number) => () =>
    tf.randomUniform([fanIn, fanOut], -Math.sqrt(6 / (fanIn + fanOut)), Math.sqrt(6 / (fanIn + fanOut)), 'float32', s);
  return {
    w1: param(params, 'span/w1', glorot(4 * H, hidden, seed)) as unknown as tf.Tensor2D,
    b1: param(params, 'span/b1', () => tf.zeros([hidden])) as unknown as tf.Tensor1D,
    w2: param(params, 'span/w2', glorot(hidden, classes, seed + 1)) as unknown as tf.Tensor2D,
    b2: param(params, 'span/b2', () => tf.zeros([classes])) as unknown as tf.Tensor1D,
  };
}

/**
 * Span logits [B, S, C] through a one-hidden-layer MLP (ReLU) on the span representations. The
 * first layer is not applied to the [B, S, 4H] representations: with W1 = [Wa; Wb; Wc; Wd] by
 * rows, [h_i; h_j; h_i − h_j; h_i ⊙ h_j]·W1 = h_i·(Wa + Wc) + h_j·(Wb − Wc) + (h_i ⊙ h_j)·Wd, and
 * the first two terms are per token, so only the product term is a product per span (a quarter
 * of the work; about ten spans per token).
 */
export function spanLogits(params: Params, h: tf.Tensor3D, L: number, hidden: number, classes: number, seed: number): tf.Tensor3D {
  const [B, T, H] = h.shape;
  const { w1, b1, w2, b2 } = spanParams(params, H, hidden, classes, seed);
  const [wa, wb, wc, wd] = tf.split(w1, 4, 0) as tf.Tensor2D[];
  const first = dense(h, tf.add(wa, wc)) as tf.Tensor3D;
  const last = dense(h, tf.sub(wb, wc)) as tf.Tensor3D;
  const pairs: tf.Tensor3D[] = [];
  const products: tf.Tensor3D[] = [];
  for (let w = 1; w <= Math.min(L, T); w++) {
    const n = T - w + 1;
    pairs.push(tf.add(tf.slice(first, [0, 0, 0], [B, n, hidden]), tf.slice(last, [0, w - 1, 0], [B, n, hidden])) as tf.Tensor3D);
    products.push(tf.mul(tf.slice(h, [0, 0, 0], [B, n, H]), tf.slice(h, [0, w - 1, 0], [B, n, H])) as tf.Tensor3D);
  }
  const cat = (xs: tf.Tensor3D[]) => (xs.length === 1 ? xs[0] : (tf.concat(xs, 1) as tf.Tensor3D));
  const pre = tf.add(cat(pairs), dense(cat(products), wd, b1));
  return dense(tf.relu(pre), w2, b2) as tf.Tensor3D;
}

/**
 * The logits [N, C] of chosen slots only (flat b·S + s, S of spanSlots(T, L)), as spanLogits has
 * them: a loss on a few spans a sentence (negative sampling's labeled and sampled ones) runs the
 * MLP on those, not on every span. The two per-token terms and h_i, h_j are gathered.
 */
export function spanLogitsAt(params: Params, h: tf.Tensor3D, L: number, slots: Int32Array, hidden: number, classes: number, seed: number): tf.Tensor2D {
  const [B, T, H] = h.shape;
  const { S, starts, ends } = spanSlots(T, L);
  const first = new Int32Array(slots.length);
  const last = new Int32Array(slots.length);
  slots.forEach((k, n) => {
    const b = Math.floor(k / S);
    if (b >= B) throw new Error(`span slot ${k} is outside the batch of ${B} × ${S} slots`);
    first[n] = b * T + starts[k % S];
    last[n] = b * T + ends[k % S] - 1;
  });
  const { w1, b1, w2, b2 } = spanParams(params, H, hidden, classes, seed);
  const [wa, wb, wc, wd] = tf.split(w1, 4, 0) as tf.Tensor2D[];
  const flat = tf.reshape(h, [B * T, H]) as tf.Tensor2D;
  const [i, j] = [tf.tensor1d(first, 'int32'), tf.tensor1d(last, 'int32')];
  const hi = tf.gather(flat, i);
  const hj = tf.gather(flat, j);
  const pre = tf.add(tf.addN([tf.matMul(hi, tf.add(wa, wc)), tf.matMul(hj, tf.sub(wb, wc)), tf.matMul(tf.mul(hi, hj), wd)]), b1);
  return tf.add(tf.matMul(tf.relu(pre), w2), b2) as tf.Tensor2D;
}

/**
 * Gold span classes per slot from BIO tag ids (O = 0, B-c = 2c + 1, I-c = 2c + 2), and which
 * slots are real (inside the sequence). Entities longer than L have no slot; they are counted.
 */
export function spanTargets(tags: Int32Array, lengths: readonly number[], T: number, L: number): { labels: Int32Array; valid: Float32Array; tooLong: number } {
  const { S, starts, ends } = spanSlots(T, L);
  const B = lengths.length;
  const labels = new Int32Array(B * S);
  const valid = new Float32Array(B * S);
  let tooLong = 0;
  const slotOf = new Map<number, number>();
  for (let s = 0; s < S; s++) slotOf.set(starts[s] * (T + 1) + ends[s], s);
  lengths.forEach((n, b) => {
    for (let s = 0; s < S; s++) valid[b * S + s] = ends[s] <= n ? 1 : 0;
    for (const e of bioEntities(tags.subarray(b * T, b * T + n))) {
      const s = slotOf.get(e.start * (T + 1) + e.end);
      if (s === undefined) tooLong++;
      else labels[b * S + s] = e.type + 1;
    }
  });
  return { labels, valid, tooLong };
}

/** Entities of a BIO tag-id sequence (conlleval chunking: a stray I- starts an entity). */
export function bioEntities(tags: ArrayLike<number>): { start: number; end: number; type: number }[] {
  const out: { start: number; end: number; type: number }[] = [];
  let cur: { start: number; end: number; type: number } | null = null;
  for (let t = 0; t < tags.length; t++) {
    const tag = tags[t];
    const type = tag > 0 ? (tag - 1) >> 1 : -1;
    const isB = tag > 0 && (tag - 1) % 2 === 0;
    if (cur && (tag <= 0 || isB || type !== cur.type)) {
      out.push(cur);
      cur = null;
    }
    if (tag > 0 && !cur) cur = { start: t, end: t + 1, type };
    else if (cur) cur.end = t + 1;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Decoding (Li et al. 2021): the spans whose best class is an entity type, kept greedily by
 * score (the log-probability of that class) as long as they overlap no kept span. Returns BIO
 * tag-id paths and, per sequence, the sum of the kept spans' scores.
 */
export function decodeSpans(
  logits: Float32Array,
  lengths: readonly number[],
  T: number,
  L: number,
  C: number,
): { paths: number[][]; scores: number[]; spans: { start: number; end: number; type: number; score: number }[][] } {
  const { S, starts, ends } = spanSlots(T, L);
  const paths: number[][] = [];
  const scores: number[] = [];
  const all: { start: number; end: number; type: number; score: number }[][] = [];
  lengths.forEach((n, b) => {
    const cands: { start: number; end: number; type: number; score: number }[] = [];
    for (let s = 0; s < S; s++) {
      if (ends[s] > n) continue;
      const base = (b * S + s) * C;
      let best = 0;
      let m = logits[base];
      for (let c = 1; c < C; c++) {
        if (logits[base + c] > logits[base + best]) best = c;
        m = Math.max(m, logits[base + c]);
      }
      if (best === 0) continue;
      let z = 0;
      for (let c = 0; c < C; c++) z += Math.exp(logits[base + c] - m);
      cands.push({ start: starts[s], end: ends[s], type: best - 1, score: logits[base + best] - m - Math.log(z) });
    }
    cands.sort((x, y) => y.score - x.score || x.start - y.start);
    const taken = new Uint8Array(n);
    const kept: typeof cands = [];
    for (const c of cands) {
      let free = true;
      for (let t = c.start; t < c.end && free; t++) free = !taken[t];
      if (!free) continue;
      taken.fill(1, c.start, c.end);
      kept.push(c);
    }
    kept.sort((x, y) => x.start - y.start);
    const path = new Array<number>(n).fill(0);
    for (const k of kept) for (let t = k.start; t < k.end; t++) path[t] = t === k.start ? 2 * k.type + 1 : 2 * k.type + 2;
    paths.push(path);
    scores.push(kept.reduce((a, k) => a + k.score, 0));
    all.push(kept);
  });
  return { paths, scores, spans: all };
}

/** Mean cross-entropy over the slots with weight > 0, each slot weighted. */
export function spanCrossEntropy(logits: tf.Tensor3D, labels: Int32Array, weights: Float32Array): tf.Scalar {
  const [B, S, C] = logits.shape;
  const onehot = new Float32Array(B * S * C);
  labels.forEach((l, k) => (onehot[k * C + l] = 1));
  const ce = tf.neg(tf.sum(tf.mul(tf.logSoftmax(logits), tf.tensor3d(onehot, [B, S, C])), 2));
  const w = tf.tensor2d(weights, [B, S]);
  return tf.div(tf.sum(tf.mul(ce, w)), tf.maximum(tf.sum(w), 1)) as tf.Scalar;
}
