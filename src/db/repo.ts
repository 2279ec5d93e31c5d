import { STOP } from '../core/guidedCorrection';
import { publicGroup } from '../core/publicGazetteers';
import { makeLexicon, type Lexicon } from '../core/lexicon';
import { parseRunRecords, recordScores } from '../core/runRecord';
import type { EditorAnnotation } from '../core/progress';
import { decideSentence, labelOccurrences } from '../core/annotate';
import { sentenceChanged } from '../core/reviewLoop';
import type { ParsedGazetteer } from '../core/formats/gazetteer';
import type { Annotation, EntityType, LayerKind, ParsedCorpus, ParsedDoc, Span, Split, TagScheme } from '../core/types';
import { UNKNOWN_TYPE } from '../core/types';
import type { SourceOutput } from '../core/weak/aggregate';
import type { CaseMode } from '../core/weak/normalize';
import { reliabilityValues, ruleReliabilityValues, type SourceReliability } from '../core/weak/reliability';
import { caseUpToProblem } from '../core/weak/gazetteerMatcher';
import { compileRule, type Rule } from '../core/weak/rules';
import { deleteLayerRows, eachRow, layerRows, writePackedLayer } from './layerStore';
import type { DocumentRow, EmbeddingRow, EncoderRow, GazetteerRow, LayerRow, ProjectRow, RunRow, StudioDB } from './schema';

const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#800000', '#808000', '#000075'];

export function colorFor(k: number): string {
  return PALETTE[k % PALETTE.length];
}

function mergeTypes(existing: EntityType[], names: readonly string[]): EntityType[] {
  const out = [...existing];
  for (const n of names) if (n !== UNKNOWN_TYPE && !out.some((t) => t.name === n)) out.push({ name: n, color: colorFor(out.length) });
  return out;
}

export async function createProject(db: StudioDB, name: string, types: readonly string[] = [], scheme: TagScheme = 'BIO', demo = false): Promise<number> {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('a project needs a name');
  return db.projects.add({ name: trimmed, types: mergeTypes([], types), scheme, createdAt: Date.now(), demo });
}

/** Renames a project; the name is checked as typed (ProjectsPage, Overview), and again here. */
export async function renameProject(db: StudioDB, projectId: number, name: string): Promise<void> {
  const trimmed = name.trim();
  if (!trimmed) throw new Error('a project needs a name');
  if (!(await db.projects.update(projectId, { name: trimmed }))) throw new Error(`project ${projectId} does not exist`);
}

/** Deletes a project and everything it owns, in one transaction. */
export async function deleteProject(db: StudioDB, projectId: number): Promise<void> {
  await db.transaction(
    'rw',
    [
      db.projects,
      db.documents,
      db.layers,
      db.annotations,
      db.layerChunks,
      db.gazetteers,
      db.gazetteerEntries,
      db.rules,
      db.runs,
      db.models,
      db.signals,
      db.encoders,
      db.embeddings,
    ],
    async () => {
      const layerIds = await db.layers.where('projectId').equals(projectId).primaryKeys();
      for (const lid of layerIds) await deleteLayerRows(db, lid);
      await db.layers.where('projectId').equals(projectId).delete();
      await db.documents.where('projectId').equals(projectId).delete();
      const gz = await db.gazetteers.where('projectId').equals(projectId).primaryKeys();
      await db.gazetteerEntries.where('gazetteerId').anyOf(gz).delete();
      await db.gazetteers.where('projectId').equals(projectId).delete();
      await db.rules.where('projectId').equals(projectId).delete();
      const runs = await db.runs.where('projectId').equals(projectId).primaryKeys();
      await db.models.where('runId').anyOf(runs).delete();
      for (const r of runs) await runSignals(db, r).delete();
      await db.runs.where('projectId').equals(projectId).delete();
      await db.encoders.where('projectId').equals(projectId).delete();
      await db.embeddings.delete(projectId);
      await db.projects.delete(projectId);
    },
  );
}

/** A run's signal rows, by the key's prefix. */
export function runSignals(db: StudioDB, runId: number) {
  return db.signals.where('[runId+docId]').between([runId, -Infinity], [runId, Infinity]);
}

