/**
 * The review queue: sentences ranked by one signal of what a run learned about the weak labels,
 * each entry saying which tokens put it there. A run stores its signals per document (DocSignals:
 * the final model's uncertainty, and what its method recorded: RoSTER's removals, PU's O-values,
 * completion's tags); the generic signals are here, each method declares its own in
 * src/methods/reviewSignals.ts.
 */
import { coverOrder, phraseCounts, REACH_DOUBT } from './guidedCorrection';
import { type Span, UNKNOWN_TYPE } from './types';

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
  /** How a sentence's flagged tokens rank it: by their count, by the largest value, or by the values' sum. */
  score: 'count' | 'max' | 'sum';
  /** What the summary says the ranking is by. */
  rankedBy: string;
  /**
   * Whether a run's stored signals carry it (`hasRun`: the run predicted the documents), or the
   * documents do (`hasSources`: the weak layer ranked against is an aggregate of source layers).
   */
  present(sg: DocSignals, hasRun: boolean, hasSources?: boolean): boolean;
  /** The flag of token t, or undefined; `key` names what its value is for (a phrase), for `cover`. */
  flag(t: number, d: FlagContext): { value: number; why: string; key?: string } | undefined;
  /**
   * Rank as a set (`score` 'sum'): greedily, each sentence by what its flags add to those of the
   * sentences above it, a key counted once (core/guidedCorrection.ts coverOrder). A correction
   * that travels settles its phrase everywhere, so the next sentence with the same phrase adds nothing.
   */
  cover?: boolean;
  /**
   * The signal that ranks, after this one's, the sentences it does not flag, so that the queue
   * goes on past them (reach flags only sentences with a doubted phrase; the simulated annotator's
   * reach ranks the rest by uncertainty too).
   */
  after?: ReviewSignal;
  /**
   * What the signal reads across the documents ranked (reach: how often each phrase occurs in
   * them), once per ranking; `flag` finds it in FlagContext.across.
   */
  across?(docs: readonly QueueDoc[]): Across;
}

/** What a signal reads across the documents ranked: the phrases of a document's spans that start at a token, and how often a phrase occurs. */
export interface Across {
  /** The weak and predicted spans starting at token t of the document (the run's doubt is read token by token). */
  spansAt(docId: number, t: number): readonly Span[];
  occurrences(phrase: string): number;
}

