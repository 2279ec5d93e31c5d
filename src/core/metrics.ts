import type { Span } from './types';
import { UNKNOWN_TYPE } from './types';

export interface PRF {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface SpanScores {
  overall: PRF;
  perType: Record<string, PRF>;
}

export function prf(tp: number, fp: number, fn: number): PRF {
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { tp, fp, fn, precision, recall, f1 };
}

const key = (s: Span) => `${s.start}:${s.end}:${s.label}`;

/**
 * Span-level exact match, as conlleval counts it: a predicted span is a true positive when a gold
 * span has the same boundaries and type. Spans of unknown type are not predictions of any type
 * and are left out on both sides.
 */
export function scoreSpans(gold: readonly (readonly Span[])[], pred: readonly (readonly Span[])[]): SpanScores {
  if (gold.length !== pred.length) throw new Error(`scoreSpans: ${gold.length} gold documents, ${pred.length} predicted`);
  const counts = new Map<string, [number, number, number]>();
  const bump = (label: string, k: 0 | 1 | 2) => {
    let c = counts.get(label);
    if (!c) counts.set(label, (c = [0, 0, 0]));
    c[k]++;
  };
  for (let d = 0; d < gold.length; d++) {
    const g = new Set(gold[d].filter((s) => s.label !== UNKNOWN_TYPE).map(key));
    const p = new Set(pred[d].filter((s) => s.label !== UNKNOWN_TYPE).map(key));
    for (const s of pred[d]) {
      if (s.label === UNKNOWN_TYPE) continue;
      bump(s.label, g.has(key(s)) ? 0 : 1);
    }
    for (const s of gold[d]) if (s.label !== UNKNOWN_TYPE && !p.has(key(s))) bump(s.label, 2);
  }
  let [tp, fp, fn] = [0, 0, 0];
  const perType: Record<string, PRF> = {};
  for (const [label, [a, b, c]] of [...counts].sort(([x], [y]) => x.localeCompare(y))) {
    perType[label] = prf(a, b, c);
    tp += a;
    fp += b;
    fn += c;
  }
  return { overall: prf(tp, fp, fn), perType };
}

/** Token accuracy over token label sequences of equal length. */
export function tokenAccuracy(gold: readonly (readonly string[])[], pred: readonly (readonly string[])[]): number {
  let right = 0;
  let all = 0;
  gold.forEach((g, d) =>
    g.forEach((t, i) => {
      all++;
      if (pred[d][i] === t) right++;
    }),
  );
  return all ? right / all : 0;
}

export interface SpanErrors {
  correct: number;
  /** Same boundaries as a gold span, another type. */
  wrongType: number;
  /** Overlaps a gold span without its exact boundaries. */
  wrongBoundary: number;
  /** A gold span no prediction touches. */
  missed: number;
  /** A predicted span that touches no gold span. */
  spurious: number;
}

/**
 * Span errors by kind. Every predicted span not exactly right is a wrong type (a gold span has its
 * boundaries), else a wrong boundary (it overlaps a gold span), else spurious; every gold span
 * that no predicted span overlaps is missed. Unknown-type spans are left out, as in scoreSpans.
 */
export function spanErrors(gold: readonly (readonly Span[])[], pred: readonly (readonly Span[])[]): SpanErrors {
  const out: SpanErrors = { correct: 0, wrongType: 0, wrongBoundary: 0, missed: 0, spurious: 0 };
  const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
  gold.forEach((gAll, d) => {
    const g = gAll.filter((s) => s.label !== UNKNOWN_TYPE);
    const p = pred[d].filter((s) => s.label !== UNKNOWN_TYPE);
    for (const s of p) {
      if (g.some((x) => x.start === s.start && x.end === s.end && x.label === s.label)) out.correct++;
      else if (g.some((x) => x.start === s.start && x.end === s.end)) out.wrongType++;
      else if (g.some((x) => overlaps(x, s))) out.wrongBoundary++;
      else out.spurious++;
    }
    for (const x of g) if (!p.some((s) => overlaps(x, s))) out.missed++;
  });
  return out;
}

export interface LabelDistribution {
  /** Spans per type (unknown-type spans under UNKNOWN_TYPE). */
  spans: Record<string, number>;
  /** Tokens per type, "O" for tokens in no span. */
  tokens: Record<string, number>;
  totalSpans: number;
  totalTokens: number;
}

/**
 * How a label layer spreads over types (NEEDLE, Figure 4): spans and tokens per type, O tokens
 * included, over documents of the given token counts.
 */
export function labelDistribution(spans: readonly (readonly Span[])[], tokenCounts: readonly number[]): LabelDistribution {
  const out: LabelDistribution = { spans: {}, tokens: { O: 0 }, totalSpans: 0, totalTokens: 0 };
  spans.forEach((doc, d) => {
    let inSpans = 0;
    for (const s of doc) {
      out.spans[s.label] = (out.spans[s.label] ?? 0) + 1;
      out.tokens[s.label] = (out.tokens[s.label] ?? 0) + (s.end - s.start);
      inSpans += s.end - s.start;
      out.totalSpans++;
    }
    out.tokens.O += tokenCounts[d] - inSpans;
    out.totalTokens += tokenCounts[d];
  });
  return out;
}

/** Mean and sample standard deviation (0 for fewer than two values), as the result tables report them. */
export function meanStd(xs: readonly number[]): { mean: number; std: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, std };
}