async function layerId(db: StudioDB, projectId: number, kind: LayerKind, name: string, role?: LayerRow['role']): Promise<number> {
  const found = await db.layers
    .where('[projectId+kind]')
    .equals([projectId, kind])
    .filter((l) => l.name === name)
    .first();
  return found?.id ?? db.layers.add({ projectId, kind, name, role, createdAt: Date.now() });
}

/**
 * Adds a parsed corpus to a project: documents, their label layers and any new types, all in one
 * transaction, so a failure leaves the project exactly as it was.
 */
export async function importCorpus(db: StudioDB, projectId: number, corpus: ParsedCorpus): Promise<{ documents: number; docIds: number[] }> {
  return db.transaction('rw', [db.projects, db.documents, db.layers, db.annotations], async () => {
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    const rows: DocumentRow[] = corpus.docs.map((d) => ({
      projectId,
      name: d.name,
      text: d.text,
      offsets: d.offsets instanceof Uint32Array ? d.offsets : Uint32Array.from(d.offsets),
      sentenceStarts: d.sentenceStarts,
      split: d.split,
      tokenCount: d.offsets.length >> 1,
    }));
    const docIds = (await db.documents.bulkAdd(rows, { allKeys: true })) as number[];
    for (const layer of corpus.layers) {
      const lid = await layerId(db, projectId, layer.kind, layer.name);
      await db.annotations.bulkPut(layer.annotations.map((a, k) => ({ ...a, layerId: lid, docId: docIds[k] })));
    }
    await db.projects.update(projectId, { types: mergeTypes(project.types, corpus.types) });
    return { documents: docIds.length, docIds };
  });
}

/**
 * The project's gazetteers (each in its own case mode) and, with `withRules`, its enabled rules,
 * as the dictionary a model reads (src/core/lexicon.ts); null when it has neither.
 */
export async function projectLexicon(db: StudioDB, projectId: number, withRules = true, trust?: SourceReliability): Promise<Lexicon | null> {
  // A stop list says what is not an entity: no dictionary feature of its own, and no other
  // gazetteer's or rule's match of its phrases either (as in the weak labels).
  const all = await db.gazetteers.where('projectId').equals(projectId).sortBy('priority');
  const gazetteers = all.filter((g) => !g.stop);
  const stopIds = all.filter((g) => g.stop).map((g) => g.id!);
  const stop = stopIds.length ? (await db.gazetteerEntries.where('gazetteerId').anyOf(stopIds).toArray()).map((e) => e.phrase) : [];
  // A source's trust is by the project's type; a public list's matches are read as a group of their own.
  const trustOf = (g: GazetteerRow) => {
    const values = reliabilityValues(trust?.[g.name]);
    if (!values) return {};
    return { reliability: g.public ? Object.fromEntries(Object.entries(values).map(([t, v]) => [publicGroup(t, g.public!.list), v])) : values };
  };
  const sources = await Promise.all(
    gazetteers.map(async (g) => ({
      mode: g.mode,
      ...(g.caseUpTo ? { caseUpTo: g.caseUpTo } : {}),
      ...trustOf(g),
      entries: (await db.gazetteerEntries.where('gazetteerId').equals(g.id!).toArray()).map((e) => ({
        words: e.phrase.split(' '),
        // A public list's matches are a feature group of their own: the model learns what they are worth.
        type: g.public && e.type !== null ? publicGroup(e.type, g.public.list) : e.type,
      })),
    })),
  );
  const withEntries = sources.filter((s) => s.entries.length);
  // The enabled rules, in their order: their matches count as matches of their label.
  const rules = withRules ? (await db.rules.where('projectId').equals(projectId).sortBy('priority')).filter((r) => r.enabled).map((r) => r.rule) : [];
  return withEntries.length || rules.length ? makeLexicon(withEntries, rules, stop, trust && ruleReliabilityValues(trust, rules)) : null;
}

/**
 * Each weak source's trust as the HMM of the newest finished weak labels run estimated it (the
 * Weak labels page's column); null where that run estimated none (priority or the vote) or there
 * is no such run.
 */
/** The project's newest finished weak labels run: what made its weak labels (its options, its sources' statistics, its HMM). */
export async function newestWeakRun(db: StudioDB, projectId: number): Promise<RunRow | undefined> {
  return (await db.runs.where('projectId').equals(projectId).toArray()).filter((r) => r.kind === 'weak' && r.status === 'done').at(-1);
}

