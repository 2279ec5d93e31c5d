/**
 * What the review page and its loop read, in the query worker (src/worker/query.worker.ts), each a
 * live query there:
 * - the review queue: every document's words, sentences, weak and predicted spans and the run's
 *   signals, ranked by one signal. At CoNLL-2003 scale the ranking takes 100 ms or more
 *   (bench/review-queue.ts), so the page holds only what it shows: the first entries, each with its
 *   sentence's words and spans;
 * - the loop's state: how many sentences the corrections layer has reviewed on train, and the runs
 *   (every decision wakes it);
 * - annotation progress and two annotators' agreement.
 * At that scale, reading every document on the page's thread took 290-380 ms (bench/review-queue-browser.ts).
 */
import { agreementOf, progressOf, reviewSpeed, type EditorAnnotation } from '../core/progress';
import { correctionsIn, correctionYield, type CorrectionYield, sentenceChanged } from '../core/reviewLoop';
import { rankSentences, type DocSignals, type QueueDoc, type QueueEntry } from '../core/reviewSignals';
import { sentenceRanges, tokenTexts, type Span, type Split } from '../core/types';
import { REVIEW_SIGNALS, reviewSignal } from '../methods/reviewSignals';
import { eachRow, layerRows } from './layerStore';
import { layerAnnotations, runSignals } from './repo';
import type { AnnotationRow, LayerRow, RunRow, StudioDB } from './schema';

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
  /** How many more it would queue on dev and test, when they are left out (documents of no split are left out too, and not counted). */
  elsewhere: number;
  entries: QueueItem[];
  /** How long reading and ranking took, in ms, and when it finished (each new result is a new ranking). */
  readMs: number;
  rankMs: number;
  rankedAt: number;
}

/** Which signals a run's rows carry, or the documents do (`hasSources`: the weak layer aggregates source layers). */
export function signalsPresent(rows: readonly DocSignals[], hasRun: boolean, hasSources = false): string[] {
  return REVIEW_SIGNALS.filter((s) => s.present({}, hasRun, hasSources) || rows.some((r) => s.present(r, false))).map((s) => s.id);
}

/**
 * The queue's default signal, where the run carries it: the model's uncertainty, by a sentence's
 * least sure token, which the rule of bench/results/queue-loco.json chooses over every simulated
 * corpus by the dev gain of its corrections over as many random ones (bench/queue-loco.ts;
 * BENCHMARKS.md, "The queue as the studio ranks it"; with three seeds of tweets it chose reach,
 * with five this). Then reach, then disagreement: on its own training sentences a model mostly
 * reproduces the weak labels, so disagreement finds little there. With no run, the weak sources'
 * disagreement.
 */
export const DEFAULT_SIGNALS = ['uncertainty', 'reach', 'disagreement', 'sources'] as const;

export function defaultSignal(have: readonly string[]): string {
  return DEFAULT_SIGNALS.find((s) => have.includes(s)) ?? have[0] ?? 'disagreement';
}

const SPLITS: readonly Split[] = ['train', 'dev', 'test', 'unassigned'];

/**
 * Each document's name, words and sentences, by id, for one project: a document's text never
 * changes and IndexedDB never gives an id twice, so the queue reads only the documents it has not
 * seen, and otherwise only their ids per split (which a live query still watches). Reading and
 * splitting 14,041 documents' text each time the signal changed took most of 0.9 s.
 */
const seen: { db: StudioDB | null; projectId: number; docs: Map<number, { name: string; words: string[]; sentences: [number, number][] }> } = {
  db: null,
  projectId: -1,
  docs: new Map(),
};

/**
 * The weak source layers that the weak layer `weak` aggregates: the project's layers of role
 * 'source' when it is their aggregate (saveWeakLabels writes them together), else none.
 */
async function sourceLayers(db: StudioDB, projectId: number, weak: number): Promise<LayerRow[]> {
  const layers = await db.layers.where('[projectId+kind]').equals([projectId, 'weak']).sortBy('id');
  if (layers.find((l) => l.id === weak)?.role !== 'aggregate') return [];
  return layers.filter((l) => l.role === 'source');
}

