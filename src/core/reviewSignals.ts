/**
 * The noise signals that drive the review queue, and the queue's ranking. A run stores, per
 * document, what its method learned about each token of the weak labels:
 *   - uncertainty: 1 − the largest marginal probability of the final model (every token head);
 *   - RoSTER: the weak labels that noisy-label removal drops (p of the weak label ≤ τ, minority
 *     types exempt), judged by the first noise-robust model;
 *   - PU: the O-values of weak-O tokens and which of them the PU step removed (the ⌈λ·m⌉ lowest);
 *   - NEEDLE: the labels weak label completion gave to weak-O tokens, where it chose an entity.
 * The queue ranks sentences by one chosen signal, and says for each entry which tokens put it there.
 */
import type { Span } from './types';

/** One run's signals over one document's tokens (arrays indexed by token; absent when the method has none). */
export interface DocSignals {
  uncertainty?: Float32Array;
  /** 1 where RoSTER's threshold removes the weak label. */
  rosterRemoved?: Uint8Array;
  /** PU O-values of weak-O tokens (NaN elsewhere), from the model the PU step cut with. */
  oValue?: Float32Array;
  /** The same after each exploratory epoch. */
  oValueEpochs?: Float32Array[];
  /** 1 where the PU step removed the token from the loss as a likely unlabeled entity. */
  puRemoved?: Uint8Array;
  /** Token → the tag weak label completion gave a weak-O token (entity tags only). */
  completion?: Record<number, string>;
  /** Spans of the initial model's predictions on weak sentences (SST's pseudo-labels, NEEDLE's completion source). */
  pseudo?: Span[];
}

export const SIGNALS = ['disagreement', 'uncertainty', 'roster', 'pu', 'needle'] as const;
export type SignalKind = (typeof SIGNALS)[number];

export const SIGNAL_TITLES: Record<SignalKind, string> = {
  disagreement: 'weak labels and the run disagree',
  uncertainty: 'the model is least sure',
  roster: "RoSTER's threshold removed weak labels",
  pu: 'lowest O-values of the PU step',
  needle: 'weak-label completion (NEEDLE, or the completion method) gave weak O tokens an entity type',
};

/** Per token, the label a span set gives it ('O' outside spans). */
export function tokenLabels(spans: readonly Span[], n: number): string[] {
  const out = new Array<string>(n).fill('O');
  for (const s of spans) for (let t = s.start; t < s.end && t < n; t++) out[t] = s.label;
  return out;
}

export interface QueueDoc {
  docId: number;
  name: string;
  words: readonly string[];
  sentences: readonly (readonly [number, number])[];
  weak: readonly Span[];
  predicted?: readonly Span[];
  signals?: DocSignals;
}

export interface QueueEntry {
  docId: number;
  name: string;
  /** 1-based sentence number in its document. */
  sentence: number;
  /** Token range of the sentence. */
  from: number;
  to: number;
  /** The ranking score (higher first); what it is depends on the signal. */
  score: number;
  /** How many tokens the signal flags in the sentence. */
  count: number;
  /** Why the sentence is queued: the flagged tokens with their values, the strongest first. */
  reasons: string[];
  /** The flagged token positions (document coordinates), in order. */
  flagged: number[];
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3).replace(/\.?0+$/, ''));

/**
 * Sentences ranked by one signal. disagreement, roster and needle score by the count of flagged
 * tokens; uncertainty by the sentence's most uncertain token; pu by its lowest O-value among the
 * tokens the PU step removed (lower first). A sentence the signal does not flag is left out.
 */
