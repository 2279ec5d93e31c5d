/**
 * Vectors for words GloVe lacks, from their spelling: a bag of character n-grams trained to
 * reproduce GloVe's own vectors (Zhao, Mudgal and Liang 2018, "Generalizing Word Embeddings
 * using Bag of Subwords"; the task Pinter et al. 2017 set with a character BiLSTM). A word's
 * vector is the mean of the vectors of its n-grams (3 to 6 characters of `<word>`, hashed into
 * a fixed table), so "bupivacaine" lands near the words that end in "-caine".
 *
 * Built once from the GloVe asset (deterministic: same asset, same table), stored beside it as
 * int8 rows with a scale each, like GloVe.
 */
import { mulberry32 } from '../core/random';
import type { GloveAsset } from './embeddings';

export interface SpellingModel {
  dims: number;
  buckets: number;
  minN: number;
  maxN: number;
  /** [buckets, dims] float32, row-major. */
  table: Float32Array;
}

/** The spelling table's sizes and how it was built (spelling.json, written last). */
export interface SpellingBuild {
  dims: number;
  buckets: number;
  minN: number;
  maxN: number;
  words: number;
  epochs: number;
  heldOutCosine: number;
  seconds: number;
}

export interface SpellingOptions {
  /** GloVe's most frequent words to learn from (its tail is noisy). */
  words: number;
  buckets: number;
  epochs: number;
  lr: number;
  seed: number;
}

export const SPELLING_DEFAULTS: SpellingOptions = { words: 200_000, buckets: 1 << 17, epochs: 5, lr: 1, seed: 1 };

const MIN_N = 3;
const MAX_N = 6;

/** FNV-1a over the UTF-16 code units of `s[start, end)`. */
function hash(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The table rows of a word's n-grams (lower-cased, between `<` and `>`), repeats kept. */
export function ngramRows(word: string, buckets: number, minN = MIN_N, maxN = MAX_N): number[] {
  const s = `<${word.toLowerCase()}>`;
  const rows: number[] = [];
  for (let n = minN; n <= maxN; n++) for (let i = 0; i + n <= s.length; i++) rows.push(hash(s, i, i + n) % buckets);
  // A one-letter word has only `<x>`: its single trigram.
  return rows;
}

/** Writes a word's vector (the mean of its n-grams' rows) into `out`. */
export function spellVector(m: SpellingModel, word: string, out: Float32Array, offset = 0): void {
  const rows = ngramRows(word, m.buckets, m.minN, m.maxN);
  const d = m.dims;
  out.fill(0, offset, offset + d);
  for (const r of rows) for (let c = 0; c < d; c++) out[offset + c] += m.table[r * d + c];
  const inv = 1 / Math.max(1, rows.length);
  for (let c = 0; c < d; c++) out[offset + c] *= inv;
}

/** GloVe's first `n` words and their dequantized vectors. */
function gloveHead(asset: GloveAsset, n: number): { words: string[]; vectors: Float32Array } {
  const words = asset.vocab.split('\n', n);
  const d = asset.dims;
  const vectors = new Float32Array(words.length * d);
  for (let i = 0; i < words.length; i++) {
    const s = asset.scales[i];
    for (let c = 0; c < d; c++) vectors[i * d + c] = asset.vectors[i * d + c] * s;
  }
  return { words, vectors };
}

/**
 * Trains the n-gram table by SGD on squared error between a word's spelled vector and its GloVe
 * vector, words in a seeded random order each epoch, the rate falling linearly to zero.
 * `heldOut` words (every 50th of the head) are left out and scored, so the build reports how
 * close spelled vectors come to GloVe's on words the table never saw.
 */
export function trainSpelling(
  asset: GloveAsset,
  o: SpellingOptions = SPELLING_DEFAULTS,
  log: (s: string) => void = () => {},
): { model: SpellingModel; heldOutCosine: number; seconds: number } {
  const t0 = performance.now();
  const d = asset.dims;
  const { words, vectors } = gloveHead(asset, o.words);
  const rows = words.map((w) => Int32Array.from(ngramRows(w, o.buckets)));
  const rand = mulberry32(o.seed);
  const table = new Float32Array(o.buckets * d);
  for (let i = 0; i < table.length; i++) table[i] = (rand() - 0.5) * 0.02;
  const train: number[] = [];
  const held: number[] = [];
  words.forEach((_, i) => (i % 50 === 49 ? held : train).push(i));
  const guess = new Float32Array(d);
  const total = o.epochs * train.length;
  let step = 0;
  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    for (let i = train.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [train[i], train[j]] = [train[j], train[i]];
    }
    let loss = 0;
    for (const w of train) {
      const r = rows[w];
      const lr = o.lr * (1 - step++ / total);
      guess.fill(0);
      for (const g of r) for (let c = 0; c < d; c++) guess[c] += table[g * d + c];
      const inv = 1 / r.length;
      for (let c = 0; c < d; c++) {
        guess[c] = guess[c] * inv - vectors[w * d + c];
        loss += guess[c] * guess[c];
      }
      // d loss / d row = 2 (guess - target) / |rows|; the 2 folds into the rate.
      const scale = lr * inv;
      for (const g of r) for (let c = 0; c < d; c++) table[g * d + c] -= scale * guess[c];
    }
    log(`spelling vectors: epoch ${epoch} of ${o.epochs}, mean squared error ${(loss / train.length).toFixed(3)}`);
  }
  const model: SpellingModel = { dims: d, buckets: o.buckets, minN: MIN_N, maxN: MAX_N, table };
  let cos = 0;
  for (const w of held) {
    spellVector(model, words[w], guess);
    cos += cosine(guess, vectors.subarray(w * d, w * d + d));
  }
  return { model, heldOutCosine: cos / held.length, seconds: (performance.now() - t0) / 1000 };
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / Math.sqrt(aa * bb || 1);
}

/** int8 rows with a float scale each, GloVe's storage. */
export function quantizeSpelling(m: SpellingModel): { rows: Int8Array; scales: Float32Array } {
  const d = m.dims;
  const rows = new Int8Array(m.table.length);
  const scales = new Float32Array(m.buckets);
  for (let r = 0; r < m.buckets; r++) {
    let max = 0;
    for (let c = 0; c < d; c++) max = Math.max(max, Math.abs(m.table[r * d + c]));
    const s = max / 127 || 1;
    scales[r] = s;
    for (let c = 0; c < d; c++) rows[r * d + c] = Math.round(m.table[r * d + c] / s);
  }
  return { rows, scales };
}

export function dequantizeSpelling(rows: Int8Array, scales: Float32Array, meta: { dims: number; buckets: number; minN: number; maxN: number }): SpellingModel {
  const d = meta.dims;
  const table = new Float32Array(rows.length);
  for (let r = 0; r < meta.buckets; r++) for (let c = 0; c < d; c++) table[r * d + c] = rows[r * d + c] * scales[r];
  return { ...meta, table };
}
