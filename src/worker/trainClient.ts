import * as Comlink from 'comlink';
import { trainingFailure } from '../core/errors';
import type { TrainWorkerApi } from './train.worker';
import type { LaterPrediction } from '../db/runs';
import type { TrainEvent, TrainMetrics } from './trainJob';

/** A training run in its own worker; TensorFlow.js loads there only. */
export class TrainJob {
  private worker = new Worker(new URL('./train.worker.ts', import.meta.url), { type: 'module' });
  private remote = Comlink.wrap<TrainWorkerApi>(this.worker);

  /**
   * Trains a run, holding the run's Web Lock while it does: a run stored as "running" whose lock
   * no tab holds was cut off by a reload or a closed tab (markInterruptedRuns).
   */
  async run(runId: number, onEvent: (e: TrainEvent) => void): Promise<TrainMetrics> {
    const go = async () => {
      try {
        return await Promise.race([this.remote.train(runId, new URL('./', document.baseURI).href, Comlink.proxy(onEvent)), workerFailure(this.worker)]);
      } finally {
        this.worker.terminate();
      }
    };
    return navigator.locks ? navigator.locks.request(runLockName(runId), go) : go();
  }

  /**
   * A finished run's model on the documents it has not seen (imported since it finished), added to
   * its predicted layer; one prediction of a run at a time, whichever tab asks.
   */
  async predictUnseen(runId: number, onEvent: (e: TrainEvent) => void): Promise<LaterPrediction> {
    const go = () => this.once((base) => this.remote.predictUnseen(runId, base, Comlink.proxy(onEvent)));
    return navigator.locks ? navigator.locks.request(`ner-studio:predict:${runId}`, go) : go();
  }

  /** A finished run's model as the JSON text of one file (core/modelFile.ts), made in the worker. */
  exportModel(runId: number, onEvent: (e: TrainEvent) => void): Promise<string> {
    return this.once((base) => this.remote.exportModel(runId, base, Comlink.proxy(onEvent)));
  }

  /** One call to the worker with the app's base URL, its failure said plainly; the worker ends after it. */
  private async once<T>(call: (base: string) => Promise<T>): Promise<T> {
    try {
      return await Promise.race([call(new URL('./', document.baseURI).href), workerFailure(this.worker)]);
    } catch (e) {
      throw new Error(trainingFailure(e));
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

/** The Web Lock a tab holds while a run trains in its worker. */
export const runLockName = (runId: number) => `ner-studio:run:${runId}`;

/**
 * Rejects when a worker fails outside the call it was given: an error its own code does not catch
 * (a module that fails to load, a crash of the WASM runtime between steps), or a message it cannot
 * read. Comlink leaves the call's promise pending then, and the run's page would wait for ever.
 */
export function workerFailure(worker: Pick<Worker, 'addEventListener'>): Promise<never> {
  return new Promise<never>((_, reject) => {
    worker.addEventListener('error', (e: ErrorEvent) => {
      e.preventDefault?.();
      reject(new Error(`the training worker stopped: ${trainingFailure(e.message || 'it failed to start or crashed')}`));
    });
    worker.addEventListener('messageerror', () => reject(new Error('the training worker sent a message that could not be read')));
  });
}
