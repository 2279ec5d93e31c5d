import * as Comlink from 'comlink';
import { db } from '../db/instance';
import { fetchGloveAsset } from './gloveBrowser';
import { runTraining, setControl, type TrainEvent } from './trainJob';

const api = {
  /** `base`: the app's base URL, where glove/ is served. */
  train(runId: number, base: string, emit: (e: TrainEvent) => void) {
    return runTraining(db, runId, () => fetchGloveAsset(base), emit);
  },
  control(c: 'stop' | 'cancel') {
    setControl(c);
  },
};

export type TrainWorkerApi = typeof api;
Comlink.expose(api);
