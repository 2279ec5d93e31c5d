import { spellVector, type SpellingModel } from './spelling';

/**
 * GloVe vectors as the studio stores them: a vocabulary and int8 rows with a float scale each
 * (scripts/build-glove.ts). A project keeps only the rows its corpus uses.
 */
export interface Embeddings {
  dims: number;
  index: Map<string, number>;
  /** Row-major float32, one row per word in `index`. */
  vectors: Float32Array;
  /**
   * Rows from this one on are not GloVe's but spelled from characters (src/model/spelling.ts),
   * for words GloVe lacks; absent when there are none.
   */
  spelledFrom?: number;
}

export interface GloveAsset {
  vocab: string;
  vectors: Int8Array;
  scales: Float32Array;
  dims: number;
  /** The spelling table for words GloVe lacks, where the asset has one. */
  spelling?: SpellingModel;
}

/**
 * The rows of the words (in their lookup form) that occur in `needed`, dequantized; with a spelling model,
 * the words GloVe lacks follow as spelled rows (`spelledFrom` on).
 */
export function trimGlove(asset: GloveAsset, needed: Iterable<string>, spelling?: SpellingModel): Embeddings {
  const want = new Set<string>();
  for (const w of needed) want.add(lookupForm(w));
  const index = new Map<string, number>();
  const rows: number[] = [];
  let k = 0;
  let start = 0;
  for (let i = 0; start <= asset.vocab.length; i++) {
    let end = asset.vocab.indexOf('\n', start);
    if (end < 0) end = asset.vocab.length;
    const w = asset.vocab.slice(start, end);
    if (want.has(w) && !index.has(w)) {
      index.set(w, k++);
      rows.push(i);
    }
    start = end + 1;
  }
  const d = asset.dims;
  const absent = spelling ? [...want].filter((w) => !index.has(w)) : [];
  const vectors = new Float32Array((rows.length + absent.length) * d);
  rows.forEach((r, j) => {
    const s = asset.scales[r];
    for (let c = 0; c < d; c++) vectors[j * d + c] = asset.vectors[r * d + c] * s;
  });
  if (!spelling || !absent.length) return { dims: d, index, vectors };
  const spelledFrom = rows.length;
  absent.forEach((w, j) => {
    index.set(w, spelledFrom + j);
    spellVector(spelling, w, vectors, (spelledFrom + j) * d);
  });
  return { dims: d, index, vectors, spelledFrom };
}

/** The GloVe row of a word's lookup form, or undefined (a spelled row counts only when `spelled`). */
export function gloveRow(e: Embeddings, form: string, spelled: boolean): number | undefined {
  const row = e.index.get(form);
  return row !== undefined && (spelled || e.spelledFrom === undefined || row < e.spelledFrom) ? row : undefined;
}

/**
 * GloVe's lookup form of a token: lower case, and a hashtag read as its word ("#London" as
 * "london"): GloVe's 6B vocabulary has no hashtags, and tweets tag names that way. The token's
 * characters and casing still reach the model as they are.
 */
export function lookupForm(w: string): string {
  const lower = w.toLowerCase();
  return lower.length > 1 && lower[0] === '#' && HASHTAG_WORD.test(lower[1]) ? lower.slice(1) : lower;
}

const HASHTAG_WORD = /\p{L}/u;
