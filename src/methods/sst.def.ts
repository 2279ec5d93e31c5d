import { z } from 'zod';
import type { MethodDef } from './def';

/** Self-training: a supervised model labels the weak sentences, then training goes on over all. */
export const sstPipelineSchema = z.object({ kind: z.literal('sst') }).strict();

export const sstDef: MethodDef = {
  pipeline: sstPipelineSchema,
  options: {},
  presets: [
    {
      id: 'sst',
      when: 'A few gold sentences and much unlabeled text: a supervised model labels the rest, and a student learns both.',
      title: 'SST: self-training on a supervised model\u2019s labels',
      method: { name: 'wsl' },
      pipeline: { kind: 'sst' },
    },
  ],
};
