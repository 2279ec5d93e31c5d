/**
 * GloVe vectors as the studio stores them: a vocabulary and int8 rows with a float scale each
 * (scripts/build-glove.ts). A project keeps only the rows its corpus uses.
 */
export interface Embeddings {
  dims: number;
  index: Map<string, number>;
  /** Row-major float32, one row per word in `index`. */
  vectors: Float32Array;
}

export interface GloveAsset {
  vocab: string;
  vectors: Int8Array;
  scales: Float32Array;
  dims: number;
}

/** The rows of the words (lower-cased) that occur in `needed`, dequantized. */
export function trimGlove(asset: GloveAsset, needed: Iterable<string>): Embeddings {
  const want = new Set<string>();
  for (const w of needed) want.add(w.toLowerCase());
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
  const vectors = new Float32Array(rows.length * d);
  rows.forEach((r, j) => {
    const s = asset.scales[r];
    for (let c = 0; c < d; c++) vectors[j * d + c] = asset.vectors[r * d + c] * s;
  });
  return { dims: d, index, vectors };
}

/** GloVe's lookup form of a token: lower case, and digits as in the 6B vocabulary. */
export function lookupForm(w: string): string {
  return w.toLowerCase();
}
