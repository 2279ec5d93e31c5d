import * as Comlink from 'comlink';
import type { ImportWorkerApi } from './import.worker';

let remote: Comlink.Remote<ImportWorkerApi> | null = null;

/** The page's one import worker, started on first use. */
export function importWorker(): Comlink.Remote<ImportWorkerApi> {
  remote ??= Comlink.wrap<ImportWorkerApi>(new Worker(new URL('./import.worker.ts', import.meta.url), { type: 'module' }));
  return remote;
}