export function rankSentences(docs: readonly QueueDoc[], signal: SignalKind, limit = Infinity): QueueEntry[] {
  const out: QueueEntry[] = [];
  for (const d of docs) {
    const n = d.words.length;
    const weak = tokenLabels(d.weak, n);
    const pred = d.predicted ? tokenLabels(d.predicted, n) : null;
    const sg = d.signals;
    d.sentences.forEach(([a, b], si) => {
      const flagged: { t: number; value: number; why: string }[] = [];
      for (let t = a; t < b; t++) {
        const w = d.words[t];
        if (signal === 'disagreement') {
          if (pred && weak[t] !== pred[t] && weak[t] !== '?') flagged.push({ t, value: 1, why: `${w} (weak ${weak[t]}, run ${pred[t]})` });
        } else if (signal === 'uncertainty') {
          const u = sg?.uncertainty?.[t];
          if (u !== undefined && u > 0) flagged.push({ t, value: u, why: `${w} (uncertainty ${fmt(u)}; weak ${weak[t]}${pred ? `, run ${pred[t]}` : ''})` });
        } else if (signal === 'roster') {
          if (sg?.rosterRemoved?.[t]) flagged.push({ t, value: 1, why: `${w} (weak ${weak[t]} removed by the threshold)` });
        } else if (signal === 'pu') {
          if (sg?.puRemoved?.[t])
            flagged.push({ t, value: -(sg.oValue?.[t] ?? 0), why: `${w} (O-value ${fmt(sg.oValue?.[t] ?? NaN)}, removed as a likely unlabeled entity)` });
        } else {
          const c = sg?.completion?.[t];
          if (c !== undefined) flagged.push({ t, value: 1, why: `${w} (weak O, completed as ${c})` });
        }
      }
      if (!flagged.length) return;
      const byValue = [...flagged].sort((x, y) => y.value - x.value || x.t - y.t);
      const score = signal === 'uncertainty' || signal === 'pu' ? byValue[0].value : flagged.length;
      out.push({
        docId: d.docId,
        name: d.name,
        sentence: si + 1,
        from: a,
        to: b,
        score,
        count: flagged.length,
        reasons: byValue.slice(0, 4).map((f) => f.why),
        flagged: flagged.map((f) => f.t),
      });
    });
  }
  out.sort((x, y) => y.score - x.score || y.count - x.count || x.docId - y.docId || x.sentence - y.sentence);
  return out.slice(0, limit);
}

/**
 * RoSTER's noisy-label removal (Eq. 5 with Appendix C's exemption) over a set of sentences: a weak
 * token is removed when the model gives its weak label a probability of at most τ, unless it is of
 * an entity class of which more than 90 % of the weak tokens fall under τ. With the two-part head
 * (`twoPart`, O first) each label is judged by the part of the head that learns it, as the
 * authors' code does: a weak O token by P(non-entity), and it then leaves the entity/non-entity
 * loss; a weak entity token by P(type | entity), and it then leaves the type loss only (it stays an
 * entity). probs: the joint [length, K] per sentence; strong sentences get null.
 */
export function rosterRemoval(
  tags: readonly (readonly number[])[],
  probs: readonly Float32Array[],
  weak: readonly boolean[],
  K: number,
  tau: number,
  twoPart = false,
): (Uint8Array | null)[] {
  const judged = (p: Float32Array, t: number, y: number): number =>
    !twoPart ? p[t * K + y] : y === 0 ? p[t * K] : p[t * K + y] / Math.max(1 - p[t * K], 1e-12);
  const under = new Float64Array(K);
  const total = new Float64Array(K);
  tags.forEach((ts, s) => {
    if (!weak[s]) return;
    ts.forEach((y, t) => {
      if (y < 0) return;
      total[y]++;
      if (judged(probs[s], t, y) <= tau) under[y]++;
    });
  });
  const exempt = Array.from(total, (n, y) => y > 0 && n > 0 && under[y] / n > 0.9);
  return tags.map((ts, s) => {
    if (!weak[s]) return null;
    const out = new Uint8Array(ts.length);
    ts.forEach((y, t) => {
      if (y >= 0 && !exempt[y] && judged(probs[s], t, y) <= tau) out[t] = 1;
    });
    return out;
  });
}

/** 1 − the largest of each token's K probabilities. */
export function uncertaintyOf(probs: Float32Array, K: number): Float32Array {
  const n = probs.length / K;
  const out = new Float32Array(n);
  for (let t = 0; t < n; t++) {
    let m = 0;
    for (let k = 0; k < K; k++) m = Math.max(m, probs[t * K + k]);
    out[t] = 1 - m;
  }
  return out;
}
