import { z } from 'zod';
import type { MethodDef } from './def';
import type { SamplingMap } from './negativeSampling';

export const negativeSamplingSchema = z
  .object({
    name: z.literal('negative-sampling'),
    /** Negatives per sentence: ⌈λ·n⌉ for a sentence of n tokens. */
    lambda: z.number().gt(0).max(1).default(0.35),
    sampling: z.enum(['uniform', 'weighted']).default('uniform'),
    /** μ ≥ 1 trades a low missampling rate (high μ) against high uncertainty (low μ). */
    mu: z.number().min(1).default(1),
  })
  .strict();

declare module './stages' {
  interface MethodMetrics {
    /** The final sampling distribution over the spans of a few training sentences (doc: the document's id once stored). */
    sampling?: (SamplingMap & { doc: number; offset: number })[];
  }
}

export const negativeSamplingDef: MethodDef = {
  losses: [negativeSamplingSchema],
  options: {
    'method.lambda': { label: 'negatives a token', help: '⌈λ·n⌉ negatives for a sentence of n tokens' },
    'method.sampling': { label: 'sampling', help: 'Uniform, or weighted toward spans the model finds unlikely entities' },
    'method.mu': { label: 'weighting μ', help: 'Weighted sampling: higher μ, fewer missampled entities; lower μ, harder negatives' },
  },
  presets: [
    {
      id: 'ns-uniform',
      when: 'Labels with entities left unlabeled (missing annotations): samples a few O spans instead of trusting every O.',
      title: 'Negative sampling, uniform (span head)',
      method: { name: 'negative-sampling', sampling: 'uniform' },
      head: 'span',
    },
    {
      id: 'ns-weighted',
      when: 'The same, sampling less often the O spans that look like entities to the model.',
      title: 'Negative sampling, adaptive weighted (span head)',
      method: { name: 'negative-sampling', sampling: 'weighted' },
      head: 'span',
    },
  ],
};
