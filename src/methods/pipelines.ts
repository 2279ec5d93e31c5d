/**
 * A run of a method: its pipeline (found in the registry by kind: each method's module registers
 * its own, composed from stages.ts's vocabulary), then the O shift chosen on dev for the final
 * model. Runs the same in Node and in the training worker.
 */
import type { SpanScores } from '../core/metrics';
import { START_STAGE } from '../core/reviewLoop';
import { describeTypeShifts, type RunConfig } from '../core/runConfig';
import type { LabeledSentence } from '../model/data';
import type { Featurizer } from '../model/features';
import type { Decoding } from '../model/tagger';
import { chooseShifts, type RunStore, type TrainHooks } from '../model/train';
import './index';
import { getPipeline, registerPipeline } from './registry';
import { PipelineStopped, pct, pipelineContext, type PipelineData, type PipelineResult } from './stages';

export { pipelineSchema, type Pipeline } from '../core/runConfig';
export { START_STAGE } from '../core/reviewLoop';
import type { Pipeline } from '../core/runConfig';
export { PipelineStopped, type PipelineData, type PipelineResult, type StageRecord, type TrainSignals } from './stages';

/**
 * One training run with the config's method, from the run's initial weights where it has them (the
 * review loop's fine-tune). Stopped by the user, it keeps its best epoch so far as the run's model.
 * With `keepStart`, a fine-tune keeps the model it started from unless its best epoch beats it on
 * dev (each with the O shift dev chooses), as completion keeps a teacher its student does not
 * beat: a round of the review loop then never hands the annotator a model worse on dev. Off by
 * default: simulated (BENCHMARKS.md, "Fine-tunes that keep their start"), it changed nothing
 * beyond noise where dev is the corrected text's kind, and where it is not (tweets: dev is
 * another period) it threw away what the corrections gained.
 */
registerPipeline({
  kind: 'single',
  run: async (ctx, pipeline) => {
    try {
      const tuned = await ctx.stage(ctx.cfg.method.name, ctx.cfg, ctx.data.train, ctx.data.init);
      if (!ctx.data.init || (pipeline as { keepStart?: boolean }).keepStart !== true) return ctx.finish(tuned);
      const start = await ctx.startModel(ctx.data.init);
      const [after, before] = [await ctx.scoreOnDev(tuned), await ctx.scoreOnDev(start)];
      if (after > before) {
        start.tagger.dispose();
        return ctx.finish(tuned);
      }
      ctx.hooks.onStage?.(`the fine-tune's dev F1 ${pct(after)} does not beat its starting model's ${pct(before)}: the run keeps the starting model`);
      tuned.tagger.dispose();
      ctx.keepStage(START_STAGE, start);
      return ctx.finish(start, { keptStage: START_STAGE });
    } catch (e) {
      if (e instanceof PipelineStopped && e.partial) return ctx.finish(e.partial, { stopped: 'stopped' });
      throw e;
    }
  },
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
  tagger: Decoding,
  cfg: RunConfig,
  feat: Featurizer,
  dev: readonly LabeledSentence[],
  hooks: Pick<TrainHooks, 'onStage'> = {},
): Promise<{ oShift: number; typeShifts?: Record<string, number>; dev?: SpanScores }> {
  const chosen = await chooseShifts(tagger, feat, dev, { oShift: cfg.train.oShift, types: cfg.train.typeShifts });
  if (chosen.byShift && chosen.dev)
    hooks.onStage?.(
      `O shift chosen on dev: ${chosen.oShift} (dev F1 ${pct(chosen.byShift.find((b) => b.shift === chosen.oShift)!.f1)}; at 0: ${pct(chosen.byShift.find((b) => b.shift === 0)?.f1 ?? chosen.dev.overall.f1)})`,
    );
  if (chosen.typeShifts && chosen.dev && chosen.before)
    hooks.onStage?.(
      `type shifts chosen on dev: ${describeTypeShifts(chosen.typeShifts)} (dev F1 ${pct(chosen.dev.overall.f1)}; without them: ${pct(chosen.before.overall.f1)})`,
    );
  return { oShift: chosen.oShift, ...(chosen.typeShifts ? { typeShifts: chosen.typeShifts } : {}), ...(chosen.dev ? { dev: chosen.dev } : {}) };
}