export async function weakSourceTrust(db: StudioDB, projectId: number): Promise<SourceReliability | null> {
  const last = await newestWeakRun(db, projectId);
  const sources = (last?.metrics as { sources?: { name: string; reliability?: SourceReliability[string] }[] } | undefined)?.sources ?? [];
  const withTrust = sources.filter((x) => x.reliability);
  return withTrust.length ? Object.fromEntries(withTrust.map((x) => [x.name, x.reliability!])) : null;
}

export async function importGazetteer(db: StudioDB, projectId: number, name: string, mode: CaseMode, parsed: ParsedGazetteer): Promise<number> {
  return db.transaction('rw', [db.projects, db.gazetteers, db.gazetteerEntries, db.rules], async () => {
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    const priority = await db.gazetteers.where('projectId').equals(projectId).count();
    const gid = await db.gazetteers.add({ projectId, name, mode, priority, createdAt: Date.now() });
    await db.gazetteerEntries.bulkAdd(parsed.entries.map((e) => ({ gazetteerId: gid, phrase: e.phrase, type: e.type })));
    const rulesBefore = await db.rules.where('projectId').equals(projectId).count();
    await db.rules.bulkAdd(
      parsed.patterns.map((p, k) => ({
        projectId,
        priority: rulesBefore + k,
        enabled: true,
        rule: { kind: 'tokens' as const, name: `${name}:${p.line}`, label: p.label, pattern: p.pattern },
      })),
    );
    const types = [...parsed.entries.map((e) => e.type).filter((t): t is string => t !== null), ...parsed.patterns.map((p) => p.label)];
    await db.projects.update(projectId, { types: mergeTypes(project.types, types) });
    return gid;
  });
}

/**
 * A list of the public gazetteer library added to a project in one transaction, its phrases typed
 * `type` (one of the project's types): a weak source like any gazetteer unless `featuresOnly`,
 * and dictionary features of its own group. A list is added once per project.
 */
export async function addPublicGazetteer(
  db: StudioDB,
  projectId: number,
  o: { list: string; title: string; source: string; type: string; featuresOnly: boolean; phrases: readonly string[] },
): Promise<number> {
  return db.transaction('rw', [db.projects, db.gazetteers, db.gazetteerEntries], async () => {
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    if (!project.types.some((t) => t.name === o.type))
      throw new Error(`"${o.type}" is not a type of this project: choose one of ${project.types.map((t) => t.name).join(', ')}`);
    const have = await db.gazetteers.where('projectId').equals(projectId).toArray();
    if (have.some((g) => g.public?.list === o.list)) throw new Error(`the public list "${o.title}" is in this project already`);
    const gid = await db.gazetteers.add({
      projectId,
      name: `public: ${o.title}`,
      mode: 'sensitive',
      priority: have.length,
      createdAt: Date.now(),
      public: { list: o.list, type: o.type, featuresOnly: o.featuresOnly, source: o.source },
    });
    await db.gazetteerEntries.bulkAdd(o.phrases.map((phrase) => ({ gazetteerId: gid, phrase, type: o.type })));
    return gid;
  });
}

export async function addRule(db: StudioDB, projectId: number, rule: Rule): Promise<number> {
  compileRule(rule); // refused on entry, naming the rule and the fault, not at labeling time
  return db.transaction('rw', [db.projects, db.rules], async () => {
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    const taken = await db.rules
      .where('projectId')
      .equals(projectId)
      .filter((r) => r.rule.name === rule.name)
      .count();
    if (taken) throw new Error(`a rule named "${rule.name}" exists already`);
    const priority = await db.rules.where('projectId').equals(projectId).count();
    await db.projects.update(projectId, { types: mergeTypes(project.types, [rule.label]) });
    return db.rules.add({ projectId, priority, rule, enabled: true });
  });
}

export async function addType(db: StudioDB, projectId: number, name: string): Promise<void> {
  const p = await db.projects.get(projectId);
  if (!p) throw new Error(`project ${projectId} does not exist`);
  await db.projects.update(projectId, { types: mergeTypes(p.types, [name]) });
}

/**
 * Replaces the project's weak layers with a new labeling: one layer per source and the
 * aggregate, in one transaction. Gold, corrected and predicted layers are never touched.
 */
