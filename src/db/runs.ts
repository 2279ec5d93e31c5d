/**
 * Writes of runs and their models: every change to the runs, models, signals and predicted layers
 * goes through here (the UI and the workers read with live queries, and write with these).
 */
import type { Span } from '../core/types';
import { fileWeights, type ModelFile } from '../core/modelFile';
import type { DocSignals } from '../core/reviewSignals';
import { deleteLayerRows } from './layerStore';
import type { ModelRow, RunRow, StudioDB } from './schema';

type NewRun = Omit<RunRow, 'id'>;

export function addRun(db: StudioDB, row: NewRun): Promise<number> {
  return db.runs.add(row);
}

/** Queues runs in one transaction; their ids in order. */
export async function addRuns(db: StudioDB, rows: readonly NewRun[]): Promise<number[]> {
  return (await db.runs.bulkAdd([...rows], { allKeys: true })) as number[];
}

/** Changes a run's status, metrics, error or end time. */
export async function updateRun(db: StudioDB, runId: number, changes: Partial<Omit<RunRow, 'id' | 'projectId' | 'kind'>>): Promise<void> {
  await db.runs.update(runId, changes);
}

/** Marks queued runs cancelled (an experiment cancelled before them), saying why. */
export async function cancelRuns(db: StudioDB, runIds: readonly number[], error: string): Promise<void> {
  await db.runs
    .where('id')
    .anyOf([...runIds])
    .modify({ status: 'cancelled', error, finishedAt: Date.now() });
}

/**
 * Marks a run failed when its worker died before it could say so itself (the run still reads
 * queued or running); a run its worker ended (finished, failed, cancelled) is left as it is.
 */
export async function failRunIfLive(db: StudioDB, runId: number, error: string): Promise<boolean> {
  return db.transaction('rw', db.runs, async () => {
    const run = await db.runs.get(runId);
    if (!run || (run.status !== 'running' && run.status !== 'queued')) return false;
    await db.runs.update(runId, { status: 'failed', error, finishedAt: Date.now() });
    return true;
  });
}

/** A run's kept state of one kind (and key): a checkpoint, a finished stage. */
function stateRows(db: StudioDB, runId: number, kind: ModelRow['kind'], key?: string) {
  return db.models
    .where('runId')
    .equals(runId)
    .filter((m) => m.kind === kind && (key === undefined || m.key === key));
}

export async function loadRunState(db: StudioDB, runId: number, kind: ModelRow['kind'], key?: string): Promise<unknown> {
  return (await stateRows(db, runId, kind, key).first())?.state;
}

/** Keeps a run's state of one kind (and key) in place of the one before, in one transaction. */
export async function saveRunState(db: StudioDB, runId: number, kind: ModelRow['kind'], state: unknown, key?: string): Promise<void> {
  await db.transaction('rw', db.models, async () => {
    await stateRows(db, runId, kind, key).delete();
    await db.models.add({ runId, kind, ...(key !== undefined ? { key } : {}), state, createdAt: Date.now() });
  });
}

/** Ends a run that stopped with no model: its kept states go, its status and metrics stay. */
export async function endRunWithoutModel(db: StudioDB, runId: number, changes: Partial<Omit<RunRow, 'id' | 'projectId' | 'kind'>>): Promise<void> {
  await db.transaction('rw', [db.models, db.runs], async () => {
    await db.models.where('runId').equals(runId).delete();
    await db.runs.update(runId, { finishedAt: Date.now(), ...changes });
  });
}

/**
 * A finished run, in one transaction: its predictions as a new layer, its signals, its final model
 * in place of its checkpoints, and the run done with its metrics (which learn the layer's id).
 */
export async function finishRun(
  db: StudioDB,
  o: {
    runId: number;
    projectId: number;
    docIds: readonly number[];
    predicted: readonly Span[][];
    signals?: readonly (DocSignals | null)[];
    model: unknown;
    metrics: { predictedLayerId?: number };
  },
): Promise<void> {
  await db.transaction('rw', [db.layers, db.annotations, db.layerChunks, db.models, db.runs, db.signals], async () => {
    const config = (await db.runs.get(o.runId))?.config as { loop?: unknown } | undefined;
    if (config?.loop) await pruneEarlierLoopRuns(db, o.projectId, o.runId);
    const lid = await db.layers.add({ projectId: o.projectId, kind: 'predicted', name: `run ${o.runId}`, createdAt: Date.now() });
    await db.annotations.bulkAdd(o.docIds.map((docId, k) => ({ layerId: lid, docId, spans: o.predicted[k], oMode: 'complete' as const })));
    await db.models.where('runId').equals(o.runId).delete();
    if (o.signals) await db.signals.bulkPut(o.signals.flatMap((sg, k) => (sg ? [{ runId: o.runId, docId: o.docIds[k], ...sg }] : [])));
    await db.models.add({ runId: o.runId, kind: 'final', state: o.model, createdAt: Date.now() });
    o.metrics.predictedLayerId = lid;
    await db.runs.update(o.runId, { status: 'done', metrics: o.metrics, finishedAt: Date.now() });
  });
}

/** What predicting a finished run's unseen documents added to its layer (the run's page lists each time). */
export interface LaterPrediction {
  documents: number;
  spans: number;
  at: number;
}

/**
 * A finished run's predictions for documents imported after it finished, added to its predicted
 * layer in one transaction with their review signals and the note of it in the run's metrics. A document the layer already
 * annotates keeps its row (two clicks, or two tabs, add it once); none are added to a run whose
 * layer has gone.
 */
