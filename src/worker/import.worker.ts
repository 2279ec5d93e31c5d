/**
 * Imports off the page's thread: files are read, parsed, checked and stored here, so that a
 * corpus of 140,000 sentences never freezes the page. A parsed corpus whose checks need an answer
 * waits here, under an id, until the page stores or drops it.
 */
import * as Comlink from 'comlink';
import { parseCorpusImport, type CorpusFormat } from '../core/formats/importSpec';
import { readFileText } from '../core/formats/text';
import { importChecks } from '../core/importChecks';
import { parseRatios, splitByRatio } from '../core/splits';
import type { LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';
import { db } from '../db/instance';
import { importCorpus } from '../db/repo';
import { importProject, type ProjectFileImport, readProjectFile } from '../db/projectFile';

export interface ImportRequest {
  projectId: number;
  format: CorpusFormat;
  /** A split for every document, or a seeded draw by ratio ("80/10/10"). */
  split: Split | { ratios: string; seed: number };
  scheme: TagScheme;
  files: File[];
  labels: { file: File; kind: LayerKind; name: string }[];
  layer: { kind: LayerKind; name: string };
}

export interface ImportStored {
  documents: number;
  spans: number;
}

const waiting = new Map<number, ParsedCorpus>();
let next = 0;

async function store(projectId: number, corpus: ParsedCorpus): Promise<ImportStored> {
  const { documents } = await importCorpus(db, projectId, corpus);
  return { documents, spans: corpus.layers.reduce((a, l) => a + l.annotations.reduce((b, x) => b + x.spans.length, 0), 0) };
}

const api = {
  /** Parses and checks; stores at once when nothing needs an answer, else keeps the corpus and returns the checks. */
  async parse(r: ImportRequest): Promise<{ stored: ImportStored } | { id: number; checks: string[]; documents: number }> {
    const parsed = parseCorpusImport({
      format: r.format,
      split: typeof r.split === 'string' ? r.split : 'train',
      scheme: r.scheme,
      files: await Promise.all(r.files.map(readFileText)),
      labels: await Promise.all(r.labels.map(async (l) => ({ ...(await readFileText(l.file)), kind: l.kind, name: l.name }))),
      layer: r.layer,
    });
    // One file for every split: a seeded draw by ratio, the same for the same seed.
    const assigned = typeof r.split === 'string' ? null : splitByRatio(parsed.docs.length, parseRatios(r.split.ratios), r.split.seed);
    const corpus = assigned ? { ...parsed, docs: parsed.docs.map((d, k) => ({ ...d, split: assigned[k] })) } : parsed;
    const project = await db.projects.get(r.projectId);
    const checks = importChecks(corpus, project?.types.map((t) => t.name) ?? []);
    if (!checks.length) return { stored: await store(r.projectId, corpus) };
    const id = ++next;
    waiting.set(id, corpus);
    return { id, checks, documents: corpus.docs.length };
  },
  /** Stores a corpus kept by parse, after the user's answer. */
  async store(projectId: number, id: number): Promise<ImportStored> {
    const corpus = waiting.get(id);
    if (!corpus) throw new Error('the parsed files are gone (the page was reloaded?): import them again');
    waiting.delete(id);
    return store(projectId, corpus);
  },
  /** A project file (db/projectFile.ts), checked whole, then stored as a new project in one transaction. */
  async importProject(file: File): Promise<ProjectFileImport> {
    return importProject(db, readProjectFile((await readFileText(file)).text, file.name));
  },
  drop(id: number): void {
    waiting.delete(id);
  },
};

export type ImportWorkerApi = typeof api;
Comlink.expose(api);
