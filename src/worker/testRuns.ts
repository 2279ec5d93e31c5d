/**
 * For the worker's unit tests: a project's training run in Node, as the page's worker runs it, with
 * the assets read from the repository (GloVe, the public gazetteer library) and no starter model.
 */
import { readFileSync } from 'node:fs';
import { addRun } from '../db/runs';
import type { StudioDB } from '../db/schema';
import { readGloveAsset } from '../model/gloveNode';
import { runTraining } from './trainJob';

const assets = {
  fetchGlove: async () => readGloveAsset(),
  fetchStarter: async () => {
    throw new Error('no starter model here');
  },
  fetchPublic: async (path: string) => readFileSync(new URL(`../../public/${path}`, import.meta.url), 'utf8'),
};

/** Runs `config` on the project as a new run; its id, the stages it said and its metrics. */
export async function trainOnProject(db: StudioDB, projectId: number, config: object) {
  const runId = await addRun(db, { projectId, kind: 'train', config, status: 'running', createdAt: Date.now() });
  const stages: string[] = [];
  const metrics = await runTraining(db, runId, assets, (e) => {
    if (e.kind === 'stage') stages.push(e.stage);
  });
  return { runId, stages, metrics };
}

/** A small tagger for tests: 8 units, 8 character dimensions and filters. */
export const TINY_MODEL = { hidden: 8, charDim: 8, charFilters: 8 } as const;

/** A run config's data on a project: its weak aggregate (or its gold layer) to learn from, scored on its gold. */
export async function projectData(db: StudioDB, projectId: number, learnFrom: 'aggregate' | 'gold' = 'aggregate') {
  const layers = await db.layers.where('projectId').equals(projectId).toArray();
  const gold = layers.find((l) => l.kind === 'gold')!.id!;
  return { kind: 'project' as const, projectId, layerId: learnFrom === 'gold' ? gold : layers.find((l) => l.role === 'aggregate')!.id!, goldLayerId: gold };
}
