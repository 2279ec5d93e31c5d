/**
 * The studio's vocabulary, defined once. Every other module imports these names.
 *
 * Spans index tokens, not characters: `start` inclusive, `end` exclusive, in document token
 * coordinates (sentences only say where a document may be cut).
 */

export type TagScheme = 'BIO' | 'IOB1' | 'BIOES' | 'IO';
export const TAG_SCHEMES: readonly TagScheme[] = ['BIO', 'IOB1', 'BIOES', 'IO'];

export type Split = 'train' | 'dev' | 'test' | 'unassigned';
export const SPLITS: readonly Split[] = ['train', 'dev', 'test', 'unassigned'];

/**
 * "An entity of some type we do not know": untyped dictionary phrases (AutoNER's unknown spans) and
 * phrases listed under several types. Methods treat such tokens as neither O nor a known type.
 */
export const UNKNOWN_TYPE = '?';

export interface Span {
  start: number;
  end: number;
  label: string;
  /** For an ambiguous match (label UNKNOWN_TYPE): the types it could be. */
  candidates?: string[];
}

/**
 * One document's labels in one layer. Partial annotation has three token states:
 * inside a span (an entity of that type), definitely O, and no decision.
 * - `oMode: 'complete'`: every token outside a span is definitely O (an ordinary labeled corpus).
 * - `oMode: 'partial'`: only the tokens in `oTokens` are definitely O; the rest are undecided.
 */
export interface Annotation {
  spans: Span[];
  oMode: 'complete' | 'partial';
  oTokens?: number[];
  /** Per-token confidence in [0, 1] of an aggregated weak layer, when the aggregator has one. */
  confidence?: number[];
}

export type LayerKind = 'gold' | 'weak' | 'corrected' | 'predicted';
export const LAYER_KINDS: readonly LayerKind[] = ['gold', 'weak', 'corrected', 'predicted'];

export interface EntityType {
  name: string;
  color: string;
}

/** A tokenized document as the parsers produce it, before it has a database id. */
export interface ParsedDoc {
  name: string;
  text: string;
  /** Character offsets, flattened: token i spans text[offsets[2i], offsets[2i+1]). */
  offsets: ArrayLike<number>;
  /** Token index at which each sentence starts; the first is always 0. */
  sentenceStarts: number[];
  split: Split;
}

/** A parsed file: documents plus, per named layer, one annotation per document (same order). */
export interface ParsedCorpus {
  docs: ParsedDoc[];
  layers: { kind: LayerKind; name: string; annotations: Annotation[] }[];
  types: string[];
  /** What the import changed or doubts, each naming its file and line: shown before it is stored. */
  warnings?: string[];
}

export function tokenCount(doc: Pick<ParsedDoc, 'offsets'>): number {
  return doc.offsets.length >> 1;
}

export function tokenText(doc: Pick<ParsedDoc, 'text' | 'offsets'>, i: number): string {
  return doc.text.slice(doc.offsets[2 * i], doc.offsets[2 * i + 1]);
}

export function tokenTexts(doc: Pick<ParsedDoc, 'text' | 'offsets'>): string[] {
  const n = doc.offsets.length >> 1;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = doc.text.slice(doc.offsets[2 * i], doc.offsets[2 * i + 1]);
  return out;
}

/** Token ranges [start, end) of each sentence. */
export function sentenceRanges(doc: Pick<ParsedDoc, 'offsets' | 'sentenceStarts'>): [number, number][] {
  const n = doc.offsets.length >> 1;
  const s = doc.sentenceStarts;
  return s.map((start, k) => [start, k + 1 < s.length ? s[k + 1] : n]);
}