export async function addLaterPredictions(
  db: StudioDB,
  runId: number,
  docIds: readonly number[],
  predicted: readonly Span[][],
  signals?: readonly (DocSignals | null)[],
): Promise<LaterPrediction> {
  return db.transaction('rw', [db.runs, db.annotations, db.signals], async () => {
    const run = await db.runs.get(runId);
    const metrics = run?.metrics as { predictedLayerId?: number; later?: LaterPrediction[] } | undefined;
    const layerId = metrics?.predictedLayerId;
    if (layerId === undefined) throw new Error(`run ${runId} has no predicted layer to add to`);
    const have = await db.annotations.bulkGet(docIds.map((d) => [layerId, d] as [number, number]));
    const fresh = docIds.flatMap((docId, k) => (have[k] ? [] : [{ layerId, docId, spans: predicted[k], oMode: 'complete' as const }]));
    const added = { documents: fresh.length, spans: fresh.reduce((n, r) => n + r.spans.length, 0), at: Date.now() };
    if (!fresh.length) return added;
    await db.annotations.bulkAdd(fresh);
    const fresh_ = new Set(fresh.map((r) => r.docId));
    if (signals) await db.signals.bulkPut(docIds.flatMap((docId, k) => (signals[k] && fresh_.has(docId) ? [{ runId, docId, ...signals[k] }] : [])));
    await db.runs.update(runId, { metrics: { ...metrics, later: [...(metrics!.later ?? []), added] } });
    return added;
  });
}

/**
 * The review loop fine-tunes again after every N corrections, each run leaving predictions over
 * every document and a model. When a fine-tune finishes, the earlier fine-tunes' predicted layers,
 * signals and models go (the newest one is what the queue ranks by and the next fine-tune starts
 * from); their records stay, so the curve of dev F1 against corrections keeps every point. Runs
 * the user trained are never touched. Called inside finishRun's transaction.
 */
async function pruneEarlierLoopRuns(db: StudioDB, projectId: number, runId: number): Promise<void> {
  const earlier = await db.runs
    .where('projectId')
    .equals(projectId)
    .filter((r) => r.id! < runId && r.status === 'done' && !!(r.config as { loop?: unknown }).loop)
    .toArray();
  for (const r of earlier) {
    const metrics = r.metrics as { predictedLayerId?: number; pruned?: string } | undefined;
    if (metrics?.predictedLayerId === undefined) continue;
    await deleteLayerRows(db, metrics.predictedLayerId);
    await db.layers.delete(metrics.predictedLayerId);
    await db.signals.where('[runId+docId]').between([r.id!, -Infinity], [r.id!, Infinity]).delete();
    await db.models.where('runId').equals(r.id!).delete();
    const { predictedLayerId: _, ...kept } = metrics;
    await db.runs.update(r.id!, {
      metrics: { ...kept, pruned: `its predictions and model were removed when run ${runId}, a later fine-tune of the review loop, finished` },
    });
  }
}

/** Where a run's model came from when it was opened from a file (RunPage says it). */
export interface ImportedModel {
  file: string;
  /** The file's own provenance (the project and run it was downloaded from), where it has one. */
  provenance?: Record<string, string>;
  /** The model's types this project has no type for: their spans are stored all the same. */
  unknownTypes?: string[];
}

/**
 * A model file (core/modelFile.ts, checked) opened into a project as a finished run, in one
 * transaction: the run, its empty predicted layer and its model, which reads the features its file
 * says how to make (ModelFile.inputs). Its predictions are made as a run's on documents it has not
 * seen (projectSource.predictUnseen), and scored on the project's dev and test gold then. Its
 * config reads this project's weak labels and gold, so a review-loop fine-tune may start from it.
 */
export async function openModelFile(db: StudioDB, projectId: number, file: string, m: ModelFile): Promise<number> {
  return db.transaction('rw', [db.projects, db.layers, db.runs, db.models], async () => {
    const project = await db.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} does not exist`);
    const layers = await db.layers.where('projectId').equals(projectId).toArray();
    const gold = layers.find((l) => l.kind === 'gold');
    const train = layers.find((l) => l.role === 'aggregate') ?? gold;
    const types = new Set(project.types.map((t) => t.name));
    const unknownTypes = [...new Set(m.tags.filter((t) => t !== 'O').map((t) => t.slice(2)))].filter((t) => !types.has(t));
    const imported: ImportedModel = { file, ...(m.provenance ? { provenance: m.provenance } : {}), ...(unknownTypes.length ? { unknownTypes } : {}) };
    const { loop: _, ...trained } = m.config;
    const config = { ...trained, data: { kind: 'project', projectId, layerId: train?.id ?? 0, goldLayerId: gold?.id ?? 0 } };
    const now = Date.now();
    const runId = await db.runs.add({ projectId, kind: 'train', config, status: 'running', createdAt: now });
    const predictedLayerId = await db.layers.add({ projectId, kind: 'predicted', name: `run ${runId}`, createdAt: now });
    await db.models.add({
      runId,
      kind: 'final',
      state: {
        tags: m.tags,
        weights: fileWeights(m.weights),
        chars: m.chars,
        oov: m.oov,
        oShift: m.oShift ?? 0,
        ...(m.typeShifts ? { typeShifts: m.typeShifts } : {}),
        // A model that reads words only says so too: it labels from its file, whatever dictionary the project has.
        inputs: m.inputs ?? { groups: [] },
        ...(m.inputs?.groups.length ? { lexicon: m.inputs.groups } : {}),
        ...(m.members ? { members: m.members.map((x) => ({ weights: fileWeights(x.weights), oShift: x.oShift })) } : {}),
      },
      createdAt: now,
    });
    await db.runs.update(runId, {
      status: 'done',
      finishedAt: now,
      metrics: { backend: '', backendReason: '', history: [], stepLosses: [], tags: m.tags, predictedLayerId, imported },
    });
    return runId;
  });
}
