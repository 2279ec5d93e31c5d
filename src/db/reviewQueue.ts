/**
 * The review queue of a project, read and ranked in the query worker (src/worker/query.worker.ts):
 * every document's words, sentences, weak and predicted spans and the run's signals, ranked by one
 * signal. At CoNLL-2003 scale the ranking takes 100 ms or more (bench/review-queue.ts), so the page
 * holds only what it shows: the first entries, each with its sentence's words and spans.
 */
import { rankSentences, type DocSignals, type QueueDoc, type QueueEntry } from '../core/reviewSignals';
import { sentenceRanges, tokenTexts, type Span } from '../core/types';
import { REVIEW_SIGNALS, reviewSignal } from '../methods/reviewSignals';
import { layerAnnotations, runSignals } from './repo';
import type { StudioDB } from './schema';

export interface ReviewQueueArgs {
  projectId: number;
  /** The weak layer the queue compares against; null: nothing to rank. */
  weak: number | null;
  /** The run's predicted layer, if it predicted the documents. */
  predLayer: number | null;
  runId: number | null;
  /** The signal to rank by; null: the default for what the run carries (uncertainty, else disagreement). */
  signal: string | null;
  /** Dev and test sentences too (their gold selects and scores the models, so they are left out by default). */
  allSplits: boolean;
  /** How many entries come back (the page shows 200). */
  limit: number;
}

/** A queued sentence with what the page draws and what a decision writes: its words and the spans that touch it. */
export interface QueueItem extends QueueEntry {
  /** The sentence's words: words[t − from] is token t. */
  words: string[];
  weak: Span[];
  predicted?: Span[];
}

export interface QueueView {
  /** The signal ranked by (the default's choice when none was asked). */
  signal: string;
  /** The signals the run's rows carry. */
  have: string[];
  /** How many sentences the signal queues (the entries are the first `limit`). */
  total: number;
  /** How many more it would queue on dev and test, when they are left out. */
  elsewhere: number;
  entries: QueueItem[];
  /** How long reading and ranking took, in ms, and when it finished (each new result is a new ranking). */
  readMs: number;
  rankMs: number;
  rankedAt: number;
}

/** Which signals a run's rows carry. */
export function signalsPresent(rows: readonly DocSignals[], hasRun: boolean): string[] {
  return REVIEW_SIGNALS.filter((s) => s.present({}, hasRun) || rows.some((r) => s.present(r, false))).map((s) => s.id);
}

/**
 * The queue's default signal: the model's uncertainty where the run carries it. On its own training
 * sentences a model mostly reproduces the weak labels, so disagreement finds little there, while
 * its least sure sentences had a weak-label error 88 to 100 % of the time in the simulated
 * annotator (BENCHMARKS.md).
 */
export function defaultSignal(have: readonly string[]): string {
  return have.includes('uncertainty') ? 'uncertainty' : have.includes('disagreement') ? 'disagreement' : (have[0] ?? 'disagreement');
}

/** Every document of the project as the queue ranks it, with the split, and the signals the run carries. */
export async function queueDocs(db: StudioDB, a: Pick<ReviewQueueArgs, 'projectId' | 'weak' | 'predLayer' | 'runId'>) {
  if (a.weak === null) return null;
  const docs = await db.documents.where('projectId').equals(a.projectId).sortBy('id');
  const ids = docs.map((d) => d.id!);
  const [w, p, sig] = await Promise.all([
    layerAnnotations(db, a.weak, ids),
    a.predLayer === null ? Promise.resolve(null) : layerAnnotations(db, a.predLayer, ids),
    a.runId !== null ? runSignals(db, a.runId).toArray() : Promise.resolve([]),
  ]);
  const byDoc = new Map(sig.map((s) => [s.docId, s]));
  return {
    docs: docs.map((d, k): QueueDoc & { split: string } => ({
      docId: d.id!,
      name: d.name,
      split: d.split,
      words: tokenTexts(d),
      sentences: sentenceRanges(d),
      weak: w[k].spans,
      predicted: p?.[k].spans,
      signals: byDoc.get(d.id!),
    })),
    have: signalsPresent(sig, a.predLayer !== null),
  };
}

const touching = (spans: readonly Span[], from: number, to: number) => spans.filter((s) => s.start < to && s.end > from);

/** The review queue: the documents read, ranked by the signal, its first `limit` entries with their sentences. */
export async function reviewQueue(db: StudioDB, a: ReviewQueueArgs): Promise<QueueView | null> {
  const t0 = performance.now();
  const data = await queueDocs(db, a);
  if (!data) return null;
  const t1 = performance.now();
  const signalId = a.signal ?? defaultSignal(data.have);
  const signal = reviewSignal(signalId);
  const train = a.allSplits ? data.docs : data.docs.filter((d) => d.split === 'train');
  const ranked = rankSentences(train, signal);
  const elsewhere = a.allSplits
    ? 0
    : rankSentences(
        data.docs.filter((d) => d.split !== 'train'),
        signal,
      ).length;
  const byId = new Map(data.docs.map((d) => [d.docId, d]));
  const entries = ranked.slice(0, a.limit).map((e): QueueItem => {
    const d = byId.get(e.docId)!;
    return {
      ...e,
      words: d.words.slice(e.from, e.to),
      weak: touching(d.weak, e.from, e.to),
      ...(d.predicted ? { predicted: touching(d.predicted, e.from, e.to) } : {}),
    };
  });
  const t2 = performance.now();
  return {
    signal: signalId,
    have: data.have,
    total: ranked.length,
    elsewhere,
    entries,
    readMs: Math.round(t1 - t0),
    rankMs: Math.round(t2 - t1),
    rankedAt: Date.now(),
  };
}
