import { z } from 'zod';
import type { MethodDef } from './def';

/** Plain supervised learning on the strong (gold) sentences. */
export const supervisedSchema = z.object({ name: z.literal('supervised') }).strict();

/**
 * One training run with the config's method. `keepStart` (a fine-tune, which starts from a model:
 * the review loop's): true to keep the model it started from where no epoch beats it on dev;
 * absent or false, the fine-tune's best epoch is the run's model (methods/pipelines.ts).
 */
export const singlePipelineSchema = z.object({ kind: z.literal('single'), keepStart: z.boolean().optional() }).strict();

export const supervisedDef: MethodDef = {
  losses: [supervisedSchema],
  pipeline: singlePipelineSchema,
  options: {
    'pipeline.keepStart': {
      label: 'keep the starting model',
      help: 'A fine-tune (the review loop’s) keeps the model it started from when no epoch beats it on dev; off, its best epoch is kept whatever it scores against the start',
    },
  },
  presets: [
    {
      id: 'supervised',
      when: 'You have gold or corrected training sentences and want the reference without weak labels.',
      title: 'Supervised: the strong (gold) sentences only',
      method: { name: 'supervised' },
    },
  ],
};
