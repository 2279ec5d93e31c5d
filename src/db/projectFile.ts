/**
 * A whole project as one file, to back it up or move it to another browser: IndexedDB is the only
 * copy of a project's documents, labels and dictionaries, and clearing the site's data or changing
 * machines would lose them. The file holds what people made and what the machine cannot remake
 * unasked: the documents with their splits, every gold, corrected and weak layer, the gazetteers
 * and stop lists with their settings, the rules, and the finished runs' records (config, scores,
 * curves). It leaves out what a run made besides (its models, predictions and review signals) and
 * what the studio rebuilds by itself (the project's word vectors, its pre-trained encoder): they
 * would make the file many times larger. A run opened from a file says its model is not there
 * (`pruned`), and the review queue and loop pass it by.
 *
 * Reading a file checks all of it before anything is stored, and names where a fault is
 * ("documents[3] "a.txt": offsets: token 7 ends past its text"); storing it is one transaction
 * that makes a new project, so a bad file or a failure half-way leaves the database as it was.
 */
import { z } from 'zod';
import { issueSentence } from '../core/issueSentence';
import { type Annotation, type LayerKind, SPLITS, TAG_SCHEMES, UNKNOWN_TYPE } from '../core/types';
import { CASE_MODES } from '../core/weak/normalize';
import { caseUpToProblem } from '../core/weak/gazetteerMatcher';
import { compileRule, ruleSchema } from '../core/weak/rules';
import { eachRow, writePackedLayer } from './layerStore';
import type { RunStatus, StudioDB } from './schema';

export const PROJECT_FILE_FORMAT = 'ner-studio-project';
export const PROJECT_FILE_VERSION = 1;

/** The layers a project file carries: a run's predictions belong to the run, which it does not carry. */
const FILE_LAYER_KINDS = ['gold', 'corrected', 'weak'] as const satisfies readonly LayerKind[];

/** The runs a file carries: those that ended (a running or interrupted run's checkpoints stay behind, so it could not resume). */
const FILE_RUN_STATUSES = ['done', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];

/** What a run opened from a file says of its predictions and model (RunPage shows it; the review loop and queue pass it by). */
export const NOT_IN_FILE = "they stayed in the project it was exported from (a project file carries a run's record, not its model)";

const int = z.number().int().min(0);
const spanSchema = z.strictObject({ start: int, end: int, label: z.string().min(1), candidates: z.array(z.string()).optional() });
const annotationSchema = z.strictObject({
  doc: int,
  spans: z.array(spanSchema),
  oMode: z.enum(['complete', 'partial']),
  oTokens: z.array(int).optional(),
  confidence: z.array(z.number()).optional(),
  // What the editor keeps with a sentence it decided (core/progress.ts EditorAnnotation), keyed by the sentence's start token.
  reviewedAt: z.record(z.string().regex(/^\d+$/), z.number()).optional(),
  rejected: z.array(z.string()).optional(),
  weakChanged: z.record(z.string().regex(/^\d+$/), z.boolean()).optional(),
});

