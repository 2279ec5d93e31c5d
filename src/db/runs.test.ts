import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { workerFailure } from '../worker/trainClient';
import { addRun, failRunIfLive, updateRun } from './runs';
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
