import { readFileSync } from 'node:fs';
import type { GloveAsset } from './embeddings';

/** The GloVe asset from public/glove (made by scripts/build-glove.ts), read from disk in Node. */
export function readGloveAsset(dir = new URL('../../public/glove/', import.meta.url)): GloveAsset {
  try {
    const meta = JSON.parse(readFileSync(new URL('meta.json', dir), 'utf8')) as { dims: number };
    const scales = readFileSync(new URL('scales.f32', dir));
    return {
      vocab: readFileSync(new URL('vocab.txt', dir), 'utf8'),
      vectors: new Int8Array(readFileSync(new URL('vectors.i8', dir)).buffer.slice(0)),
      scales: new Float32Array(scales.buffer.slice(scales.byteOffset, scales.byteOffset + scales.byteLength)),
      dims: meta.dims,
    };
  } catch (e) {
    throw new Error(`GloVe vectors are missing (${(e as Error).message}): run \`npm run build\` or \`npx tsx scripts/build-glove.ts\` first`);
  }
}
