/** The training page's live run: the state the worker's events build (components/LiveRun.tsx draws it). */
import type { TrainEvent } from '../worker/trainJob';

export interface Live {
  runId: number;
  backend?: string;
  stage?: string;
  /** The last stage named (a multi-stage method's teacher, student, round), kept while its steps run. */
  stageName?: string;
  steps: { x: number; loss: number }[];
  epochs: { epoch: number; devF1: number; loss: number }[];
  last?: Extract<TrainEvent, { kind: 'step' }>;
  /** When the current stage's first step came, and at what epoch fraction: for the time left. */
  stageStart?: { at: number; done: number };
  /** The k-th of n queued runs (an experiment), with its label. */
  queue?: { k: number; n: number; label?: string };
}

/** The reducer the page feeds the worker's events to. */
export function nextLive(prev: Live, e: TrainEvent, now: number): Live {
  if (e.kind === 'backend') return { ...prev, backend: e.choice.reason };
  if (e.kind === 'stage') return { ...prev, stage: e.stage, stageName: e.stage, stageStart: undefined };
  if (e.kind === 'step') {
    const done = e.epoch - 1 + e.step / e.steps;
    // A new stage restarts at epoch 1: the clock for the time left restarts with it.
    const restart = !prev.stageStart || (prev.last && done < prev.last.epoch - 1 + prev.last.step / prev.last.steps);
    return {
      ...prev,
      last: e,
      stage: undefined,
      stageStart: restart ? { at: now, done } : prev.stageStart,
      steps: [...prev.steps, { x: prev.steps.length + 1, loss: e.loss }],
    };
  }
  return { ...prev, epochs: [...prev.epochs, { epoch: e.epoch, devF1: e.devF1, loss: e.loss }] };
}
