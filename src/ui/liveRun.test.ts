import { describe, expect, it } from 'vitest';
import { nextLive } from './liveRun';

const step = (epoch: number, step: number, steps = 10) => ({ kind: 'step' as const, epoch, step, steps, loss: 1, tokensPerSecond: 100 });

describe("the training page's live run", () => {
  it('keeps the stage named while its steps run, and restarts the clock when a new stage starts at epoch 1', () => {
    let live = nextLive({ runId: 1, steps: [], epochs: [] }, { kind: 'stage', stage: 'teacher (WSL)' }, 0);
    live = nextLive(live, step(1, 1), 1000);
    expect(live.stageName).toBe('teacher (WSL)');
    expect(live.stage).toBeUndefined();
    expect(live.stageStart).toEqual({ at: 1000, done: 0.1 });
    live = nextLive(live, step(3, 5), 9000);
    expect(live.stageStart).toEqual({ at: 1000, done: 0.1 });
    expect(live.steps.map((s) => s.x)).toEqual([1, 2]);
    // The student's first step: earlier than where the teacher was, so the clock restarts.
    live = nextLive(live, step(1, 1), 20_000);
    expect(live.stageStart).toEqual({ at: 20_000, done: 0.1 });
  });
});
