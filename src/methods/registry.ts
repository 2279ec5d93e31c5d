import type { Pipeline } from '../core/runConfig';
import type { Method } from '../model/method';
import type { PipelineModule } from './stages';

export type { LossContext, Method, PrepareContext, RecordContext } from '../model/method';

const methods = new Map<string, Method<{ name: string }>>();

export function registerMethod<C extends { name: string }>(m: Method<C>): void {
  methods.set(m.name, m as unknown as Method<{ name: string }>);
}

export function getMethod(name: string): Method<{ name: string }> {
  const m = methods.get(name);
  if (!m) throw new Error(`unknown method "${name}"; known: ${[...methods.keys()].join(', ')}`);
  return m;
}

const pipelines = new Map<string, PipelineModule>();

/** A method's multi-stage procedure, found by its pipeline kind (runPipeline dispatches through it). */
export function registerPipeline<K extends Pipeline['kind']>(p: PipelineModule<K>): void {
  pipelines.set(p.kind, p as unknown as PipelineModule);
}

export function getPipeline(kind: string): PipelineModule {
  const p = pipelines.get(kind);
  if (!p) throw new Error(`unknown pipeline "${kind}"; known: ${[...pipelines.keys()].join(', ')}`);
  return p;
}