// Strict objects: a field the file has and the schema lacks is an error, not a silent loss (the
// round-trip tests fail the day the studio stores a field this file does not carry).
const fileSchema = z.strictObject({
  format: z.literal(PROJECT_FILE_FORMAT),
  version: z.number().int(),
  exportedAt: z.number().optional(),
  project: z.strictObject({
    name: z.string().trim().min(1),
    types: z.array(z.strictObject({ name: z.string().min(1), color: z.string().regex(/^#[0-9a-fA-F]{6}$/) })),
    scheme: z.enum(TAG_SCHEMES),
  }),
  documents: z.array(
    z.strictObject({
      id: int,
      name: z.string(),
      text: z.string(),
      offsets: z.array(int),
      sentenceStarts: z.array(int),
      split: z.enum(SPLITS),
    }),
  ),
  layers: z.array(
    z.strictObject({
      /** The layer's id where it was exported: what the runs' configs name. */
      id: int.optional(),
      kind: z.enum(FILE_LAYER_KINDS),
      name: z.string().min(1),
      role: z.enum(['source', 'aggregate']).optional(),
      createdAt: z.number().optional(),
      annotations: z.array(annotationSchema),
    }),
  ),
  gazetteers: z.array(
    z.strictObject({
      name: z.string().min(1),
      mode: z.enum(CASE_MODES),
      priority: z.number(),
      stop: z.boolean().optional(),
      caseUpTo: z.number().optional(),
      public: z.strictObject({ list: z.string(), type: z.string(), featuresOnly: z.boolean(), source: z.string() }).optional(),
      createdAt: z.number().optional(),
      /** [phrase, type] pairs; a null type: an untyped entry. */
      entries: z.array(z.tuple([z.string().min(1), z.string().min(1).nullable()])),
    }),
  ),
  rules: z.array(z.strictObject({ priority: z.number(), enabled: z.boolean(), rule: ruleSchema })),
  /** The finished runs' records (config, scores, curves), without their predictions, models or signals. */
  runs: z
    .array(
      z.strictObject({
        id: int,
        kind: z.enum(['weak', 'train']),
        config: z.record(z.string(), z.unknown()),
        status: z.enum(FILE_RUN_STATUSES),
        metrics: z.record(z.string(), z.unknown()).optional(),
        error: z.string().optional(),
        createdAt: z.number(),
        finishedAt: z.number().optional(),
      }),
    )
    .default([]),
});

export type ProjectFile = z.infer<typeof fileSchema>;

/** What a stored project file made. */
export interface ProjectFileImport {
  projectId: number;
  name: string;
  documents: number;
  layers: number;
  gazetteers: number;
  rules: number;
  runs: number;
}

/** A project as a file's contents (plain JSON), read in one transaction so that it is one moment's project. */
export async function exportProject(db: StudioDB, projectId: number): Promise<ProjectFile> {
  return db.transaction(
    'r',
    [db.projects, db.documents, db.layers, db.annotations, db.layerChunks, db.gazetteers, db.gazetteerEntries, db.rules, db.runs],
    async () => {
      const project = await db.projects.get(projectId);
      if (!project) throw new Error(`project ${projectId} does not exist`);
      const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
      const layers = (await db.layers.where('projectId').equals(projectId).sortBy('id')).filter((l) =>
        (FILE_LAYER_KINDS as readonly string[]).includes(l.kind),
      );
      const fileLayers: ProjectFile['layers'] = [];
      for (const l of layers) {
        const annotations: ProjectFile['layers'][number]['annotations'] = [];
        await eachRow(db, l, ({ layerId: _l, docId, ...a }) => {
          annotations.push({ doc: docId, ...a });
        });
        fileLayers.push({
          id: l.id!,
          kind: l.kind as (typeof FILE_LAYER_KINDS)[number],
          name: l.name,
          ...(l.role ? { role: l.role } : {}),
          createdAt: l.createdAt,
          annotations,
        });
      }
      const gazetteers: ProjectFile['gazetteers'] = [];
      for (const g of await db.gazetteers.where('projectId').equals(projectId).sortBy('priority')) {
        const entries = await db.gazetteerEntries.where('gazetteerId').equals(g.id!).sortBy('id');
        gazetteers.push({
          name: g.name,
          mode: g.mode,
          priority: g.priority,
          ...(g.stop ? { stop: true } : {}),
          ...(g.caseUpTo !== undefined ? { caseUpTo: g.caseUpTo } : {}),
          ...(g.public ? { public: g.public } : {}),
          createdAt: g.createdAt,
          entries: entries.map((e) => [e.phrase, e.type] as [string, string | null]),
        });
      }
      const rules = (await db.rules.where('projectId').equals(projectId).sortBy('priority')).map((r) => ({
        priority: r.priority,
        enabled: r.enabled,
        rule: r.rule,
      }));
      const runs = (await db.runs.where('projectId').equals(projectId).sortBy('id'))
        .filter((r) => (FILE_RUN_STATUSES as readonly string[]).includes(r.status))
        .map((r) => {
          // The predicted layer is not in the file: its id would name nothing, or another project's layer.
          const { predictedLayerId: _p, ...metrics } = (r.metrics ?? {}) as Record<string, unknown>;
          return {
            id: r.id!,
            kind: r.kind,
            config: r.config as Record<string, unknown>,
            status: r.status as (typeof FILE_RUN_STATUSES)[number],
            ...(r.metrics ? { metrics } : {}),
            ...(r.error ? { error: r.error } : {}),
            createdAt: r.createdAt,
            ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}),
          };
        });
      return {
        format: PROJECT_FILE_FORMAT,
        version: PROJECT_FILE_VERSION,
        exportedAt: Date.now(),
        project: { name: project.name, types: project.types, scheme: project.scheme },
        documents: docs.map((d) => ({
          id: d.id!,
          name: d.name,
          text: d.text,
          offsets: Array.from(d.offsets),
          sentenceStarts: d.sentenceStarts,
          split: d.split,
        })),
        layers: fileLayers,
        gazetteers,
        rules,
        runs,
      };
    },
  );
}

/** The file's name for a project: its name made safe for a file system, then ".ner-studio.json". */
export function projectFileName(name: string): string {
  return `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'project'}.ner-studio.json`;
}

/**
 * A project file's text, parsed and checked whole: its shape, and what the shape cannot say (a
 * token past its text, a span past its document, a label, entry type or rule label that is no type
 * of the project, a layer entry for a document the file does not hold, a rule that does not compile). The error names the
 * file and where in it.
 */
export function readProjectFile(text: string, file = 'the file'): ProjectFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not a project file: it is not JSON (${(e as Error).message})`);
  }
  const head = json as { format?: unknown; version?: unknown } | null;
  if (!head || typeof head !== 'object' || head.format !== PROJECT_FILE_FORMAT)
    throw new Error(`${file}: not a project file: it has no "format": "${PROJECT_FILE_FORMAT}" (a layer's CoNLL or JSONL export goes through Import instead)`);
  if (typeof head.version === 'number' && head.version > PROJECT_FILE_VERSION)
    throw new Error(`${file}: a project file of version ${head.version}, from a newer studio: this one reads version ${PROJECT_FILE_VERSION}`);
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${where(json, issue.path)}: ${issueSentence(issue)}`);
  }
  const f = parsed.data;
  if (f.version !== PROJECT_FILE_VERSION) throw new Error(`${file}: version: must be ${PROJECT_FILE_VERSION}`);
  const fault = (at: string, what: string) => new Error(`${file}: ${at}: ${what}`);
  const types = new Set(f.project.types.map((t) => t.name));
  const tokens = new Map<number, number>();
  f.documents.forEach((d, i) => {
    const at = `documents[${i}] ${JSON.stringify(d.name)}`;
    if (tokens.has(d.id)) throw fault(at, `id ${d.id} is the id of an earlier document too`);
    if (d.offsets.length % 2) throw fault(`${at}: offsets`, 'must be pairs of start and end (an even count)');
    for (let t = 0; t < d.offsets.length; t += 2) {
      const [s, e] = [d.offsets[t], d.offsets[t + 1]];
      if (s > e || e > d.text.length || (t > 0 && s < d.offsets[t - 1]))
        throw fault(`${at}: offsets`, `token ${t / 2} (${s}-${e}) is not inside its text (${d.text.length} characters) after the token before it`);
    }
    const n = d.offsets.length / 2;
    const bad = d.sentenceStarts.findIndex((s, k) => s >= Math.max(n, 1) || (k > 0 && s <= d.sentenceStarts[k - 1]));
    if (bad >= 0) throw fault(`${at}: sentenceStarts[${bad}]`, `must be a token of the document (0-${n - 1}), after the sentence start before it`);
    tokens.set(d.id, n);
  });
  const names = new Set<string>();
  f.layers.forEach((l, i) => {
    const at = `layers[${i}] ${JSON.stringify(l.name)}`;
    if (names.has(`${l.kind}\t${l.name}`)) throw fault(at, `a ${l.kind} layer of the same name is earlier in the file`);
    if (l.id !== undefined && f.layers.findIndex((o) => o.id === l.id) !== i) throw fault(at, `id ${l.id} is the id of an earlier layer too`);
    names.add(`${l.kind}\t${l.name}`);
    const seen = new Set<number>();
    l.annotations.forEach((a, k) => {
      const n = tokens.get(a.doc);
      const aat = `${at}: annotations[${k}]`;
      if (n === undefined) throw fault(aat, `document ${a.doc} is not in the file`);
      if (seen.has(a.doc)) throw fault(aat, `document ${a.doc} is annotated twice in this layer`);
      seen.add(a.doc);
      a.spans.forEach((s, j) => {
        if (s.start >= s.end || s.end > n) throw fault(`${aat}: spans[${j}]`, `tokens ${s.start}-${s.end} are not a span of the document's ${n} tokens`);
        if (s.label !== UNKNOWN_TYPE && !types.has(s.label))
          throw fault(`${aat}: spans[${j}]`, `label "${s.label}" is not a type of the project (${[...types].join(', ')})`);
      });
      const badO = a.oTokens?.find((t) => t >= n);
      if (badO !== undefined) throw fault(`${aat}: oTokens`, `token ${badO} is past the document's ${n} tokens`);
    });
  });
  f.gazetteers.forEach((g, i) => {
    const at = `gazetteers[${i}] ${JSON.stringify(g.name)}`;
    const caseUp = caseUpToProblem(g.caseUpTo);
    if (caseUp) throw fault(`${at}: caseUpTo`, caseUp);
    if (g.public && !types.has(g.public.type)) throw fault(`${at}: public.type`, `"${g.public.type}" is not a type of the project`);
    const e = g.entries.findIndex(([, type]) => type !== null && !types.has(type));
    if (e >= 0)
      throw fault(
        `${at}: entries[${e}] ${JSON.stringify(g.entries[e][0])}`,
        `type "${g.entries[e][1]}" is not a type of the project (${[...types].join(', ')})`,
      );
  });
  f.rules.forEach((r, i) => {
    if (!types.has(r.rule.label))
      throw fault(`rules[${i}] ${JSON.stringify(r.rule.name)}: rule.label`, `"${r.rule.label}" is not a type of the project (${[...types].join(', ')})`);
    try {
      compileRule(r.rule);
    } catch (e) {
      throw fault(`rules[${i}] ${JSON.stringify(r.rule.name)}`, (e as Error).message);
    }
  });
  const runIds = new Set<number>();
  f.runs.forEach((r, i) => {
    if (runIds.has(r.id)) throw fault(`runs[${i}]`, `id ${r.id} is the id of an earlier run too`);
    runIds.add(r.id);
  });
  return f;
}

