/**
 * The starter model (issue 45's prior that travels): the studio's own tagger trained once on
 * CoNLL-2003's gold training sentences (PER, LOC, ORG, MISC), shipped with its provenance as
 * public/models/starter-conll03.json (scripts/build-starter.ts). A project reads its predictions
 * as dictionary features of their own groups ("starter model: PER", ...), so the model learns on
 * the project's labels what each is worth there. As features it gained twitter +2.20 and web pages
 * +5.32 test F1 with WSL, and cost bc5cdr −0.41, whose types it lacks; as labels it cost twitter 6
 * (BENCHMARKS.md, "a starter model as a prior that travels").
 */
import { tagsToSpans } from '../core/tagScheme';
import type { Span } from '../core/types';
import type { ModelConfig } from '../core/runConfig';
import type { Embeddings } from './embeddings';
import { type Featurizer, featureDims } from './features';
import { Tagger, type Weights } from './tagger';
import { predict } from './train';

export const STARTER_FORMAT = 'ner-studio-starter/1';
/** Where the studio serves it, relative to its base. */
export const STARTER_PATH = 'models/starter-conll03.json';

export interface StarterAsset {
  format: typeof STARTER_FORMAT;
  provenance: Record<string, string>;
  model: ModelConfig;
  tags: string[];
  chars: [string, number][];
  oov: [string, number][];
  oShift: number;
  /** Float32, little-endian, base64 per variable. */
  weights: Record<string, { shape: number[]; base64: string }>;
}

/** The asset as fetched or read, checked: a clear error names what is wrong. */
export function parseStarter(raw: unknown, where = STARTER_PATH): StarterAsset {
  const a = raw as Partial<StarterAsset> | null;
  if (!a || a.format !== STARTER_FORMAT) throw new Error(`${where}: not a starter model (format ${String(a?.format)}, expected ${STARTER_FORMAT})`);
  for (const [k, v] of Object.entries(a.weights ?? {})) {
    const n = v.shape.reduce((x, y) => x * y, 1);
    const bytes = Math.floor((v.base64.length * 3) / 4) - (v.base64.endsWith('==') ? 2 : v.base64.endsWith('=') ? 1 : 0);
    if (bytes !== 4 * n) throw new Error(`${where}: weight ${k} has ${bytes} bytes for shape [${v.shape.join(', ')}] (${4 * n} expected)`);
  }
  return a as StarterAsset;
}

function decode(base64: string): Float32Array {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

/** The starter's entity types, in its tags' order. */
export const starterTypes = (a: Pick<StarterAsset, 'tags'>): string[] => [...new Set(a.tags.filter((t) => t !== 'O').map((t) => t.slice(2)))];

/** The feature groups of the starter's types, after the project's others. */
export const starterGroups = (types: readonly string[]): string[] => types.map((t) => `starter model: ${t}`);

/**
 * The starter's spans on each sentence, in its own types. `glove` must hold the sentences' words
 * with spelled rows for the words GloVe lacks (the project's embeddings are), as it was trained.
 */
export async function starterPredictions(a: StarterAsset, glove: Embeddings, sentences: readonly { words: readonly string[] }[]): Promise<Span[][]> {
  const feat: Featurizer = { glove, chars: new Map(a.chars), oov: new Map(a.oov), tags: a.tags, ...(a.model.spelling ? { spelling: true } : {}) };
  const tagger = new Tagger(a.model, featureDims(feat), 1);
  try {
    const weights: Weights = Object.fromEntries(Object.entries(a.weights).map(([k, v]) => [k, { shape: v.shape, data: decode(v.base64) }]));
    tagger.setWeights(weights);
    tagger.oShift = a.oShift;
    const { paths } = await predict(
      tagger,
      feat,
      sentences.map((s) => ({ words: [...s.words], tags: s.words.map(() => 0), doc: 0, offset: 0 })),
    );
    return paths.map((p) => tagsToSpans(p.map((t) => a.tags[t])));
  } finally {
    tagger.dispose();
  }
}
