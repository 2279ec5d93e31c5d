/**
 * What labeling sources produce and what aggregation reads: shared by the aggregators (priority,
 * vote) and the HMM, which would otherwise import each other.
 */
import type { Span } from '../types';

/** One labeling source's output: spans per document, in the corpus's document order. */
export interface SourceOutput {
  name: string;
  /** Lower wins ties. */
  priority: number;
  spans: Span[][];
}

export interface AggregateInput {
  sources: readonly SourceOutput[];
  /** Per document, token ranges of its sentences. */
  sentences: readonly (readonly [number, number][])[];
  types: readonly string[];
}

/** The label a source gives each token as a BIO tag, '?' types included. */
export function sourceTags(spans: readonly Span[], n: number): string[] {
  const tags = new Array<string>(n).fill('O');
  for (const s of spans) for (let t = s.start; t < s.end; t++) tags[t] = `${t === s.start ? 'B' : 'I'}-${s.label}`;
  return tags;
}
