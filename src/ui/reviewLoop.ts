/**
 * The review loop in the page: mounted once per project (ProjectLayout), so the background
 * fine-tune goes on while the annotator moves between the queue and the editor. It watches the
 * corrections layer and the runs; when `nextLoopAction` says so it starts a fine-tune in its own
 * worker (the editor never waits for it), or resumes one a reload cut off.
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import { lastFineTune, nextLoopAction } from '../core/reviewLoop';
import { db } from '../db/instance';
import { trainsTokenTagger } from '../methods/catalog';
import { addRun, failRunIfLive } from '../db/runs';
import { TrainJob } from '../worker/trainClient';
import { readKept } from './kept';
import { useWorkerQuery } from './workerQuery';

export interface LoopSettings {
  /** Fine-tune after every this many corrections; 0 turns the loop off. */
  every: number;
  /** The corrections layer the queue writes and the fine-tunes read as strong labels. */
  layer: string;
  /** A fine-tune that does not beat the model it started from on dev keeps that model. */
  keepStart: boolean;
  /**
   * The weak layer chosen on the review page (its id; 0: none chosen): the queue ranks against it
   * and the editor's verdicts compare with it, so both say the same of a sentence (reviewWeakLayer).
   */
  weak: number;
}

export const LOOP_DEFAULTS: LoopSettings = { every: 20, layer: 'corrections', keepStart: false, weak: 0 };
const settingsKey = (projectId: number) => `review-loop/${projectId}`;

interface LoopState {
  settings: Record<number, LoopSettings>;
  /** Per project, the loop run this tab trains now (-1 while one is being created). */
  busy: Record<number, number | undefined>;
  /** Per project, what the loop is doing, in a sentence. */
  status: Record<number, string>;
  setSettings: (projectId: number, s: LoopSettings) => void;
}

export const useLoop = create<LoopState>((set) => ({
  settings: {},
  busy: {},
  status: {},
  setSettings: (projectId, s) => {
    try {
      globalThis.localStorage?.setItem(`ner-studio/${settingsKey(projectId)}`, JSON.stringify(s));
    } catch {
      // A full or disabled storage only loses the setting.
    }
    set((st) => ({ settings: { ...st.settings, [projectId]: s } }));
  },
}));

/** A project's loop settings: the ones set in this tab, else the kept ones, else the defaults. */
export function useLoopSettings(projectId: number): LoopSettings {
  return useLoop((s) => s.settings[projectId]) ?? readKept(settingsKey(projectId), LOOP_DEFAULTS);
}

const setStatus = (projectId: number, status: string) =>
  useLoop.setState((s) => (s.status[projectId] === status ? s : { status: { ...s.status, [projectId]: status } }));
const setBusy = (projectId: number, runId: number | undefined) => useLoop.setState((s) => ({ busy: { ...s.busy, [projectId]: runId } }));

/** Trains one loop run in its own worker, saying how it goes; a failure fails the run and is said. */
async function train(projectId: number, runId: number, corrections: number): Promise<void> {
  setBusy(projectId, runId);
  setStatus(projectId, `fine-tuning run ${runId} with ${corrections} corrections: starting`);
  try {
    await new TrainJob().run(runId, (e) => {
      if (e.kind === 'epoch')
        setStatus(projectId, `fine-tuning run ${runId} with ${corrections} corrections: epoch ${e.epoch}, dev F1 ${(100 * e.devF1).toFixed(2)}`);
    });
    setStatus(projectId, `run ${runId} fine-tuned with ${corrections} corrections; the queue is ranked by it`);
  } catch (e) {
    await failRunIfLive(db, runId, (e as Error).message);
    setStatus(projectId, `the fine-tune (run ${runId}) failed: ${(e as Error).message}`);
  } finally {
    setBusy(projectId, undefined);
  }
}

/** The loop of one project: call it from a component that stays mounted while the project is open. */
export function useReviewLoop(projectId: number): void {
  const settings = useLoopSettings(projectId);
  const busy = useLoop((s) => s.busy[projectId] !== undefined);
  // In the query worker: every decision wakes it (it reads the corrections layer), and reading the
  // project's documents on the page's thread took 290-380 ms at CoNLL-2003 scale.
  const data = useWorkerQuery('loopState', [projectId, settings.layer]);
  useEffect(() => {
    if (!data) return;
    const runs = data.runs.map((r) => ({ ...r, id: r.id! }));
    const a = nextLoopAction({
      every: settings.every,
      corrections: data.corrections,
      runs,
      layerId: data.layerId,
      busy,
      tokenTagger: trainsTokenTagger,
      keepStart: settings.keepStart,
    });
    if (a.kind === 'idle') {
      if (!busy) setStatus(projectId, `${lastFineTune(runs)}${data.corrections} ${data.corrections === 1 ? 'correction' : 'corrections'}; ${a.why}`);
      return;
    }
    // Claimed before anything awaits, so a second change in the meantime starts nothing.
    setBusy(projectId, -1);
    if (a.kind === 'resume') {
      const cfg = data.runs.find((r) => r.id === a.runId)?.config as { loop?: { corrections: number } } | undefined;
      void train(projectId, a.runId, cfg?.loop?.corrections ?? data.corrections);
      return;
    }
    void addRun(db, { projectId, kind: 'train', config: a.config, status: 'queued', createdAt: Date.now() }).then(
      (runId) => train(projectId, runId, a.corrections),
      (e: Error) => {
        setBusy(projectId, undefined);
        setStatus(projectId, `the fine-tune could not start: ${e.message}`);
      },
    );
  }, [data, settings.every, settings.keepStart, busy, projectId]);
}
