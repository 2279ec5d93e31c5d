import * as Comlink from 'comlink';
import type { Span } from '../core/types';
import type { Rule, RuleDoc } from '../core/weak/rules';
import type { WeakWorkerApi } from './weak.worker';
import type { WeakOptions, WeakSummary } from './weakJob';

export interface Progress {
  done: number;
  total: number;
  stage: string;
}

/**
 * Runs weak labeling in a worker. Cancel terminates the worker: labeling writes nothing until its
 * last step, whose single transaction aborts with the worker, so stored layers stay as they were.
 * A watchdog does the same when a stage stops reporting (a regex that backtracks without end).
 */
/**
 * One labeling worker lives across runs: it keeps the interned corpus, so a re-run after an edit
 * is incremental. Cancelling or a stall terminates it, and the next run starts a fresh one.
 */
let shared: { worker: Worker; remote: Comlink.Remote<WeakWorkerApi> } | null = null;

function labelingWorker(): Comlink.Remote<WeakWorkerApi> {
  if (!shared) {
    const worker = new Worker(new URL('./weak.worker.ts', import.meta.url), { type: 'module' });
    shared = { worker, remote: Comlink.wrap<WeakWorkerApi>(worker) };
  }
  return shared.remote;
}

export class WeakJob {
  private reject: ((e: Error) => void) | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly stallMs = 20_000) {}

  private finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private stop(reason: string): void {
    shared?.worker.terminate();
    shared = null;
    this.finish();
    this.timer = null;
    this.reject?.(new Error(reason));
    this.reject = null;
  }

  run(projectId: number, options: WeakOptions, onProgress: (p: Progress) => void): Promise<WeakSummary> {
    const remote = labelingWorker();
    let last = performance.now();
    let stage = 'starting';
    return new Promise<WeakSummary>((resolve, reject) => {
      this.reject = reject;
      this.timer = setInterval(() => {
        if (performance.now() - last > this.stallMs) this.stop(`${stage} made no progress for ${this.stallMs / 1000} s and was stopped`);
      }, 250);
      remote
        .label(
          projectId,
          options,
          Comlink.proxy((done: number, total: number, s: string) => {
            last = performance.now();
            stage = s;
            onProgress({ done, total, stage: s });
          }),
        )
        .then((r) => {
          this.reject = null;
          this.finish();
          resolve(r);
        })
        .catch((e: Error) => {
          this.reject = null;
          this.finish();
          reject(e);
        });
    });
  }

  cancel(): void {
    this.stop('cancelled');
  }
}

/** A rule preview in a throwaway worker, stopped if it runs longer than `timeoutMs`. */
export async function previewRule(rule: Rule, docs: RuleDoc[], timeoutMs = 2000): Promise<Span[][]> {
  const worker = new Worker(new URL('./weak.worker.ts', import.meta.url), { type: 'module' });
  const remote = Comlink.wrap<WeakWorkerApi>(worker);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      remote.preview(rule, docs),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`rule "${rule.name}": ran over ${timeoutMs} ms on the preview documents and was stopped`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}
