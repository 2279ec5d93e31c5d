import { z } from 'zod';
import type { MethodDef } from './def';

/** Plain supervised learning on the strong (gold) sentences. */
export const supervisedSchema = z.object({ name: z.literal('supervised') }).strict();

/** One training run with the config's method. */
export const singlePipelineSchema = z.object({ kind: z.literal('single') }).strict();

export const supervisedDef: MethodDef = {
  losses: [supervisedSchema],
  pipeline: singlePipelineSchema,
  options: {},
  presets: [
    {
      id: 'supervised',
      when: 'You have gold or corrected training sentences and want the reference without weak labels.',
      title: 'Supervised: the strong (gold) sentences only',
      method: { name: 'supervised' },
    },
  ],
};