export async function saveWeakLabels(
  db: StudioDB,
  projectId: number,
  docIds: readonly number[],
  sources: readonly SourceOutput[],
  aggregate: readonly Annotation[],
  method: string,
): Promise<void> {
  await db.transaction('rw', [db.layers, db.annotations, db.layerChunks], async () => {
    const old = await db.layers.where('[projectId+kind]').equals([projectId, 'weak']).toArray();
    for (const l of old) await deleteLayerRows(db, l.id!);
    await db.layers.bulkDelete(old.map((l) => l.id!));
    const now = Date.now();
    for (const src of sources) {
      const lid = await db.layers.add({ projectId, kind: 'weak', name: src.name, role: 'source', createdAt: now, packed: true });
      await writePackedLayer(
        db,
        lid,
        docIds,
        src.spans.map((spans) => ({ spans, oMode: 'complete' as const })),
      );
    }
    const aid = await db.layers.add({ projectId, kind: 'weak', name: `aggregate (${method})`, role: 'aggregate', createdAt: now, packed: true });
    await writePackedLayer(db, aid, docIds, aggregate);
  });
}

export interface ProjectStats {
  documents: number;
  tokens: number;
  /** Sentences over every document (as many as documents: a corpus of one sentence a document, as files of lines are). */
  sentences: number;
  bySplit: Record<Split, { documents: number; tokens: number }>;
  /**
   * Per layer: the documents it annotates (devDocuments: those on the dev split), its spans, by
   * type, and its typed spans (not of the unknown type) on the train and dev splits: what a run
   * needs of its training and gold layers.
   */
  layers: LayerStats[];
}

export interface LayerStats {
  id: number;
  kind: LayerKind;
  name: string;
  role?: string;
  documents: number;
  devDocuments: number;
  spans: number;
  perType: Record<string, number>;
  trainSpans: number;
  devSpans: number;
}

/** Documents per split, from the index alone: fast at any size (projectStats reads every row). */
export async function projectCounts(db: StudioDB, projectId: number): Promise<{ documents: number; bySplit: Record<Split, number> }> {
  const splits = ['train', 'dev', 'test', 'unassigned'] as const;
  const n = await Promise.all(splits.map((s) => db.documents.where('[projectId+split]').equals([projectId, s]).count()));
  return { documents: n.reduce((a, b) => a + b, 0), bySplit: Object.fromEntries(splits.map((s, k) => [s, n[k]])) as Record<Split, number> };
}

export async function projectStats(db: StudioDB, projectId: number): Promise<ProjectStats> {
  const bySplit: ProjectStats['bySplit'] = {
    train: { documents: 0, tokens: 0 },
    dev: { documents: 0, tokens: 0 },
    test: { documents: 0, tokens: 0 },
    unassigned: { documents: 0, tokens: 0 },
  };
  let documents = 0;
  let tokens = 0;
  let sentences = 0;
  const devIds = new Set<number>();
  const trainIds = new Set<number>();
  await db.documents
    .where('projectId')
    .equals(projectId)
    .each((d) => {
      if (d.split === 'dev') devIds.add(d.id!);
      if (d.split === 'train') trainIds.add(d.id!);
      documents++;
      tokens += d.tokenCount;
      sentences += Math.max(d.sentenceStarts.length, 1);
      bySplit[d.split].documents++;
      bySplit[d.split].tokens += d.tokenCount;
    });
  const layers = await db.layers.where('projectId').equals(projectId).toArray();
  const out: ProjectStats['layers'] = [];
  for (const l of layers) {
    const perType: Record<string, number> = {};
    let spans = 0;
    let docs = 0;
    let dev = 0;
    let trainSpans = 0;
    let devSpans = 0;
    await eachRow(db, l, (a) => {
      docs++;
      const onDev = devIds.has(a.docId);
      const onTrain = trainIds.has(a.docId);
      if (onDev) dev++;
      for (const s of a.spans) {
        spans++;
        perType[s.label] = (perType[s.label] ?? 0) + 1;
        if (s.label === UNKNOWN_TYPE) continue;
        if (onTrain) trainSpans++;
        if (onDev) devSpans++;
      }
    });
    out.push({ id: l.id!, kind: l.kind, name: l.name, role: l.role, documents: docs, devDocuments: dev, spans, perType, trainSpans, devSpans });
  }
  return { documents, tokens, sentences, bySplit, layers: out };
}

