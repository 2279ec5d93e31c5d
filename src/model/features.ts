import { lexiconDims, type LexiconMatch } from '../core/lexicon';
import type { Embeddings } from './embeddings';
import { gloveRow, lookupForm } from './embeddings';
import * as tf from './tf';

/** Casing classes (Reimers and Gurevych 2017): a one-hot feature beside the lower-cased vector. */
export const CASING = ['numeric', 'mainly_numeric', 'all_lower', 'all_upper', 'initial_upper', 'contains_digit', 'other'] as const;

export function casing(w: string): number {
  let digits = 0;
  for (const ch of w) if (ch >= '0' && ch <= '9') digits++;
  if (/^[0-9]+$/.test(w)) return 0;
  if (digits / w.length > 0.5) return 1;
  if (/^\p{Ll}+$/u.test(w)) return 2;
  if (/^\p{Lu}+$/u.test(w)) return 3;
  if (/^\p{Lu}/u.test(w)) return 4;
  if (digits > 0) return 5;
  return 6;
}

export const MAX_CHARS = 16;

/**
 * Everything that turns tokens into model inputs, built from the training set: the trimmed
 * GloVe table, the character vocabulary (0 pad, 1 unknown), and the words GloVe lacks that
 * occur at least twice in training, which get trainable vectors (0 is "other unknown word").
 */
export interface Featurizer {
  glove: Embeddings;
  chars: Map<string, number>;
  oov: Map<string, number>;
  tags: string[];
  /**
   * The dictionary's types when the model reads dictionary matches (src/core/lexicon.ts); the
   * sentences then carry their matches. Absent: no dictionary features.
   */
  lexicon?: string[];
  /**
   * Words GloVe lacks read their vector spelled from characters (the table's spelled rows) in
   * place of zeros; they keep the absent-from-GloVe flag and their trainable vector.
   */
  spelling?: boolean;
}

export function buildFeaturizer(glove: Embeddings, trainSentences: readonly (readonly string[])[], tags: string[], o: { spelling?: boolean } = {}): Featurizer {
  const chars = new Map<string, number>();
  const oovCounts = new Map<string, number>();
  for (const s of trainSentences) {
    for (const w of s) {
      for (const ch of w) if (!chars.has(ch)) chars.set(ch, chars.size + 2);
      const f = lookupForm(w);
      if (gloveRow(glove, f, false) === undefined) oovCounts.set(f, (oovCounts.get(f) ?? 0) + 1);
    }
  }
  const oov = new Map<string, number>();
  for (const [w, c] of oovCounts) if (c >= 2) oov.set(w, oov.size + 1);
  return { glove, chars, oov, tags, ...(o.spelling ? { spelling: true } : {}) };
}

export function featureDims(f: Featurizer) {
  // At least two rows: WebGPU's oneHot refuses a depth of 1.
  return {
    word: f.glove.dims + CASING.length + 1,
    chars: f.chars.size + 2,
    oov: Math.max(2, f.oov.size + 1),
    tags: f.tags.length,
    lex: f.lexicon ? lexiconDims(f.lexicon) : 0,
  };
}

/** One mini-batch as arrays; tensors are made from it inside the training step's tidy scope. */
export interface BatchArrays {
  B: number;
  T: number;
  lengths: number[];
  /** [B, T, word dims]: GloVe vector (zeros when absent), casing one-hot, an absent-from-GloVe flag. */
  words: Float32Array;
  /** [B * T * MAX_CHARS] character ids. */
  chars: Int32Array;
  /** Positions (b * T + t) of tokens with a trainable out-of-GloVe vector, and their rows. */
  oovPos: number[];
  oovIds: number[];
  mask: Float32Array;
  /** Gold tag ids, -1 at padding; methods may add their own per-token arrays. */
  tags: Int32Array;
  /** Per sentence: 1 when its tags come from weak labels (NEEDLE's and RoSTER's weak set). */
  weak: Float32Array;
  /** Per sentence: the confidence of its labels (NEEDLE's noise-aware loss), 1 when unset. */
  confidence: Float32Array;
  /** Per sentence: its index in the training list (methods keep per-sentence state by it). */
  ids: Int32Array;
  /** [B, T, K] target distributions (distillation, self-training), or null when no sentence has them. */
  soft: Float32Array | null;
  /** [B, T] tag ids of entities hidden by synthetic masking (known only there), or null. */
  hiddenTags: Int32Array | null;
  /** [B, T] 1 for tokens a method took out of the loss (PU learning's removed O tokens), or null. */
  exclude: Float32Array | null;
  /** [B, T, lexicon dims] dictionary features, or null when the featurizer has no lexicon. */
  lex: Float32Array | null;
}

export interface BatchSentence {
  words: readonly string[];
  tags?: readonly number[];
  weak?: boolean;
  confidence?: number;
  /** [length, K] target distributions per token (RoSTER's ensemble and self-training targets). */
  soft?: Float32Array;
  /** Tag ids of the entities synthetic masking turned into O (for missampling diagnostics). */
  hidden?: readonly number[];
  /** Token positions taken out of the loss (PU learning). */
  exclude?: readonly number[];
  /** Dictionary matches in the sentence (when the featurizer has a lexicon). */
  lex?: readonly LexiconMatch[];
}

