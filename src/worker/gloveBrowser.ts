import type { GloveAsset } from '../model/embeddings';
import { parseStarter, STARTER_PATH, type StarterAsset } from '../model/starter';
import { dequantizeSpelling, type SpellingBuild } from '../model/spelling';

/** The GloVe asset from the app's own origin (public/glove); the service worker caches it. */
export async function fetchGloveAsset(base: string): Promise<GloveAsset> {
  const get = async (f: string) => {
    const res = await fetch(`${base}glove/${f}`);
    if (!res.ok) throw new Error(`GloVe vectors: ${f} answered HTTP ${res.status} (build the app with \`npm run build\`, which makes public/glove)`);
    return res;
  };
  const [meta, vocab, vectors, scales, spellingMeta, spellingRows, spellingScales] = await Promise.all([
    get('meta.json').then((r) => r.json()),
    get('vocab.txt').then((r) => r.text()),
    get('vectors.i8').then((r) => r.arrayBuffer()),
    get('scales.f32').then((r) => r.arrayBuffer()),
    get('spelling.json').then((r) => r.json()),
    get('spelling.i8').then((r) => r.arrayBuffer()),
    get('spelling-scales.f32').then((r) => r.arrayBuffer()),
  ]);
  return {
    vocab,
    vectors: new Int8Array(vectors),
    scales: new Float32Array(scales),
    dims: (meta as { dims: number }).dims,
    spelling: dequantizeSpelling(new Int8Array(spellingRows), new Float32Array(spellingScales), spellingMeta as SpellingBuild),
  };
}

/** The starter model from the app's own origin (public/models; the service worker caches it once fetched). */
export async function fetchStarterAsset(base: string): Promise<StarterAsset> {
  const res = await fetch(`${base}${STARTER_PATH}`);
  if (!res.ok) throw new Error(`the starter model: ${STARTER_PATH} answered HTTP ${res.status}`);
  return parseStarter(await res.json());
}

/** A text file from the app's own origin (public/: the gazetteer library's lists), by its path there. */
export async function fetchPublicText(base: string, path: string): Promise<string> {
  const res = await fetch(`${base}${path}`);
  if (!res.ok) throw new Error(`${path} answered HTTP ${res.status}`);
  return res.text();
}