export function toParsedDoc(d: DocumentRow): ParsedDoc {
  return { name: d.name, text: d.text, offsets: d.offsets, sentenceStarts: d.sentenceStarts, split: d.split };
}

/** A layer's annotations for a list of documents, in that order; a document without one gets none. */
export async function layerAnnotations(db: StudioDB, layerId: number, docIds: readonly number[]): Promise<Annotation[]> {
  const rows = await layerRows(db, layerId, docIds);
  return rows.map((r) => r ?? { spans: [] as Span[], oMode: 'partial' as const, oTokens: [] });
}

/** How many dev-split documents of a project carry gold spans (what choosing a label model on dev reads). */
export async function devGoldDocuments(db: StudioDB, projectId: number): Promise<number> {
  const goldLayer = await db.layers.where('[projectId+kind]').equals([projectId, 'gold']).first();
  if (!goldLayer) return 0;
  const dev = await db.documents
    .where('projectId')
    .equals(projectId)
    .filter((d) => d.split === 'dev')
    .primaryKeys();
  const anns = await layerAnnotations(db, goldLayer.id!, dev as number[]);
  return anns.filter((a) => a.spans.length).length;
}

export async function projectOrThrow(db: StudioDB, projectId: number): Promise<ProjectRow> {
  const p = await db.projects.get(projectId);
  if (!p) throw new Error(`project ${projectId} does not exist`);
  return p;
}

export async function deleteGazetteer(db: StudioDB, gazetteerId: number): Promise<void> {
  await db.transaction('rw', [db.gazetteers, db.gazetteerEntries], async () => {
    await db.gazetteerEntries.where('gazetteerId').equals(gazetteerId).delete();
    await db.gazetteers.delete(gazetteerId);
  });
}

/** A phrase as a gazetteer keeps it: single spaces, no space at either end. */
const cleanPhrase = (phrase: string) => phrase.trim().split(/\s+/).join(' ');

/** Whether a gazetteer lists the (clean) phrase with this type (null: untyped). */
async function isListed(db: StudioDB, gazetteerId: number, clean: string, type: string | null): Promise<boolean> {
  return (
    (await db.gazetteerEntries
      .where('[gazetteerId+phrase]')
      .equals([gazetteerId, clean])
      .filter((e) => e.type === type)
      .count()) > 0
  );
}

export async function addGazetteerEntry(db: StudioDB, gazetteerId: number, phrase: string, type: string | null): Promise<number> {
  const clean = cleanPhrase(phrase);
  if (!clean) throw new Error('the phrase is empty');
  return db.transaction('rw', [db.gazetteers, db.gazetteerEntries, db.projects], async () => {
    const g = await db.gazetteers.get(gazetteerId);
    if (!g) throw new Error(`gazetteer ${gazetteerId} does not exist`);
    if (await isListed(db, gazetteerId, clean, type)) throw new Error(`"${clean}" is already listed${type ? ` as ${type}` : ''}`);
    if (type) await addType(db, g.projectId, type);
    return db.gazetteerEntries.add({ gazetteerId, phrase: clean, type });
  });
}

/** The project's corrections gazetteer (typed) or its stop list (untyped), if it has made one. */
function annotatorList(db: StudioDB, projectId: number, stop: boolean) {
  return db.gazetteers
    .where('projectId')
    .equals(projectId)
    .filter((g) => (stop ? !!g.stop : g.name === 'corrections'))
    .first();
}

/** Whether the project has a gazetteer of its own: not the annotator's corrections gazetteer or stop list, nor a list of the public library. */
export async function hasOwnGazetteer(db: StudioDB, projectId: number): Promise<boolean> {
  return (
    (await db.gazetteers
      .where('projectId')
      .equals(projectId)
      .filter((g) => !g.stop && !g.public && g.name !== 'corrections')
      .count()) > 0
  );
}

/**
 * Adds a phrase to the project's "corrections" gazetteer (made on first use, case-sensitive, after
 * the others in priority), in one transaction: the editor's "add to gazetteer". Returns the entry's id (its undo removes it).
 */