/** Where a schema issue is, readably: "documents[3] "a.txt": split", naming a list item by its name where it has one. */
function where(json: unknown, path: readonly PropertyKey[]): string {
  let at = '';
  let node = json as Record<PropertyKey, unknown> | undefined;
  for (const key of path) {
    node = node?.[key] as Record<PropertyKey, unknown> | undefined;
    if (typeof key === 'number') {
      const name = node && typeof node === 'object' && typeof node.name === 'string' ? ` ${JSON.stringify(node.name)}` : '';
      at += `[${key}]${name}`;
    } else at += `${at ? '.' : ''}${String(key)}`;
  }
  return at.replace(/\] "([^"]*)"\./g, '] "$1": ') || 'the file';
}

/**
 * Stores a checked project file as a new project, in one transaction: its documents, layers
 * (weak layers packed, as the studio writes them), gazetteers, rules and runs' records, every id
 * new and every id a run's config names made this project's. A project of the same name gets
 * " (imported)" after its name.
 */
export async function importProject(db: StudioDB, f: ProjectFile): Promise<ProjectFileImport> {
  return db.transaction(
    'rw',
    [db.projects, db.documents, db.layers, db.annotations, db.layerChunks, db.gazetteers, db.gazetteerEntries, db.rules, db.runs],
    async () => {
      const taken = new Set((await db.projects.toArray()).map((p) => p.name));
      let name = f.project.name.trim();
      for (let k = 1; taken.has(name); k++) name = `${f.project.name.trim()} (imported${k > 1 ? ` ${k}` : ''})`;
      // Never the demo, even when the file came from it: the demo stays one project the studio can open or load anew.
      const projectId = await db.projects.add({ name, types: f.project.types, scheme: f.project.scheme, createdAt: Date.now(), demo: false });
      const ids = (await db.documents.bulkAdd(
        f.documents.map((d) => ({
          projectId,
          name: d.name,
          text: d.text,
          offsets: Uint32Array.from(d.offsets),
          sentenceStarts: d.sentenceStarts,
          split: d.split,
          tokenCount: d.offsets.length >> 1,
        })),
        { allKeys: true },
      )) as number[];
      const docId = new Map(f.documents.map((d, k) => [d.id, ids[k]]));
      const layerId = new Map<number, number>();
      for (const l of f.layers) {
        const packed = l.kind === 'weak';
        const lid = await db.layers.add({
          projectId,
          kind: l.kind,
          name: l.name,
          ...(l.role ? { role: l.role } : {}),
          createdAt: l.createdAt ?? Date.now(),
          ...(packed ? { packed } : {}),
        });
        if (l.id !== undefined) layerId.set(l.id, lid);
        const anns: Annotation[] = l.annotations.map(({ doc: _d, ...a }) => a);
        const docs = l.annotations.map((a) => docId.get(a.doc)!);
        if (packed) await writePackedLayer(db, lid, docs, anns);
        else await db.annotations.bulkAdd(anns.map((a, k) => ({ ...a, layerId: lid, docId: docs[k] })));
      }
      for (const g of f.gazetteers) {
        const { entries, ...row } = g;
        const gid = await db.gazetteers.add({ ...row, projectId, createdAt: g.createdAt ?? Date.now() });
        await db.gazetteerEntries.bulkAdd(entries.map(([phrase, type]) => ({ gazetteerId: gid, phrase, type })));
      }
      await db.rules.bulkAdd(f.rules.map((r) => ({ ...r, projectId })));
      // In id order, so that a review-loop fine-tune's run (loop.fromRunId) is stored after the one it started from.
      const runId = new Map<number, number>();
      for (const r of [...f.runs].sort((x, y) => x.id - y.id)) {
        const { id, config, metrics, ...row } = r;
        const newId = await db.runs.add({
          ...row,
          projectId,
          config: runConfigHere(config, projectId, layerId, runId),
          ...(metrics ? { metrics: r.kind === 'train' ? { ...metrics, pruned: NOT_IN_FILE } : metrics } : {}),
        });
        runId.set(id, newId);
      }
      return {
        projectId,
        name,
        documents: ids.length,
        layers: f.layers.length,
        gazetteers: f.gazetteers.length,
        rules: f.rules.length,
        runs: f.runs.length,
      };
    },
  );
}

/**
 * A run's config with the ids it names made this project's: the project, its training, gold and
 * strong layers, the run a fine-tune started from. A layer or run the file does not hold (a
 * deleted layer, a run's predictions) becomes -1, which names nothing, rather than an id that may
 * be another project's.
 */
function runConfigHere(
  config: Record<string, unknown>,
  projectId: number,
  layers: ReadonlyMap<number, number>,
  runs: ReadonlyMap<number, number>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  const data = config.data as Record<string, unknown> | undefined;
  if (data?.kind === 'project') {
    const here = (id: unknown) => (typeof id === 'number' ? (layers.get(id) ?? -1) : id);
    out.data = {
      ...data,
      projectId,
      layerId: here(data.layerId),
      goldLayerId: here(data.goldLayerId),
      ...(data.strongLayerId !== undefined ? { strongLayerId: here(data.strongLayerId) } : {}),
    };
  }
  const loop = config.loop as Record<string, unknown> | undefined;
  if (loop && typeof loop.fromRunId === 'number') out.loop = { ...loop, fromRunId: runs.get(loop.fromRunId) ?? -1 };
  return out;
}
