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
import { checkPacked, decodeFloat32, type PackedWeights } from './packedWeights';

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
  weights: PackedWeights;
}

/** The asset as fetched or read, checked: a clear error names what is wrong. */
export function parseStarter(raw: unknown, where = STARTER_PATH): StarterAsset {
  const a = raw as Partial<StarterAsset> | null;
  if (!a || a.format !== STARTER_FORMAT) throw new Error(`${where}: not a starter model (format ${String(a?.format)}, expected ${STARTER_FORMAT})`);
  checkPacked(a.weights ?? {}, where);
  return a as StarterAsset;
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
    const weights: Weights = Object.fromEntries(Object.entries(a.weights).map(([k, v]) => [k, { shape: v.shape, data: decodeFloat32(v.base64) }]));
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
