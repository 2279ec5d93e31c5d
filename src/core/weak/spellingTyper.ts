import type { Span } from '../types';
import { UNKNOWN_TYPE } from '../types';
import type { SourceOutput } from './sources';

/**
 * Types the matches of untyped dictionaries from their spelling. An aggregator that sees only
 * "some entity" at a token has nothing per word to choose its type with: the HMM gives every match
 * of an untyped list alone the one type its global counts favour, so on bc5cdr all 3,200 such
 * matches of dev became Chemical when it was fitted on dev's text and Disease when fitted on the
 * training text (58 % and 41 % of them right). "-itis", "-emia", "syndrome" and "-ine", "-ide",
 * "acid" tell them apart; a naive Bayes classifier over the character n-grams and words of the
 * typed gazetteers' own phrases learns that (88 % of those matches typed right on bc5cdr dev). It
 * reads no corpus text, so the training text and the text it labels get the same decisions.
 */
export interface SpellingTyper {
  readonly types: readonly string[];
  /** The most probable type of a phrase given as its words, with its posterior probability. */
  classify(words: readonly string[]): { type: string; posterior: number };
}

/** Character n-gram lengths (of `<word>`, lower-cased) and the smoothing, chosen on bc5cdr dev. */
const MIN_N = 1;
const MAX_N = 5;
const ALPHA = 0.1;
const BUCKETS = 1 << 18;

/** Hashed features of a phrase: each word whole and its character n-grams. */
function features(words: readonly string[]): number[] {
  const out: number[] = [];
  for (const raw of words) {
    const w = `<${raw.toLowerCase()}>`;
    out.push(hash(`w:${w}`));
    for (let n = MIN_N; n <= MAX_N; n++) for (let i = 0; i + n <= w.length; i++) out.push(hash(w.slice(i, i + n)));
  }
  return out;
}

/** FNV-1a, 32 bits, into the feature table. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % BUCKETS;
}

/** Null when the phrases name fewer than two types: nothing to choose between. */
export function trainSpellingTyper(phrases: readonly { words: readonly string[]; type: string }[]): SpellingTyper | null {
  const types = [...new Set(phrases.map((p) => p.type))].filter((t) => t !== UNKNOWN_TYPE).sort();
  if (types.length < 2) return null;
  const counts = types.map(() => new Float64Array(BUCKETS));
  const totals = new Float64Array(types.length);
  const docs = new Float64Array(types.length);
  const seen = new Uint8Array(BUCKETS);
  for (const p of phrases) {
    const k = types.indexOf(p.type);
    if (k < 0) continue;
    docs[k]++;
    for (const f of features(p.words)) {
      counts[k][f]++;
      totals[k]++;
      seen[f] = 1;
    }
  }
  const vocabulary = seen.reduce((a, x) => a + x, 0);
  const logPrior = types.map((_, k) => Math.log(docs[k] / phrases.length));
  return {
    types,
    classify(words) {
      const fs = features(words).filter((f) => seen[f]);
      const scores = types.map((_, k) => fs.reduce((a, f) => a + Math.log((counts[k][f] + ALPHA) / (totals[k] + ALPHA * vocabulary)), logPrior[k]));
      const top = scores.reduce((best, s, k) => (s > scores[best] ? k : best), 0);
      const z = scores.reduce((a, s) => a + Math.exp(s - scores[top]), 0);
      return { type: types[top], posterior: 1 / z };
    },
  };
}

/**
 * The sources with each untyped span given the typer's type; `words(doc, span)` reads the span's
 * tokens. Spans of known type, and ambiguous ones (a phrase the gazetteers give several types,
 * whose `candidates` say which), are left as they are.
 */
export function typeUnknownSpans(
  sources: readonly SourceOutput[],
  typer: SpellingTyper,
  words: (doc: number, span: Span) => readonly string[],
): { sources: SourceOutput[]; typed: number } {
  let typed = 0;
  const untyped = (s: Span) => s.label === UNKNOWN_TYPE && !s.candidates?.length;
  const out = sources.map((src) => {
    if (!src.spans.some((spans) => spans.some(untyped))) return src;
    const spans = src.spans.map((doc, d) =>
      doc.map((s) => {
        if (!untyped(s)) return s;
        typed++;
        return { ...s, label: typer.classify(words(d, s)).type };
      }),
    );
    return { ...src, spans };
  });
  return { sources: out, typed };
}
