import { describe, expect, it } from 'vitest';
import {
  correctionYield,
  correctionsIn,
  lastFineTune,
  loopCurve,
  nextLoopAction,
  type LoopRunView,
  runHasModel,
  START_STAGE,
  sentenceChanged,
} from './reviewLoop';
import { parseRunConfig } from './runConfig';

const base = parseRunConfig({
  data: { kind: 'project', projectId: 1, layerId: 2, goldLayerId: 3 },
  model: { dictionaryDropout: 'dev' },
  method: { name: 'wsl' },
  pipeline: { kind: 'completion', rounds: 3 },
  train: { epochs: 30, patience: 8 },
});
const run = (id: number, status: LoopRunView['status'], extra: Partial<ReturnType<typeof parseRunConfig>> = {}, f1 = 0.7): LoopRunView => ({
  id,
  status,
  config: { ...base, ...extra },
  metrics: { dev: { overall: { f1 } }, dictionaryDropout: 0.3 },
});

describe('the review loop', () => {
  it('counts the reviewed sentences of a corrections layer', () => {
    expect(correctionsIn([{ reviewedAt: { 0: 1, 12: 2 } }, undefined, { reviewedAt: {} }, { reviewedAt: { 3: 1 } }])).toBe(3);
  });

  it('waits for N corrections after the last fine-tune, then fine-tunes the newest finished run in one stage', () => {
    const runs = [run(1, 'done')];
    expect(nextLoopAction({ every: 0, corrections: 50, runs, layerId: 9, busy: false })).toEqual({ kind: 'idle', why: 'the loop is off' });
    expect(nextLoopAction({ every: 20, corrections: 19, runs, layerId: 9, busy: false })).toEqual({
      kind: 'idle',
      why: '1 more correction until the next fine-tune',
    });
    const a = nextLoopAction({ every: 20, corrections: 20, runs, layerId: 9, busy: false });
    expect(a.kind).toBe('start');
    if (a.kind !== 'start') return;
    expect(a.config.loop).toEqual({ fromRunId: 1, corrections: 20 });
    expect(a.config.data).toMatchObject({ strongLayerId: 9, layerId: 2 });
    expect(a.config.pipeline).toEqual({ kind: 'single' });
    // Where the annotator asks for it, a fine-tune that does not beat its start on dev keeps the start.
    const keep = nextLoopAction({ every: 20, corrections: 20, runs, layerId: 9, busy: false, keepStart: true });
    expect(keep.kind === 'start' && keep.config.pipeline).toEqual({ kind: 'single', keepStart: true });
    // WSL's fine-tune weighs the weak sentences at 0.1 (the corrections count ten times as much); a loop run's own weighting is kept.
    expect(a.config.method).toEqual({ name: 'weighted-wsl', gamma: 0.1 });
    // The dictionary dropout the run chose on dev; at most 5 epochs.
    expect(a.config.model.dictionaryDropout).toBe(0.3);
    expect(a.config.train.epochs).toBe(5);
    expect(a.config.train.patience).toBe(5);
    // The next one counts from the last loop run, failed ones included, and starts from the newest finished run.
    const later = [run(1, 'done'), run(2, 'done', { loop: { fromRunId: 1, corrections: 20 } }), run(3, 'failed', { loop: { fromRunId: 2, corrections: 40 } })];
    expect(nextLoopAction({ every: 20, corrections: 55, runs: later, layerId: 9, busy: false }).kind).toBe('idle');
    const b = nextLoopAction({ every: 20, corrections: 60, runs: later, layerId: 9, busy: false });
    expect(b.kind === 'start' && b.fromRunId).toBe(2);
    const weighted = [run(1, 'done', { method: { name: 'weighted-wsl', gamma: 0.5 } })];
    const c = nextLoopAction({ every: 20, corrections: 20, runs: weighted, layerId: 9, busy: false });
    expect(c.kind === 'start' && c.config.method).toEqual({ name: 'weighted-wsl', gamma: 0.5 });
    // From an ensemble's run, the ensemble fine-tunes: every member from its own weights.
    const ensemble = [run(1, 'done', { train: { ...base.train, members: 3 } })];
    const d = nextLoopAction({ every: 20, corrections: 20, runs: ensemble, layerId: 9, busy: false });
    expect(d.kind === 'start' && d.config.train.members).toBe(3);
    // A run whose model is gone (a pruned fine-tune, a run opened from a project file) is passed by.
    const gone = (r: LoopRunView): LoopRunView => ({ ...r, metrics: { ...(r.metrics as object), pruned: 'not here' } });
    const e = nextLoopAction({ every: 20, corrections: 20, runs: [run(1, 'done'), gone(run(2, 'done'))], layerId: 9, busy: false });
    expect(e.kind === 'start' && e.fromRunId).toBe(1);
    const record: LoopRunView = { ...run(3, 'done'), config: { ...base, imported: { file: 'x.jsonl' } } };
    expect([run(1, 'done'), gone(run(2, 'done')), record].map(runHasModel)).toEqual([true, false, false]);
    const f = nextLoopAction({ every: 20, corrections: 20, runs: [run(1, 'done'), record], layerId: 9, busy: false });
    expect(f.kind === 'start' && f.fromRunId).toBe(1);
    expect(nextLoopAction({ every: 20, corrections: 20, runs: [gone(run(1, 'done'))], layerId: 9, busy: false })).toEqual({
      kind: 'idle',
      why: 'no finished run to fine-tune: train one first',
    });
  });

  it('resumes a loop run a reload cut off, and waits while one trains', () => {
    const runs = [run(1, 'done'), run(2, 'interrupted', { loop: { fromRunId: 1, corrections: 20 } })];
    expect(nextLoopAction({ every: 20, corrections: 25, runs, layerId: 9, busy: false })).toEqual({ kind: 'resume', runId: 2 });
    expect(nextLoopAction({ every: 20, corrections: 25, runs, layerId: 9, busy: true }).kind).toBe('idle');
    const elsewhere = [run(1, 'done'), run(2, 'running', { loop: { fromRunId: 1, corrections: 20 } })];
    expect(nextLoopAction({ every: 20, corrections: 45, runs: elsewhere, layerId: 9, busy: false })).toEqual({
      kind: 'idle',
      why: 'a fine-tune is training in another tab',
    });
  });

  it('draws dev F1 against corrections from the starting run on', () => {
    const runs = [
      run(1, 'done', {}, 0.6),
      run(2, 'done', { loop: { fromRunId: 1, corrections: 20 } }, 0.65),
      run(3, 'running', { loop: { fromRunId: 2, corrections: 40 } }),
    ];
    expect(loopCurve(runs)).toEqual([
      { corrections: 0, devF1: 0.6, runId: 1 },
      { corrections: 20, devF1: 0.65, runId: 2 },
    ]);
    expect(loopCurve([run(1, 'done')])).toEqual([]);
  });

  it("says how the newest fine-tune ended: its dev F1, below its start's where it fell, the start kept where it was", () => {
    const loop = (id: number, from: number, f1: number, metrics: object = {}) => {
      const r = run(id, 'done', { loop: { fromRunId: from, corrections: 20 } }, f1);
      return { ...r, metrics: { ...(r.metrics as object), ...metrics } };
    };
    expect(lastFineTune([run(1, 'done')])).toBe('');
    expect(lastFineTune([run(1, 'done', {}, 0.6), loop(2, 1, 0.65)])).toBe('run 2 fine-tuned with 20 corrections (dev F1 65.00); the queue is ranked by it · ');
    expect(lastFineTune([run(1, 'done', {}, 0.6), loop(2, 1, 0.55)])).toBe(
      "run 2 fine-tuned with 20 corrections (dev F1 55.00, below run 1's 60.00): where dev is another kind of text than the one corrected, dev can fall while the model learns; the queue is ranked by it · ",
    );
    expect(lastFineTune([run(1, 'done', {}, 0.6), loop(2, 1, 0.6, { keptStage: START_STAGE })])).toBe(
      'run 2 fine-tuned with 20 corrections (dev F1 60.00): no epoch beat run 1 on dev, so it keeps that model; the queue is ranked by it · ',
    );
    const failed = { ...run(3, 'failed', { loop: { fromRunId: 1, corrections: 40 } }), error: 'out of memory' };
    expect(lastFineTune([run(1, 'done'), failed])).toBe('the fine-tune with 40 corrections (run 3) failed: out of memory · ');
  });

  it('says whether a reviewed sentence changed its weak labels: a span added, removed, retyped or cut, inside the sentence only', () => {
    const weak = [
      { start: 1, end: 3, label: 'PER' },
      { start: 12, end: 13, label: 'LOC' },
    ];
    expect(sentenceChanged([{ start: 1, end: 3, label: 'PER' }], weak, 0, 10)).toBe(false);
    expect(sentenceChanged([], weak, 0, 10)).toBe(true);
    expect(sentenceChanged([{ start: 1, end: 3, label: 'ORG' }], weak, 0, 10)).toBe(true);
    expect(sentenceChanged([{ start: 1, end: 2, label: 'PER' }], weak, 0, 10)).toBe(true);
    expect(
      sentenceChanged(
        [
          { start: 1, end: 3, label: 'PER' },
          { start: 5, end: 6, label: 'LOC' },
        ],
        weak,
        0,
        10,
      ),
    ).toBe(true);
    // The other sentence's span is not this one's business.
    expect(sentenceChanged([{ start: 1, end: 3, label: 'PER' }], weak, 0, 10)).toBe(false);
    expect(sentenceChanged([], weak, 10, 20)).toBe(true);
    expect(sentenceChanged([{ start: 12, end: 13, label: 'LOC' }], weak, 10, 20)).toBe(false);
    // An untyped weak match is no label to change: keeping the weak labels drops it unsaid, typing it is a change.
    const untyped = [...weak, { start: 7, end: 8, label: '?' }];
    expect(sentenceChanged([{ start: 1, end: 3, label: 'PER' }], untyped, 0, 10)).toBe(false);
    expect(
      sentenceChanged(
        [
          { start: 1, end: 3, label: 'PER' },
          { start: 7, end: 8, label: 'ORG' },
        ],
        untyped,
        0,
        10,
      ),
    ).toBe(true);
  });

  it('counts the reviewed sentences that changed their weak labels, overall and over the newest', () => {
    const sentences = Array.from({ length: 30 }, (_, k) => ({ at: 1000 + k, changed: k < 20 }));
    // The newest 20 (at 1010..1029): the 10 changed ones among them.
    expect(correctionYield(sentences)).toEqual({ reviewed: 30, changed: 20, recent: { reviewed: 20, changed: 10 } });
    expect(correctionYield([...sentences].reverse(), 5)).toEqual({ reviewed: 30, changed: 20, recent: { reviewed: 5, changed: 0 } });
    expect(correctionYield([])).toEqual({ reviewed: 0, changed: 0, recent: { reviewed: 0, changed: 0 } });
  });
});
