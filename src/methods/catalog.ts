/**
 * The methods the UI offers, without loading them: each method's presets, from its `.def.ts` (the
 * module registers its loss in the worker, where TensorFlow.js lives). An entry sets the method,
 * the multi-stage pipeline around it and, where the method needs one, the head.
 */
import type { CatalogEntry } from './def';
import { METHOD_DEFS } from './defs';

export type { CatalogEntry } from './def';

export const METHOD_CATALOG: readonly CatalogEntry[] = METHOD_DEFS.flatMap((d) => d.presets ?? []);

/** The training page's preset at first, and the run a config gets that names neither a method nor a pipeline (core/runConfig.ts). */
export const DEFAULT_PRESET: CatalogEntry = (() => {
  const e = METHOD_CATALOG.find((x) => x.id === 'completion');
  if (!e) throw new Error('the catalog has no "completion" preset, the default');
  return e;
})();

/** Whether a run config trains a token tagger, by its pipeline's catalog entry (the review loop fine-tunes only those). */
export function trainsTokenTagger(cfg: { pipeline: { kind: string } }): boolean {
  return !METHOD_CATALOG.some((e) => e.pipeline?.kind === cfg.pipeline.kind && e.tokenTagger === false);
}
