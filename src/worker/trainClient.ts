import * as Comlink from 'comlink';
import type { TrainWorkerApi } from './train.worker';
import type { TrainEvent, TrainMetrics } from './trainJob';

/** A training run in its own worker; TensorFlow.js loads there only. */
export class TrainJob {
  private worker = new Worker(new URL('./train.worker.ts', import.meta.url), { type: 'module' });
  private remote = Comlink.wrap<TrainWorkerApi>(this.worker);

  async run(runId: number, onEvent: (e: TrainEvent) => void): Promise<TrainMetrics> {
    try {
      return await this.remote.train(runId, new URL('./', document.baseURI).href, Comlink.proxy(onEvent));
    } finally {
      this.worker.terminate();
    }
  }

  /** Stop after the current step and keep the best model so far. */
  stop(): void {
    void this.remote.control('stop');
  }

  /** Stop after the current step and discard the run: no layer changes. */
  cancel(): void {
    void this.remote.control('cancel');
  }
}