export async function addToCorrectionsGazetteer(db: StudioDB, projectId: number, phrase: string, type: string): Promise<number> {
  return db.transaction('rw', [db.projects, db.gazetteers, db.gazetteerEntries, db.rules], async () => {
    let gid = (await annotatorList(db, projectId, false))?.id;
    if (gid === undefined) {
      // The annotator's word wins ties over every other gazetteer (a lower priority wins).
      const first = (await db.gazetteers.where('projectId').equals(projectId).sortBy('priority'))[0];
      gid = await importGazetteer(db, projectId, 'corrections', 'sensitive', { entries: [], patterns: [] });
      await db.gazetteers.update(gid, { priority: (first?.priority ?? 0) - 1 });
    }
    return addGazetteerEntry(db, gid, phrase, type);
  });
}

/**
 * Adds a phrase to the project's stop list (a gazetteer marked `stop`, made on first use): weak
 * labeling drops every source's match of exactly these words. The editor's "add to the stop list".
 */
export async function addToStopList(db: StudioDB, projectId: number, phrase: string): Promise<number> {
  return db.transaction('rw', [db.projects, db.gazetteers, db.gazetteerEntries], async () => {
    const gid =
      (await annotatorList(db, projectId, true))?.id ??
      (await db.gazetteers.add({ projectId, name: 'stop list', mode: 'sensitive', priority: -1_000_000, createdAt: Date.now(), stop: true }));
    return addGazetteerEntry(db, gid, phrase, null);
  });
}

/**
 * The review queue's "into the dictionary": each typed phrase into the corrections gazetteer, each
 * STOP phrase into the stop list (core/guidedCorrection.ts phraseRules), all in one transaction.
 * A phrase already listed there with that answer is skipped. Returns the new entries' ids (one undo
 * removes them all: removeGazetteerEntries) and the phrases skipped.
 */
export async function addPhrasesToDictionary(
  db: StudioDB,
  projectId: number,
  rules: ReadonlyMap<string, string>,
): Promise<{ entries: number[]; skipped: string[] }> {
  return db.transaction('rw', [db.projects, db.gazetteers, db.gazetteerEntries, db.rules], async () => {
    const entries: number[] = [];
    const skipped: string[] = [];
    for (const [phrase, answer] of rules) {
      const type = answer === STOP ? null : answer;
      const list = await annotatorList(db, projectId, type === null);
      const clean = cleanPhrase(phrase);
      if (list && (await isListed(db, list.id!, clean, type))) skipped.push(clean);
      else entries.push(type === null ? await addToStopList(db, projectId, clean) : await addToCorrectionsGazetteer(db, projectId, clean, type));
    }
    return { entries, skipped };
  });
}

/** Removes gazetteer entries in one transaction (the undo of addPhrasesToDictionary). */
export async function removeGazetteerEntries(db: StudioDB, entryIds: readonly number[]): Promise<void> {
  await db.gazetteerEntries.bulkDelete([...entryIds]);
}

export async function retypeGazetteerEntry(db: StudioDB, entryId: number, type: string | null): Promise<void> {
  const n = await db.gazetteerEntries.update(entryId, { type });
  if (!n) throw new Error(`entry ${entryId} does not exist`);
}

export async function removeGazetteerEntry(db: StudioDB, entryId: number): Promise<void> {
  await db.gazetteerEntries.delete(entryId);
}

/**
 * Experiment records (JSONL from the `experiment` verb) as finished training runs of a project,
 * all or nothing: every line is validated before anything is written.
 */
export async function importRunRecords(db: StudioDB, projectId: number, file: string, text: string): Promise<number> {
  const records = parseRunRecords(file, text);
  if (!records.length) throw new Error(`${file}: no records`);
  await projectOrThrow(db, projectId);
  const now = Date.now();
  await db.transaction('rw', db.runs, async () => {
    for (const r of records) {
      // A distant setting's weak labels exist on train only; their row says so wherever it is shown.
      const name = r.split === 'train' ? `${r.key} (scored on the train split, not test)` : r.key;
      const config = { ...(r.config ?? {}), name, imported: { file, setting: r.setting, label: r.label, seed: r.seed, split: r.split } };
      const history = r.stages.flatMap((s) => s.history ?? []);
      const metrics = {
        backend: 'wasm (CLI)',
        backendReason: `imported from ${file}`,
        history,
        stepLosses: [],
        test: recordScores(r.test),
        dev: r.dev ? recordScores(r.dev) : undefined,
        stages: r.stages,
        tokensPerSecond: r.tokensPerSecond,
        wallSeconds: r.wallSeconds,
      };
      await db.runs.add({ projectId, kind: 'train', config, status: 'done', metrics, createdAt: now, finishedAt: Date.parse(r.finishedAt) || now });
    }
  });
  return records.length;
}

