import * as Comlink from 'comlink';
import { db } from '../db/instance';
import { fetchGloveAsset, fetchPublicText, fetchStarterAsset } from './gloveBrowser';
import { predictUnseen } from './projectSource';
import { runTraining, setControl, type TrainEvent } from './trainJob';

const api = {
  /** `base`: the app's base URL, where glove/, models/ and gazetteers/ are served. */
  train(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return runTraining(
      db,
      runId,
      { fetchGlove: () => fetchGloveAsset(base), fetchStarter: () => fetchStarterAsset(base), fetchPublic: (path) => fetchPublicText(base, path) },
      emit,
    );
  },
  /** A finished run's model on the project's documents it has no predictions for. */
  predictUnseen(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return predictUnseen({
      db,
      runId,
      fetchGlove: () => fetchGloveAsset(base),
      fetchStarter: () => fetchStarterAsset(base),
      fetchPublic: (path) => fetchPublicText(base, path),
      emit,
    });
  },
  control(c: 'stop' | 'cancel') {
    setControl(c);
  },
};

export type TrainWorkerApi = typeof api;
Comlink.expose(api);