export interface FlagContext {
  docId: number;
  words: readonly string[];
  word: string;
  weak: readonly string[];
  pred: readonly string[] | null;
  signals: DocSignals | undefined;
  across?: Across;
  /** Per weak source (a gazetteer, a rule), the label it gives each token ('O': it does not fire there). */
  sources?: readonly { name: string; labels: readonly string[] }[];
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

/**
 * The final model's uncertainty summed over the sentence's tokens: a sentence unsure throughout,
 * which favours long sentences. The simulated annotator's `uncertainty` ranks so
 * (core/guidedCorrection.ts uncertaintySum).
 */
export const uncertaintySumSignal: ReviewSignal = {
  ...uncertaintySignal,
  id: 'uncertainty-sum',
  title: 'the model is unsure throughout',
  score: 'sum',
  rankedBy: "its tokens' uncertainty, summed",
};

/**
 * Reach: the weak-label errors a sentence's correction is expected to fix once it travels ("apply
 * to all occurrences", "add to gazetteer"). Each phrase of a weak span, or of a span the run
 * predicts where the weak labels have none, counts the run's doubt of its weak labels times how
 * often the phrase occurs in the documents ranked, when that doubt is at least REACH_DOUBT. The
 * doubt of a token is read from the run's uncertainty u (1 − its largest probability): u where the
 * run agrees with the weak label, and 1 − u (a lower bound) where it does not. The simulated
 * annotator ranks the same way from the full probabilities (core/guidedCorrection.ts reachScore).
 */
export const reachSignal: ReviewSignal = {
  id: 'reach',
  title: 'correcting it reaches farthest',
  score: 'sum',
  cover: true,
  after: uncertaintySignal,
  rankedBy: 'the doubted weak labels its correction may fix, here and where the same words recur; then the least sure',
  present: (sg) => !!sg.uncertainty,
  across: (docs) => {
    // Per document, the spans starting at each token: its weak spans, and the run's where the weak labels have none.
    const starts = new Map<number, Map<number, Span[]>>();
    const phrases = new Set<string>();
    for (const d of docs) {
      const at = new Map<number, Span[]>();
      const weakAt = new Set(d.weak.map((x) => `${x.start}:${x.end}`));
      for (const span of [...d.weak, ...(d.predicted ?? []).filter((x) => !weakAt.has(`${x.start}:${x.end}`))]) {
        const list = at.get(span.start);
        if (list) list.push(span);
        else at.set(span.start, [span]);
        phrases.add(d.words.slice(span.start, span.end).join(' '));
      }
      starts.set(d.docId, at);
    }
    const counts = phraseCounts(
      docs.flatMap((d) => d.sentences.map(([a, b]) => d.words.slice(a, b))),
      phrases,
    );
    return { spansAt: (docId, t) => starts.get(docId)?.get(t) ?? [], occurrences: (p) => counts.get(p) ?? 0 };
  },
  flag: (t, { docId, words, weak, pred, signals, across }) => {
    const u = signals?.uncertainty;
    if (!across || !u || !pred) return undefined;
    let best: { value: number; why: string; key: string } | undefined;
    for (const span of across.spansAt(docId, t)) {
      let doubtOf = 0;
      for (let k = span.start; k < span.end; k++) doubtOf = Math.max(doubtOf, pred[k] === weak[k] ? u[k] : 1 - u[k]);
      if (doubtOf < REACH_DOUBT) continue;
      const phrase = words.slice(span.start, span.end).join(' ');
      const n = Math.max(1, across.occurrences(phrase));
      const value = doubtOf * n;
      if (!best || value > best.value)
        best = { value, key: phrase, why: `${phrase} (${n} occurrence${n === 1 ? '' : 's'}; weak ${weak[t]}, run ${pred[t]}, doubt ${fmt(doubtOf)})` };
    }
    return best;
  },
};

/**
 * The weak sources disagree: at a token where some source (a gazetteer, a rule) fires, another
 * fires with another type, or the label model's aggregate, the weak label ranked against, overrules
 * it (a fired source's type is not the aggregate's, or the aggregate leaves the token O). A source
 * that does not fire abstains; an untyped match (a source's or the aggregate's) agrees with any type. The value: how many
 * fired sources the aggregate overrules, at least 1 for a conflict among sources. It needs no run,
 * and unlike the run's disagreement it does not vanish on the run's own training sentences: the
 * queue of a project that has weak labels and no model yet.
 */
export const sourcesSignal: ReviewSignal = {
  id: 'sources',
  title: 'the weak sources disagree',
  score: 'sum',
  rankedBy: 'the sources the weak labels overrule, over its tokens',
  present: (_sg, _hasRun, hasSources) => !!hasSources,
  flag: (t, { word, weak, sources }) => {
    if (!sources?.length) return undefined;
    const fired = sources.filter((x) => x.labels[t] !== 'O');
    if (!fired.length) return undefined;
    const typed = new Set(fired.map((x) => x.labels[t]).filter((l) => l !== UNKNOWN_TYPE));
    const agrees = (l: string) => l === UNKNOWN_TYPE || weak[t] === UNKNOWN_TYPE || l === weak[t];
    const overruled = fired.filter((x) => weak[t] === 'O' || !agrees(x.labels[t]));
    if (!overruled.length && typed.size < 2) return undefined;
    const votes = fired.map((x) => `${x.name} ${x.labels[t] === UNKNOWN_TYPE ? 'an entity' : x.labels[t]}`).join(', ');
    return { value: Math.max(1, overruled.length), why: `${word} (${votes}; weak ${weak[t]})` };
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
  /** The spans of each weak source the weak layer aggregates (sourcesSignal), where they were read. */
  sources?: readonly { name: string; spans: readonly Span[] }[];
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
  /**
   * The tokens the queue outlines (document coordinates), in order: every flag where the signal
   * ranks by their count, else those the reasons name (the strongest four). The uncertainty
   * signals flag every token the model is not certain of, nearly all of them: outlining all of
   * them would mark nothing.
   */
  marked: number[];
}

/** How many of a queued sentence's flags its reasons name, the strongest first. */
const REASONS = 4;

/**
 * Sentences ranked by one signal: by the count of their flagged tokens, by their largest flag
 * value, or by the values' sum (the signal's `score`). A sentence the signal does not flag is left out.
 */
export function rankSentences(docs: readonly QueueDoc[], signal: ReviewSignal, limit = Infinity): QueueEntry[] {
  const out: QueueEntry[] = [];
  const keyed: Map<string, number>[] = [];
  const across = signal.across?.(docs);
  for (const d of docs) {
    const n = d.words.length;
    const weak = tokenLabels(d.weak, n);
    const pred = d.predicted ? tokenLabels(d.predicted, n) : null;
    // One context per document, its word set per token: a new object per token was most of the ranking's time.
    const sources = d.sources?.map((x) => ({ name: x.name, labels: tokenLabels(x.spans, n) }));
    const ctx: FlagContext = {
      docId: d.docId,
      words: d.words,
      word: '',
      weak,
      pred,
      signals: d.signals,
      ...(across ? { across } : {}),
      ...(sources ? { sources } : {}),
    };
    d.sentences.forEach(([a, b], si) => {
      const flagged: { t: number; value: number; why: string; key?: string }[] = [];
      for (let t = a; t < b; t++) {
        ctx.word = d.words[t];
        const f = signal.flag(t, ctx);
        if (f) flagged.push({ t, ...f });
      }
      if (!flagged.length) return;
      const byValue = [...flagged].sort((x, y) => y.value - x.value || x.t - y.t);
      const strongest = byValue.slice(0, REASONS);
      const score = signal.score === 'max' ? byValue[0].value : signal.score === 'sum' ? flagged.reduce((a, f) => a + f.value, 0) : flagged.length;
      out.push({
        docId: d.docId,
        name: d.name,
        sentence: si + 1,
        from: a,
        to: b,
        score,
        count: flagged.length,
        reasons: strongest.map((f) => f.why),
        flagged: flagged.map((f) => f.t),
        marked: (signal.score === 'count' ? flagged : strongest).map((f) => f.t).sort((x, y) => x - y),
      });
      if (signal.cover) {
        const phrases = new Map<string, number>();
        for (const f of flagged) {
          const key = f.key ?? `${d.docId}:${f.t}`;
          phrases.set(key, Math.max(phrases.get(key) ?? 0, f.value));
        }
        keyed.push(phrases);
      }
    });
  }
  if (signal.cover) {
    // Ties by position: the queue is the same each time it opens.
    const { order, worth } = coverOrder(
      keyed.map((phrases) => ({ own: 0, phrases })),
      null,
    );
    const first = order.map((i, k) => ({ ...out[i], score: worth[k] })).filter((e) => e.score > 0);
    if (!signal.after || first.length >= limit) return first.slice(0, limit);
    const taken = new Set(first.map((e) => `${e.docId}:${e.sentence}`));
    const rest = rankSentences(docs, signal.after).filter((e) => !taken.has(`${e.docId}:${e.sentence}`));
    return [...first, ...rest].slice(0, limit);
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
