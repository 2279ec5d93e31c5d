/**
 * Annotation progress and agreement: which sentences an annotator has reviewed (every token
 * decided: inside a span or marked definitely O; a layer imported as complete counts as reviewed
 * throughout), counts per split and type, review speed from the times sentences were marked
 * reviewed, and the agreement of two annotators on the sentences both reviewed: Cohen's kappa over
 * token labels (the entity type, or O) and span F1 (exact match) of one against the other.
 */
import { scoreSpans } from './metrics';
import type { Annotation, Span, Split } from './types';

export interface ProgressDoc {
  split: Split;
  sentences: readonly (readonly [number, number])[];
}

/** Annotation fields the editor keeps beside spans and definite-O tokens. */
export interface EditorAnnotation extends Annotation {
  /** Sentence start token → when the sentence was marked reviewed (ms since the epoch). */
  reviewedAt?: Record<number, number>;
  /** Suggestions the annotator rejected ("start:end:label"), kept across reloads. */
  rejected?: string[];
  /**
   * Sentence start token → whether its labels differed from the weak layer's when it was decided
   * (marked reviewed, or edited since in the editor): what reviewing found, kept as it was found
   * (a later "add to gazetteer" that labels the weak layer again does not rewrite it). Absent for
   * sentences reviewed before it was kept, or where no weak layer was there to compare.
   */
  weakChanged?: Record<number, boolean>;
}

export function sentenceReviewed(ann: Annotation | undefined, from: number, to: number): boolean {
  if (!ann) return false;
  if (ann.oMode === 'complete') return true;
  const decided = new Uint8Array(to - from);
  for (const s of ann.spans) for (let t = Math.max(s.start, from); t < Math.min(s.end, to); t++) decided[t - from] = 1;
  for (const t of ann.oTokens ?? []) if (t >= from && t < to) decided[t - from] = 1;
  return decided.every((x) => x === 1);
}

export interface Progress {
  bySplit: Record<string, { sentences: number; reviewed: number; tokens: number; reviewedTokens: number }>;
  /** Spans per type inside reviewed sentences. */
  byType: Record<string, number>;
}

export function progressOf(docs: readonly ProgressDoc[], anns: readonly (Annotation | undefined)[]): Progress {
  const bySplit: Progress['bySplit'] = {};
  const byType: Record<string, number> = {};
  docs.forEach((d, k) => {
    const row = (bySplit[d.split] ??= { sentences: 0, reviewed: 0, tokens: 0, reviewedTokens: 0 });
    for (const [a, b] of d.sentences) {
      row.sentences++;
      row.tokens += b - a;
      if (!sentenceReviewed(anns[k], a, b)) continue;
      row.reviewed++;
      row.reviewedTokens += b - a;
      for (const s of anns[k]!.spans) if (s.start >= a && s.end <= b) byType[s.label] = (byType[s.label] ?? 0) + 1;
    }
  });
  return { bySplit, byType };
}

/**
 * Review speed from the times sentences were marked reviewed: gaps longer than `pause` are
 * breaks and do not count as work. Sentences per hour of active time (null below two reviews).
 */
export function reviewSpeed(times: readonly number[], pause = 5 * 60_000): { reviews: number; activeMinutes: number; perHour: number | null } {
  const t = [...times].sort((a, b) => a - b);
  let active = 0;
  for (let i = 1; i < t.length; i++) if (t[i] - t[i - 1] <= pause) active += t[i] - t[i - 1];
  return { reviews: t.length, activeMinutes: active / 60_000, perHour: t.length > 1 && active > 0 ? ((t.length - 1) / active) * 3_600_000 : null };
}

/** Cohen's kappa of two label sequences of equal length: (p_o − p_e) / (1 − p_e). */
export function cohensKappa(a: readonly string[], b: readonly string[]): { kappa: number; observed: number; expected: number } {
  if (a.length !== b.length) throw new Error(`kappa needs label sequences of one length, not ${a.length} and ${b.length}`);
  const n = a.length;
  if (!n) return { kappa: NaN, observed: NaN, expected: NaN };
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    ca.set(a[i], (ca.get(a[i]) ?? 0) + 1);
    cb.set(b[i], (cb.get(b[i]) ?? 0) + 1);
  }
  const observed = agree / n;
  let expected = 0;
  for (const [label, x] of ca) expected += (x / n) * ((cb.get(label) ?? 0) / n);
  return { kappa: expected === 1 ? (observed === 1 ? 1 : 0) : (observed - expected) / (1 - expected), observed, expected };
}

export interface Agreement {
  sentences: number;
  tokens: number;
  kappa: number;
  observed: number;
  expected: number;
  /** Span F1 of B against A (symmetric: swapping them swaps precision and recall). */
  spanF1: number;
}

/** Agreement of annotators A and B on the sentences both reviewed. */
export function agreementOf(docs: readonly ProgressDoc[], a: readonly (Annotation | undefined)[], b: readonly (Annotation | undefined)[]): Agreement {
  const la: string[] = [];
  const lb: string[] = [];
  const sa: Span[][] = [];
  const sb: Span[][] = [];
  let sentences = 0;
  const labelOf = (spans: readonly Span[], t: number) => spans.find((s) => s.start <= t && t < s.end)?.label ?? 'O';
  docs.forEach((d, k) => {
    for (const [from, to] of d.sentences) {
      if (!sentenceReviewed(a[k], from, to) || !sentenceReviewed(b[k], from, to)) continue;
      sentences++;
      const inside = (s: Span) => s.start >= from && s.end <= to;
      const [xa, xb] = [a[k]!.spans.filter(inside), b[k]!.spans.filter(inside)];
      sa.push(xa);
      sb.push(xb);
      for (let t = from; t < to; t++) {
        la.push(labelOf(xa, t));
        lb.push(labelOf(xb, t));
      }
    }
  });
  const k = cohensKappa(la, lb);
  return { sentences, tokens: la.length, ...k, spanF1: scoreSpans(sa, sb).overall.f1 };
}