/**
 * Every document of the project as the queue ranks it, with the split, and the signals the run
 * carries; with `withSources`, each document's spans of the weak sources too (sourcesSignal).
 */
export async function queueDocs(db: StudioDB, a: Pick<ReviewQueueArgs, 'projectId' | 'weak' | 'predLayer' | 'runId'>, withSources = false) {
  if (a.weak === null) return null;
  const split = new Map<number, Split>();
  for (const sp of SPLITS) for (const id of await db.documents.where('[projectId+split]').equals([a.projectId, sp]).primaryKeys()) split.set(id as number, sp);
  if (seen.db !== db || seen.projectId !== a.projectId) {
    seen.db = db;
    seen.projectId = a.projectId;
    seen.docs = new Map();
  }
  // This call's own reference: another project's query may replace the cache meanwhile.
  const cache = seen.docs;
  const missing = [...split.keys()].filter((id) => !cache.has(id));
  // Many unseen: one range read of the project's documents beats a point read each (see layerRows).
  const unseen = missing.length < 1000 ? await db.documents.bulkGet(missing) : await db.documents.where('projectId').equals(a.projectId).toArray();
  for (const d of unseen) if (d && !cache.has(d.id!)) cache.set(d.id!, { name: d.name, words: tokenTexts(d), sentences: sentenceRanges(d) });
  if (cache.size > split.size) for (const id of [...cache.keys()]) if (!split.has(id)) cache.delete(id);
  // A document deleted between the two reads is left out (the live query runs again for the deletion).
  const ids = [...split.keys()].filter((id) => cache.has(id)).sort((x, y) => x - y);
  const sources = await sourceLayers(db, a.projectId, a.weak);
  const [w, p, sig, bySource] = await Promise.all([
    layerAnnotations(db, a.weak, ids),
    a.predLayer === null ? Promise.resolve(null) : layerAnnotations(db, a.predLayer, ids),
    a.runId !== null ? runSignals(db, a.runId).toArray() : Promise.resolve([]),
    withSources ? Promise.all(sources.map((l) => layerAnnotations(db, l.id!, ids))) : Promise.resolve(null),
  ]);
  const byDoc = new Map(sig.map((s) => [s.docId, s]));
  return {
    docs: ids.map((id, k): QueueDoc & { split: string } => {
      const d = cache.get(id)!;
      return {
        docId: id,
        name: d.name,
        split: split.get(id)!,
        words: d.words,
        sentences: d.sentences,
        weak: w[k].spans,
        predicted: p?.[k].spans,
        signals: byDoc.get(id),
        ...(bySource ? { sources: sources.map((l, j) => ({ name: l.name, spans: bySource[j][k].spans })) } : {}),
      };
    }),
    have: signalsPresent(sig, a.predLayer !== null, sources.length > 0),
  };
}

const touching = (spans: readonly Span[], from: number, to: number) => spans.filter((s) => s.start < to && s.end > from);