/** An annotator's gold layer, created on first use. */
export async function goldLayer(db: StudioDB, projectId: number, name: string): Promise<number> {
  return db.transaction('rw', db.layers, () => layerId(db, projectId, 'gold', name));
}

/** The id of a corrections layer (kind "corrected"), made on first use: what the review queue and the editor opened from it write. */
export async function correctionsLayer(db: StudioDB, projectId: number, name: string): Promise<number> {
  return db.transaction('rw', db.layers, () => layerId(db, projectId, 'corrected', name));
}

/** Writes one document's annotation in a layer (an editor's every change; partial O: unreviewed tokens stay undecided). */
export async function saveAnnotation(
  db: StudioDB,
  layerId: number,
  docId: number,
  spans: Span[],
  oTokens: number[],
  extra: Pick<EditorAnnotation, 'reviewedAt' | 'rejected' | 'weakChanged'> = {},
): Promise<void> {
  await db.annotations.put({ layerId, docId, spans, oMode: 'partial', oTokens, ...extra });
}

/**
 * Runs stored as "running" that no page is training (none holds their lock: `held` are the lock
 * names held now, from navigator.locks.query) become "interrupted", so the studio says so and
 * offers to resume them; returns their ids.
 */
export async function markInterruptedRuns(db: StudioDB, held: ReadonlySet<string>, lockName: (runId: number) => string): Promise<number[]> {
  return db.transaction('rw', db.runs, async () => {
    const dead = (await db.runs.where('status').equals('running').toArray()).filter((r) => !held.has(lockName(r.id!)));
    for (const r of dead) await db.runs.update(r.id!, { status: 'interrupted', error: 'the page was closed or reloaded while it trained' });
    return dead.map((r) => r.id!);
  });
}

/** Moves documents of a project to a split, in one transaction; returns how many moved. */
export async function moveDocuments(db: StudioDB, projectId: number, moves: readonly { docId: number; split: Split }[]): Promise<number> {
  return db.transaction('rw', db.documents, async () => {
    const docs = await db.documents.bulkGet(moves.map((m) => m.docId));
    const bad = moves.find((_, k) => docs[k]?.projectId !== projectId);
    if (bad) throw new Error(`document ${bad.docId} is not in project ${projectId}`);
    let moved = 0;
    for (const [k, m] of moves.entries()) {
      if (docs[k]!.split === m.split) continue;
      await db.documents.update(m.docId, { split: m.split });
      moved++;
    }
    return moved;
  });
}

/** A document's row in a layer as it was before a change, for the change's undo (`row` undefined: there was none). */
export interface RowBefore {
  layerId: number;
  docId: number;
  row: EditorAnnotation | undefined;
}

/**
 * Writes a decision on one sentence into an annotator's layer of corrections (kind "corrected",
 * made on first use), in one transaction: the sentence's spans become `spans`, its other tokens
 * definite O, and it counts as reviewed now. The rest of the document's annotation is kept.
 * With `weak`, the weak labels the decision was made against (those touching the sentence), it
 * also keeps whether the decision changed them (`weakChanged`: what reviewing found).
 * Returns the row as it was, for the undo (restoreRows). Training reads such a layer as strong
 * labels for the sentences it settles (mergeCorrections); gold layers stay the annotator's own.
 */
