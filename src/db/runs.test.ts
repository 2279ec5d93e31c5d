import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { workerFailure } from '../worker/trainClient';
import { addRun, failRunIfLive, finishRun, updateRun } from './runs';
import { StudioDB } from './schema';

describe('runs whose worker died', () => {
  it('a live run is marked failed with the reason; an ended run is left as it is', async () => {
    const db = new StudioDB(`runs-${Math.random()}`);
    const base = { projectId: 1, kind: 'train' as const, config: {}, createdAt: 0 };
    const live = await addRun(db, { ...base, status: 'running' });
    const done = await addRun(db, { ...base, status: 'running' });
    await updateRun(db, done, { status: 'done', finishedAt: 5 });
    expect(await failRunIfLive(db, live, 'the training worker stopped: x')).toBe(true);
    expect(await failRunIfLive(db, done, 'the training worker stopped: x')).toBe(false);
    expect(await db.runs.get(live)).toMatchObject({ status: 'failed', error: 'the training worker stopped: x' });
    expect(await db.runs.get(done)).toMatchObject({ status: 'done', finishedAt: 5 });
  });

  it("a worker's uncaught error rejects the run's call with what it said", async () => {
    const worker = new EventTarget();
    const failed = workerFailure(worker as unknown as Worker);
    const e = new Event('error') as Event & { message: string };
    e.message = 'Aborted()';
    worker.dispatchEvent(e);
    await expect(failed).rejects.toThrow(/the training worker stopped: the training backend aborted \(Aborted\(\)\), most likely out of memory/);
  });
});

describe("the review loop's fine-tunes", () => {
  it("a finished fine-tune removes the earlier fine-tunes' predictions, signals and models, keeps their records, and never touches the user's runs", async () => {
    const db = new StudioDB(`loop-${Math.random()}`);
    const projectId = 1;
    const finish = async (config: object) => {
      const runId = await addRun(db, { projectId, kind: 'train', config, status: 'running', createdAt: 0 });
      await finishRun(db, {
        runId,
        projectId,
        docIds: [1, 2],
        predicted: [[{ start: 0, end: 1, label: 'X' }], []],
        signals: [{ uncertainty: new Float32Array([0.5]) }, null],
        model: { weights: {} },
        metrics: { dev: { overall: { f1: 0.5 } } } as { predictedLayerId?: number },
      });
      return runId;
    };
    const user = await finish({});
    const first = await finish({ loop: { fromRunId: user, corrections: 20 } });
    const second = await finish({ loop: { fromRunId: first, corrections: 40 } });
    const layerOf = async (id: number) => ((await db.runs.get(id))!.metrics as { predictedLayerId?: number }).predictedLayerId;
    expect(await layerOf(first)).toBeUndefined();
    expect((await db.runs.get(first))!.metrics).toMatchObject({ dev: { overall: { f1: 0.5 } }, pruned: expect.stringContaining(`run ${second}`) });
    expect(await db.models.where('runId').equals(first).count()).toBe(0);
    expect(await db.signals.where('[runId+docId]').between([first, -Infinity], [first, Infinity]).count()).toBe(0);
    // The user's run and the newest fine-tune keep everything.
    for (const id of [user, second]) {
      const lid = (await layerOf(id))!;
      expect(await db.annotations.where('[layerId+docId]').between([lid, -Infinity], [lid, Infinity]).count()).toBe(2);
      expect(await db.models.where('runId').equals(id).count()).toBe(1);
    }
    expect((await db.layers.toArray()).map((l) => l.name)).toEqual([`run ${user}`, `run ${second}`]);
  });
});

describe('run stores in IndexedDB', () => {
  it('a single-stage run interrupted before the run engine resumes from its old checkpoint row', async () => {
    const { saveRunState } = await import('./runs');
    const { projectRunStore } = await import('../worker/projectSource');
    const db = new StudioDB(`store-${Math.random()}`);
    const runId = await addRun(db, { projectId: 1, kind: 'train', config: {}, status: 'interrupted', createdAt: 0 });
    await saveRunState(db, runId, 'checkpoint', { epoch: 3 });
    const store = projectRunStore(db, runId);
    expect(await store.load('checkpoint 0 wsl')).toEqual({ epoch: 3 });
    // A later stage, or a stage the store holds, reads the store.
    expect(await store.load('checkpoint 1 student')).toBeUndefined();
    await store.save('checkpoint 0 wsl', { epoch: 4 });
    expect(await store.load('checkpoint 0 wsl')).toEqual({ epoch: 4 });
  });
});
