import * as Comlink from 'comlink';
import { db } from '../db/instance';
import { fetchGloveAsset, fetchPublicText, fetchStarterAsset } from './gloveBrowser';
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
  control(c: 'stop' | 'cancel') {
    setControl(c);
  },
};

export type TrainWorkerApi = typeof api;
Comlink.expose(api);
