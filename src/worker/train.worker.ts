import * as Comlink from 'comlink';
import { db } from '../db/instance';
import { fetchGloveAsset, fetchPublicText, fetchStarterAsset } from './gloveBrowser';
import { exportModel, predictUnseen } from './projectSource';
import { runTraining, setControl, type TrainEvent } from './trainJob';

/** The assets a project run reads, served from the app's base URL. */
const assets = (base: string) => ({
  fetchGlove: () => fetchGloveAsset(base),
  fetchStarter: () => fetchStarterAsset(base),
  fetchPublic: (path: string) => fetchPublicText(base, path),
});

const api = {
  /** `base`: the app's base URL, where glove/, models/ and gazetteers/ are served. */
  train(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return runTraining(db, runId, assets(base), emit);
  },
  /** A finished run's model on the project's documents it has no predictions for. */
  predictUnseen(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return predictUnseen({ db, runId, ...assets(base), emit });
  },
  /** A finished run's model as one file that `studio predict` reads (core/modelFile.ts), as JSON text. */
  async exportModel(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return JSON.stringify(await exportModel({ db, runId, ...assets(base), emit }));
  },
  control(c: 'stop' | 'cancel') {
    setControl(c);
  },
};

export type TrainWorkerApi = typeof api;
Comlink.expose(api);