/** The review queue: the documents read, ranked by the signal, its first `limit` entries with their sentences. */
export async function reviewQueue(db: StudioDB, a: ReviewQueueArgs): Promise<QueueView | null> {
  const t0 = performance.now();
  let data = await queueDocs(db, a, a.signal === 'sources');
  if (!data) return null;
  const signalId = a.signal ?? defaultSignal(data.have);
  // The default chose the sources' disagreement (no run): read their spans too.
  if (signalId === 'sources' && a.signal !== 'sources') data = (await queueDocs(db, a, true))!;
  const t1 = performance.now();
  const signal = reviewSignal(signalId);
  const train = a.allSplits ? data.docs : data.docs.filter((d) => d.split === 'train');
  const ranked = rankSentences(train, signal);
  const elsewhere = a.allSplits
    ? 0
    : rankSentences(
        data.docs.filter((d) => d.split === 'dev' || d.split === 'test'),
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

/**
 * What the review loop watches: the corrections layer (by name), how many sentences it has reviewed
 * on the train split (what the fine-tunes read as strong labels), and the project's training runs,
 * oldest first. Reads the layer's own rows and the train split's keys, not every document.
 */
export async function loopState(db: StudioDB, projectId: number, layerName: string): Promise<{ layerId: number | null; corrections: number; runs: RunRow[] }> {
  const runs = await db.runs
    .where('projectId')
    .equals(projectId)
    .filter((r) => r.kind === 'train')
    .sortBy('id');
  const layer = await db.layers
    .where('[projectId+kind]')
    .equals([projectId, 'corrected'])
    .filter((l) => l.name === layerName)
    .first();
  if (!layer) return { layerId: null, corrections: 0, runs };
  const train = new Set(await db.documents.where('[projectId+split]').equals([projectId, 'train']).primaryKeys());
  const rows: AnnotationRow[] = [];
  await eachRow(db, layer, (r) => {
    if (train.has(r.docId)) rows.push(r);
  });
  return { layerId: layer.id!, corrections: correctionsIn(rows as { reviewedAt?: Record<number, number> }[]), runs };
}

/**
 * What reviewing the corrections layer (by name) has found on the train split: how many reviewed
 * sentences changed their weak labels, overall and over the newest. A sentence's verdict is the
 * one kept when it was marked (`weakChanged`); a sentence reviewed before verdicts were kept is
 * compared with `weak` (the layer the queue compares against) as it is now. Reads the layer's own
 * rows, their documents' sentences and the weak layer's rows for those documents only; null
 * without a weak layer or a corrections layer.
 */
export async function correctionYieldOf(db: StudioDB, projectId: number, layerName: string, weak: number | null): Promise<CorrectionYield | null> {
  if (weak === null) return null;
  const layer = await db.layers
    .where('[projectId+kind]')
    .equals([projectId, 'corrected'])
    .filter((l) => l.name === layerName)
    .first();
  if (!layer) return null;
  const train = new Set(await db.documents.where('[projectId+split]').equals([projectId, 'train']).primaryKeys());
  const rows: AnnotationRow[] = [];
  await eachRow(db, layer, (r) => {
    if (train.has(r.docId) && Object.keys((r as EditorAnnotation).reviewedAt ?? {}).length) rows.push(r);
  });
  const ids = rows.map((r) => r.docId);
  const [docs, weakRows] = await Promise.all([db.documents.bulkGet(ids), layerAnnotations(db, weak, ids)]);
  const sentences: { at: number; changed: boolean }[] = [];
  rows.forEach((r, k) => {
    const doc = docs[k];
    if (!doc) return;
    const ends = new Map(sentenceRanges(doc));
    for (const [start, at] of Object.entries((r as EditorAnnotation).reviewedAt ?? {})) {
      const from = Number(start);
      const to = ends.get(from);
      const kept = (r as EditorAnnotation).weakChanged?.[from];
      if (to !== undefined) sentences.push({ at, changed: kept ?? sentenceChanged(r.spans, weakRows[k].spans, from, to) });
    }
  });
  return correctionYield(sentences);
}

/** Annotation progress of gold layer `a` per split and type, its review speed, and its agreement with layer `b` (null: none); null without `a`. */
export async function reviewProgress(db: StudioDB, projectId: number, a: number | null, b: number | null) {
  if (a === null) return null;
  const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
  const pdocs = docs.map((d) => ({ split: d.split, sentences: sentenceRanges(d) }));
  const ids = docs.map((d) => d.id!);
  const rows = async (l: number) => (await layerRows(db, l, ids)) as (EditorAnnotation | undefined)[];
  const annA = await rows(a);
  return {
    progress: progressOf(pdocs, annA),
    speed: reviewSpeed(annA.flatMap((x) => Object.values(x?.reviewedAt ?? {}))),
    agreement: b !== null && b !== a ? agreementOf(pdocs, annA, await rows(b)) : null,
  };
}
