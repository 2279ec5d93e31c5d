/**
 * One finished experiment run as the `experiment` verb records it (a JSONL line), shared by the
 * CLI, which writes them, and the studio, which imports them into the run comparison.
 */
import { z } from 'zod';
import { prf, type SpanScores } from './metrics';
import { issueSentence } from './issueSentence';

const rounded = z.object({ p: z.number(), r: z.number(), f1: z.number(), tp: z.number(), fp: z.number(), fn: z.number() });
const roundedScores = rounded.extend({ perType: z.record(z.string(), rounded) });

export const runRecordSchema = z.object({
  key: z.string(),
  setting: z.string(),
  label: z.string(),
  seed: z.number().int(),
  /**
   * The split that `test` was scored on: the test split, except for a distant setting's weak
   * labels, which exist on the training sentences only and are scored against their train gold.
   */
  split: z.enum(['test', 'train']).default('test'),
  test: roundedScores,
  dev: roundedScores.nullable(),
  stages: z.array(
    z
      .object({
        stage: z.string(),
        devF1: z.number(),
        epochs: z.number(),
        seconds: z.number(),
        trainSentences: z.number(),
        history: z
          .array(z.object({ epoch: z.number(), loss: z.number(), devF1: z.number(), methodStats: z.record(z.string(), z.number()).optional() }))
          .optional(),
      })
      .passthrough(),
  ),
  /** The run's own wall time: its setting's encoder (pre-trained once, shared by its runs; its seconds are a stage) is not counted. */
  wallSeconds: z.number(),
  tokensPerSecond: z.number(),
  /** The O shift the final model decoded with (chosen on dev unless configured). */
  oShift: z.number().optional(),
  /** With an O shift other than 0: the same model's scores decoded without it (the shift's ablation). */
  unshifted: z.object({ dev: roundedScores, test: roundedScores }).optional(),
  /** train.typeShifts: the shift per entity type the final model decoded with, after the O shift. */
  typeShifts: z.record(z.string(), z.number()).optional(),
  /** With type shifts other than 0: the same model's scores decoded with the O shift alone (their ablation). */
  withoutTypeShifts: z.object({ dev: roundedScores, test: roundedScores }).optional(),
  /** Dev span F1 (%) with type shifts chosen on the other half of dev, and with the O shift alone: two folds, counts summed. */
  typeShiftsHeldOut: z.object({ with: z.number(), without: z.number() }).optional(),
  /** A pipeline that keeps its best stage on dev (RoSTER's keepBest): the stage whose model the run kept, when not the last. */
  keptStage: z.string().optional(),
  /** model.dictionaryDropout "dev": the value chosen on dev. */
  dictionaryDropout: z.number().optional(),
  /** A dictionary setting with aggregate "dev": the label model its dev chose, and each one's weak-label span F1 there. */
  labelModel: z.object({ method: z.enum(['priority', 'vote', 'hmm']), devF1: z.record(z.string(), z.number()), devSentences: z.number().int() }).optional(),
  /** train.members > 1: each member as its own run scored it (dev and test F1, %, with its own O shift); `test` and `dev` are the ensemble's. */
  members: z.array(z.object({ seed: z.number().int(), dev: z.number().nullable(), test: z.number(), oShift: z.number() })).optional(),
  finishedAt: z.string(),
  /** The run's config (records written since the config was added carry it). */
  config: z.record(z.string(), z.unknown()).optional(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/** Rounded percentages back to span scores (counts are exact, so the ratios are recomputed from them). */
export function recordScores(r: z.infer<typeof roundedScores>): SpanScores {
  return { overall: prf(r.tp, r.fp, r.fn), perType: Object.fromEntries(Object.entries(r.perType).map(([t, x]) => [t, prf(x.tp, x.fp, x.fn)])) };
}

/** JSONL records, every line validated; an error names the file and the line. */
export function parseRunRecords(file: string, text: string): RunRecord[] {
  return text
    .split('\n')
    .map((line, k) => [line, k] as const)
    .filter(([line]) => line.trim())
    .map(([line, k]) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new Error(`${file}: line ${k + 1} is not JSON`);
      }
      const r = runRecordSchema.safeParse(raw);
      if (!r.success) throw new Error(`${file}: line ${k + 1}: ${r.error.issues[0].path.join('.') || '(top)'}: ${issueSentence(r.error.issues[0])}`);
      return r.data;
    });
}
