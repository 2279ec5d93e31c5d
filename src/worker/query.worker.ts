/**
 * Queries that read whole tables (a project's counts, its label distribution, the review queue's
 * ranking) run here, off the page's thread: at 140,000 documents reading them froze the page for
 * seconds. Each is a Dexie live query, so it runs again when any tab or worker writes what it
 * read, and the page hears every new result.
 */
import * as Comlink from 'comlink';
import { liveQuery, type Subscription } from 'dexie';
import { labelDistributionRows } from '../db/distribution';
import { exportLayer, type ExportFormat } from '../db/exportLayer';
import { exportProject, projectFileName } from '../db/projectFile';
import { db } from '../db/instance';
import { projectCounts, projectStats } from '../db/repo';
import { correctionYieldOf, loopState, reviewProgress, reviewQueue, type ReviewQueueArgs } from '../db/review';
import { occurrencesOf, searchDocuments } from '../db/search';
import type { TagScheme } from '../core/types';

/** A project's document ids on a split (or all), in id order, as one typed array (moved to the page, not copied). */
async function documentIds(projectId: number, split: string): Promise<Uint32Array> {
  const keys =
    split === 'all'
      ? await db.documents.where('projectId').equals(projectId).primaryKeys()
      : await db.documents.where('[projectId+split]').equals([projectId, split]).primaryKeys();
  return Uint32Array.from(keys as number[]).sort();
}

export const QUERIES = {
  documentIds,
  projectCounts: (projectId: number) => projectCounts(db, projectId),
  projectStats: (projectId: number) => projectStats(db, projectId),
  labelDistribution: (projectId: number, split: string) => labelDistributionRows(db, projectId, split),
  searchDocuments: (projectId: number, query: string) => searchDocuments(db, projectId, query),
  occurrences: (projectId: number, docId: number, words: string[]) => occurrencesOf(db, projectId, docId, words),
  reviewQueue: (args: ReviewQueueArgs) => reviewQueue(db, args),
  exportLayer: (projectId: number, layerId: number, name: string, format: ExportFormat, scheme: TagScheme) =>
    exportLayer(db, projectId, layerId, name, format, scheme),
  /** The whole project as a file (db/projectFile.ts), and what it holds: a Blob made here, which reaches the page by reference, not copied on its thread. */
  exportProject: async (projectId: number) => {
    const f = await exportProject(db, projectId);
    const count = (n: number, what: string) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;
    return {
      name: projectFileName(f.project.name),
      blob: new Blob([JSON.stringify(f)], { type: 'application/json' }),
      message: `Exported ${count(f.documents.length, 'document')}, ${count(f.layers.length, 'label layer')}, ${count(f.gazetteers.length, 'gazetteer')}, ${count(f.rules.length, 'rule')} and the records of ${count(f.runs.length, 'finished run')} (their scores, curves and configs; not their models or predictions: train again where the copy is to predict).`,
    };
  },
  loopState: (projectId: number, layerName: string) => loopState(db, projectId, layerName),
  reviewProgress: (projectId: number, a: number | null, b: number | null) => reviewProgress(db, projectId, a, b),
  correctionYield: (projectId: number, layerName: string, weak: number | null) => correctionYieldOf(db, projectId, layerName, weak),
};

export type QueryName = keyof typeof QUERIES;
export type QueryArgs<N extends QueryName> = Parameters<(typeof QUERIES)[N]>;
export type QueryResult<N extends QueryName> = Awaited<ReturnType<(typeof QUERIES)[N]>>;

const watching = new Map<number, Subscription>();
let next = 0;

const api = {
  /** Typed by the page's useWorkerQuery; here a query is a name, its arguments and its results. */
  watch(name: QueryName, args: unknown[], onValue: (v: unknown) => void, onError: (message: string) => void): number {
    const id = ++next;
    const run = QUERIES[name] as (...a: unknown[]) => Promise<unknown>;
    watching.set(id, liveQuery(() => run(...args)).subscribe({ next: onValue, error: (e: unknown) => onError(e instanceof Error ? e.message : String(e)) }));
    return id;
  },
  /** One query's result, once (no live updates). */
  once(name: QueryName, args: unknown[]): Promise<unknown> {
    return (QUERIES[name] as (...a: unknown[]) => Promise<unknown>)(...args);
  },
  unwatch(id: number): void {
    watching.get(id)?.unsubscribe();
    watching.delete(id);
  },
};

export type QueryWorkerApi = typeof api;
Comlink.expose(api);
