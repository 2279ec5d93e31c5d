/**
 * A run of a method: its pipeline (found in the registry by kind: each method's module registers
 * its own, composed from stages.ts's vocabulary), then the O shift chosen on dev for the final
 * model. Runs the same in Node and in the training worker.
 */
import type { SpanScores } from '../core/metrics';
import { describeTypeShifts, type RunConfig } from '../core/runConfig';
import type { LabeledSentence } from '../model/data';
import type { Featurizer } from '../model/features';
import type { Tagger } from '../model/tagger';
import { chooseOShift, chooseTypeShifts, type RunStore, type TrainHooks } from '../model/train';
import './index';
import { getPipeline, registerPipeline } from './registry';
import { pipelineContext, type PipelineData, type PipelineResult } from './stages';

export { pipelineSchema, type Pipeline } from '../core/runConfig';
import type { Pipeline } from '../core/runConfig';
export { PipelineStopped, type PipelineData, type PipelineResult, type StageRecord, type TrainSignals } from './stages';

/** One training run with the config's method. */
registerPipeline({
  kind: 'single',
  run: async (ctx) => ctx.finish(await ctx.stage(ctx.cfg.method.name, ctx.cfg, ctx.data.train)),
});

/**
 * A method's stages, one after another. With a `store`, each finished stage is kept there and the
 * running one checkpointed every epoch, so that the same run started again restores the finished
 * stages and resumes the running one where it stopped, to the same result as an uninterrupted
 * run (a stage with per-epoch records, PU's exploratory training, runs again whole).
 */
export async function runPipeline(
  pipeline: Pipeline,
  cfg: RunConfig,
  feat: Featurizer,
  data: PipelineData,
  hooks: TrainHooks = {},
  store?: RunStore,
): Promise<PipelineResult> {
  const mod = getPipeline(pipeline.kind);
  if (!mod.run) throw new Error(`the "${pipeline.kind}" method's model is not a token tagger: it trains through its module's spanModel`);
  const r = await mod.run(pipelineContext(cfg, feat, data, hooks, store), pipeline);
  return { ...r, ...(await finalOShift(r.tagger, cfg, feat, data.dev, hooks)) };
}

/**
 * The last step of every run: the O shift chosen on dev (train.oShift "dev"), or the configured
 * one, then with train.typeShifts a shift per entity type chosen on dev; both set on the final
 * model, whose dev scores are then the run's.
 */
export async function finalOShift(
  tagger: Tagger,
  cfg: RunConfig,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  hooks: Pick<TrainHooks, 'onStage'> = {},
): Promise<{ oShift: number; typeShifts?: Record<string, number>; dev?: SpanScores }> {
  let out: { oShift: number; typeShifts?: Record<string, number>; dev?: SpanScores };
  if (cfg.train.oShift !== 'dev') {
    tagger.oShift = cfg.train.oShift;
    out = { oShift: tagger.oShift };
  } else {
    const chosen = await chooseOShift(tagger, feat, dev);
    hooks.onStage?.(
      `O shift chosen on dev: ${chosen.shift} (dev F1 ${pct(chosen.dev.overall.f1)}; at 0: ${pct(chosen.byShift.find((b) => b.shift === 0)?.f1 ?? chosen.dev.overall.f1)})`,
    );
    out = { oShift: chosen.shift, dev: chosen.dev };
  }
  if (!cfg.train.typeShifts) return out;
  const typed = await chooseTypeShifts(tagger, feat, dev);
  hooks.onStage?.(
    `type shifts chosen on dev: ${describeTypeShifts(typed.shifts)} (dev F1 ${pct(typed.dev.overall.f1)}; without them: ${pct(typed.before.overall.f1)})`,
  );
  return { ...out, typeShifts: typed.shifts, dev: typed.dev };
}

const pct = (f1: number) => (100 * f1).toFixed(2);
