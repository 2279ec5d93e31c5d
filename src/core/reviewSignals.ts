/**
 * The review queue: sentences ranked by one signal of what a run learned about the weak labels,
 * each entry saying which tokens put it there. A run stores its signals per document (DocSignals:
 * the final model's uncertainty, and what its method recorded: RoSTER's removals, PU's O-values,
 * completion's tags); the generic signals are here, each method declares its own in
 * src/methods/reviewSignals.ts.
 */
import type { Span } from './types';

/**
 * One run's signals over one document's tokens (arrays indexed by token; absent when the method has
 * none). A method's own fields (RoSTER's removals, PU's O-values, completion's tags) are declared
 * by its module's `.def.ts`, which augments this interface, with their kind in its `records`.
 */
export interface DocSignals {
  uncertainty?: Float32Array;
  /** Spans of the initial model's predictions on weak sentences (SST's pseudo-labels, NEEDLE's completion source). */
  pseudo?: Span[];
}

/**
 * One review signal: how it flags a token of a sentence (a value to rank by and why), whether a
 * run's rows carry it, and how a sentence's flags make its score. The generic ones are below; a
 * method declares its own (src/methods/reviewSignals.ts) and the queue reads the declarations.
 */
export interface ReviewSignal {
  id: string;
  title: string;
  /** How a sentence's flagged tokens rank it: by their count, or by the largest value. */
  score: 'count' | 'max';
  /** What the summary says the ranking is by. */
  rankedBy: string;
  /** Whether a run's stored signals carry it (`hasRun`: the run predicted the documents). */
  present(sg: DocSignals, hasRun: boolean): boolean;
  /** The flag of token t, or undefined. */
  flag(t: number, d: FlagContext): { value: number; why: string } | undefined;
}

export interface FlagContext {
  word: string;
  weak: readonly string[];
  pred: readonly string[] | null;
  signals: DocSignals | undefined;
}

export const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3).replace(/\.?0+$/, ''));

/** The weak labels and the run's predictions differ at the token (unknown-type weak tokens aside). */
export const disagreementSignal: ReviewSignal = {
  id: 'disagreement',
  title: 'weak labels and the run disagree',
  score: 'count',
  rankedBy: 'how many tokens',
  present: (_sg, hasRun) => hasRun,
  flag: (t, { word, weak, pred }) =>
    pred && weak[t] !== pred[t] && weak[t] !== '?' ? { value: 1, why: `${word} (weak ${weak[t]}, run ${pred[t]})` } : undefined,
};

/** 1 − the final model's largest marginal probability (every token head). */
export const uncertaintySignal: ReviewSignal = {
  id: 'uncertainty',
  title: 'the model is least sure',
  score: 'max',
  rankedBy: 'the most uncertain token',
  present: (sg) => !!sg.uncertainty,
  flag: (t, { word, weak, pred, signals }) => {
    const u = signals?.uncertainty?.[t];
    return u !== undefined && u > 0 ? { value: u, why: `${word} (uncertainty ${fmt(u)}; weak ${weak[t]}${pred ? `, run ${pred[t]}` : ''})` } : undefined;
  },
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

/**
 * Sentences ranked by one signal: by the count of their flagged tokens, or by their largest flag
 * value (the signal's `score`). A sentence the signal does not flag is left out.
 */
export function rankSentences(docs: readonly QueueDoc[], signal: ReviewSignal, limit = Infinity): QueueEntry[] {
  const out: QueueEntry[] = [];
  for (const d of docs) {
    const n = d.words.length;
    const weak = tokenLabels(d.weak, n);
    const pred = d.predicted ? tokenLabels(d.predicted, n) : null;
    d.sentences.forEach(([a, b], si) => {
      const flagged: { t: number; value: number; why: string }[] = [];
      for (let t = a; t < b; t++) {
        const f = signal.flag(t, { word: d.words[t], weak, pred, signals: d.signals });
        if (f) flagged.push({ t, ...f });
      }
      if (!flagged.length) return;
      const byValue = [...flagged].sort((x, y) => y.value - x.value || x.t - y.t);
      const score = signal.score === 'max' ? byValue[0].value : flagged.length;
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
