import { describe, expect, it } from 'vitest';
import { bestEpochOfStage, keptStageIndex } from '../methods/stages';
import { stageRuns, stageSeries } from './runStages';

describe("a run's epochs by stage", () => {
  const history = [{ stage: 'teacher' }, { stage: 'teacher' }, { stage: 'student' }, { stage: 'student' }, { stage: 'teacher' }];

  it('groups consecutive epochs of a stage, and a stage that recurs is a new run of epochs', () => {
    expect(stageRuns(history)).toEqual([
      { stage: 'teacher', from: 0, to: 2 },
      { stage: 'student', from: 2, to: 4 },
      { stage: 'teacher', from: 4, to: 5 },
    ]);
    expect(stageRuns([{}, {}])).toEqual([{ stage: '', from: 0, to: 2 }]);
    expect(stageRuns([])).toEqual([]);
  });

  it('draws one line per stage, broken outside it; one line for a single stage', () => {
    const s = stageSeries(history, (k) => k * 10, { label: 'loss', color: '#000' });
    expect(s.map((x) => x.label)).toEqual(['teacher', 'student', 'teacher (2)']);
    expect(s[1].values).toEqual([null, null, 20, 30, null]);
    expect(s[2].values).toEqual([null, null, null, null, 40]);
    expect(new Set(s.map((x) => x.color)).size).toBe(3);
    expect(stageSeries([{}, {}], (k) => k, { label: 'loss', color: '#000' })).toEqual([{ label: 'loss', color: '#000', values: [0, 1] }]);
  });
});

describe('the stage a run keeps', () => {
  const wsl = [0, 0.5, 0.75].map((r) => ({ stage: `wsl (dictionary dropout ${r})` }));
  it('is the pipeline kept stage, the dictionary dropout chosen on dev, or the last; none for an ensemble', () => {
    expect(keptStageIndex(wsl, { dictionaryDropout: 0.5 })).toBe(1);
    expect(keptStageIndex(wsl, {})).toBe(2);
    expect(keptStageIndex([...wsl, { stage: 'student (round 1)' }], { dictionaryDropout: 0 })).toBe(3);
    expect(keptStageIndex([{ stage: 'teacher (WSL)' }, { stage: 'student (round 1)' }], { keptStage: 'teacher (WSL)' })).toBe(0);
    expect(keptStageIndex(wsl, { members: [1, 2] })).toBeNull();
    expect(keptStageIndex([], {})).toBeNull();
  });
  it("reads the best epoch from the stage's own history", () => {
    expect(bestEpochOfStage({ history: [{ devF1: 0.2 }, { devF1: 0.5 }, { devF1: 0.5 }, { devF1: 0.1 }] })).toBe(2);
    expect(bestEpochOfStage({})).toBe(0);
  });
});