/**
 * Training-time dictionary feature dropout: each match is left out with probability `rate`, so
 * that the model also learns from the context of dictionary entries (and of words no dictionary has).
 */
export interface LexiconDropout {
  rate: number;
  rand: () => number;
}

/** Training-time word dropout (model.wordDropout): each token reads as an unknown word with probability `rate`; drawn as the dictionary's. */
export type WordDropout = LexiconDropout;

export function makeBatch(
  f: Featurizer,
  sentences: readonly BatchSentence[],
  ids?: readonly number[],
  lexDrop?: LexiconDropout,
  wordDrop?: WordDropout,
): BatchArrays {
  const B = sentences.length;
  const T = Math.max(...sentences.map((s) => s.words.length));
  const D = f.glove.dims;
  const W = D + CASING.length + 1;
  const words = new Float32Array(B * T * W);
  const chars = new Int32Array(B * T * MAX_CHARS);
  const mask = new Float32Array(B * T);
  const tags = new Int32Array(B * T).fill(-1);
  const oovPos: number[] = [];
  const oovIds: number[] = [];
  sentences.forEach((s, b) => {
    s.words.forEach((w, t) => {
      const p = b * T + t;
      mask[p] = 1;
      if (s.tags) tags[p] = s.tags[t];
      const form = lookupForm(w);
      // A dropped word reads as one the model does not know: no vector, the absent flag, the
      // shared unknown-word row (0); its casing and characters stay.
      const dropped = wordDrop !== undefined && wordDrop.rate > 0 && wordDrop.rand() < wordDrop.rate;
      const row = dropped ? undefined : gloveRow(f.glove, form, f.spelling === true);
      if (row !== undefined) words.set(f.glove.vectors.subarray(row * D, row * D + D), p * W);
      if (row === undefined || (f.glove.spelledFrom !== undefined && row >= f.glove.spelledFrom)) {
        words[p * W + W - 1] = 1;
        const id = dropped ? 0 : (f.oov.get(form) ?? 0);
        oovPos.push(p);
        oovIds.push(id);
      }
      words[p * W + D + casing(w)] = 1;
      let c = 0;
      for (const ch of w) {
        if (c >= MAX_CHARS) break;
        chars[p * MAX_CHARS + c++] = f.chars.get(ch) ?? 1;
      }
    });
  });
  return {
    B,
    T,
    lengths: sentences.map((s) => s.words.length),
    words,
    chars,
    oovPos,
    oovIds,
    mask,
    tags,
    weak: Float32Array.from(sentences, (s) => (s.weak ? 1 : 0)),
    confidence: Float32Array.from(sentences, (s) => s.confidence ?? 1),
    ids: Int32Array.from(ids ?? sentences.map((_, k) => k)),
    soft: softTargets(sentences, B, T, f.tags.length),
    hiddenTags: sentences.some((s) => s.hidden) ? hiddenTagIds(sentences, T) : null,
    exclude: sentences.some((s) => s.exclude?.length) ? excluded(sentences, T) : null,
    lex: f.lexicon ? lexiconFeatures(sentences, T, f.lexicon.length, lexDrop) : null,
  };
}

/** Per token, for each type: the match's value (1, or its entry's reliability) at the first token of a match of that type, and at its later tokens. */
function lexiconFeatures(sentences: readonly BatchSentence[], T: number, types: number, drop?: LexiconDropout): Float32Array {
  const L = 2 * types;
  const out = new Float32Array(sentences.length * T * L);
  sentences.forEach((s, b) => {
    for (const m of s.lex ?? []) {
      if (drop && drop.rate > 0 && drop.rand() < drop.rate) continue;
      const v = m.value ?? 1;
      for (let t = m.start; t < m.end; t++) {
        const at = (b * T + t) * L + 2 * m.type + (t === m.start ? 0 : 1);
        out[at] = Math.max(out[at], v);
      }
    }
  });
  return out;
}

function excluded(sentences: readonly BatchSentence[], T: number): Float32Array {
  const out = new Float32Array(sentences.length * T);
  sentences.forEach((s, b) => s.exclude?.forEach((t) => (out[b * T + t] = 1)));
  return out;
}

function hiddenTagIds(sentences: readonly BatchSentence[], T: number): Int32Array {
  const out = new Int32Array(sentences.length * T);
  sentences.forEach((s, b) => s.hidden?.forEach((t, i) => (out[b * T + i] = t)));
  return out;
}

function softTargets(sentences: readonly BatchSentence[], B: number, T: number, K: number): Float32Array | null {
  if (!sentences.some((s) => s.soft)) return null;
  const out = new Float32Array(B * T * K);
  sentences.forEach((s, b) => {
    if (s.soft) out.set(s.soft.subarray(0, s.words.length * K), b * T * K);
  });
  return out;
}

/** Gold tags as one-hot [B, T, K], zero rows at padding. */
export function tagsOneHot(batch: BatchArrays, K: number): tf.Tensor3D {
  const out = new Float32Array(batch.B * batch.T * K);
  batch.tags.forEach((t, p) => {
    if (t >= 0) out[p * K + t] = 1;
  });
  return tf.tensor3d(out, [batch.B, batch.T, K]);
}