export async function decideSentenceInLayer(
  db: StudioDB,
  projectId: number,
  layerName: string,
  docId: number,
  from: number,
  to: number,
  spans: readonly Span[],
  weak?: readonly Span[],
): Promise<RowBefore> {
  return db.transaction('rw', [db.layers, db.annotations], async () => {
    const lid = await layerId(db, projectId, 'corrected', layerName);
    const own = (await db.annotations.get([lid, docId])) as (EditorAnnotation & { layerId: number; docId: number }) | undefined;
    const next = decideSentence({ spans: own?.spans ?? [], oTokens: own?.oTokens ?? [] }, from, to, spans);
    const weakChanged = weak ? { ...own?.weakChanged, [from]: sentenceChanged(next.spans, weak, from, to) } : own?.weakChanged;
    const row: EditorAnnotation & { layerId: number; docId: number } = {
      layerId: lid,
      docId,
      spans: next.spans,
      oMode: 'partial',
      oTokens: next.oTokens,
      reviewedAt: { ...own?.reviewedAt, [from]: Date.now() },
      rejected: own?.rejected ?? [],
      ...(weakChanged ? { weakChanged } : {}),
    };
    await db.annotations.put(row);
    return { layerId: lid, docId, row: own };
  });
}

/**
 * Labels occurrences of a phrase in other documents of a layer, in one transaction (the editor's
 * "apply to all occurrences"): each document's row gets the spans, replacing what they overlap.
 * Returns the rows as they were, for the one undo of the whole change (restoreRows).
 */
export async function labelEverywhere(
  db: StudioDB,
  layerId: number,
  occurrences: readonly { docId: number; start: number; end: number }[],
  label: string,
): Promise<RowBefore[]> {
  const byDoc = new Map<number, { start: number; end: number }[]>();
  for (const o of occurrences) byDoc.set(o.docId, [...(byDoc.get(o.docId) ?? []), o]);
  return db.transaction('rw', db.annotations, async () => {
    const before: RowBefore[] = [];
    for (const [docId, occ] of byDoc) {
      const own = (await db.annotations.get([layerId, docId])) as (EditorAnnotation & { layerId: number; docId: number }) | undefined;
      const next = labelOccurrences({ spans: own?.spans ?? [], oTokens: own?.oTokens ?? [] }, occ, label);
      await db.annotations.put({ ...own, layerId, docId, spans: next.spans, oMode: 'partial', oTokens: next.oTokens });
      before.push({ layerId, docId, row: own });
    }
    return before;
  });
}

/** Puts rows back as they were before a change (an undo), all in one transaction. */
export async function restoreRows(db: StudioDB, before: readonly RowBefore[]): Promise<void> {
  await db.transaction('rw', db.annotations, async () => {
    for (const b of before) {
      if (b.row) await db.annotations.put({ ...b.row, layerId: b.layerId, docId: b.docId });
      else await db.annotations.delete([b.layerId, b.docId]);
    }
  });
}

/** Keeps a project's pre-trained encoder, in place of any earlier one with the same key. */
export async function saveEncoder(db: StudioDB, row: Omit<EncoderRow, 'id'>): Promise<number> {
  return db.transaction('rw', db.encoders, async () => {
    await db.encoders
      .where('key')
      .equals(row.key)
      .filter((e) => e.projectId === row.projectId)
      .delete();
    return db.encoders.add(row);
  });
}

/** A project's pre-trained encoder with this key, if one was kept. */
export async function findEncoder(db: StudioDB, projectId: number, key: string): Promise<EncoderRow | undefined> {
  return db.encoders
    .where('key')
    .equals(key)
    .filter((e) => e.projectId === projectId)
    .first();
}

export async function deleteEncoder(db: StudioDB, id: number): Promise<void> {
  await db.encoders.delete(id);
}

/** Keeps a project's trimmed word vectors (one row per project). */
export async function saveEmbeddings(db: StudioDB, row: EmbeddingRow): Promise<void> {
  await db.embeddings.put(row);
}

export async function setRuleEnabled(db: StudioDB, ruleId: number, enabled: boolean): Promise<void> {
  await db.rules.update(ruleId, { enabled });
}

export async function deleteRule(db: StudioDB, ruleId: number): Promise<void> {
  await db.rules.delete(ruleId);
}

/** A gazetteer's case mode or priority. */
export async function updateGazetteer(
  db: StudioDB,
  gazetteerId: number,
  changes: Partial<Pick<GazetteerRow, 'mode' | 'priority' | 'caseUpTo'>>,
): Promise<void> {
  if ('caseUpTo' in changes) {
    const problem = caseUpToProblem(changes.caseUpTo);
    if (problem) throw new Error(problem);
  }
  // Dexie deletes a key updated to undefined: "off" leaves no caseUpTo behind.
  await db.gazetteers.update(gazetteerId, changes);
}
