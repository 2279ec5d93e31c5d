import { z } from 'zod';
import { lmOptions, lmSchema, type MethodDef } from './def';

export const noiseAwareSchema = z.object({ name: z.literal('noise-aware') }).strict();

/** NEEDLE (Jiang et al. 2021), Stages II and III, with the ablation switches. */
export const needlePipelineSchema = z
  .object({
    kind: z.literal('needle'),
    /** Weak label completion (Eq. 2): weak O tokens take the initial model's prediction. */
    wlc: z.boolean().default(true),
    /** The noise-aware loss (Eq. 3); off trains Stage II with the plain NLL. */
    nal: z.boolean().default(true),
    /** Stage III: fine-tune on the strong sentences. */
    ft: z.boolean().default(true),
    /** Histogram bins for the confidence of Viterbi scores (Appendix A). */
    bins: z.number().int().min(2).default(10),
    /** The cap on the confidence (0.95 in the paper). */
    cap: z.number().min(0).max(1).default(0.95),
    /** Stage I: language-model pre-training of the encoder on the training sentences' text (epochs 0: off). */
    stage1: lmSchema.default({ epochs: 3, vocab: 10000 }),
    /**
     * Rounds of Stages II and III (§4.5, "two rounds of Stage II training"): a second round
     * completes the original weak labels with the model the first ended with, recalibrates,
     * trains on both again from it and fine-tunes again.
     */
    rounds: z.number().int().min(1).max(5).default(1),
  })
  .strict();

declare module './stages' {
  interface MethodMetrics {
    /** NEEDLE: the histogram of dev Viterbi scores against sequence accuracy. */
    calibration?: { lo: number; hi: number; n: number; accuracy: number }[];
    /** NEEDLE: the confidence given to each weak sentence. */
    confidences?: number[];
  }
}

export const needleDef: MethodDef = {
  losses: [noiseAwareSchema],
  pipeline: needlePipelineSchema,
  options: {
    'pipeline.wlc': { label: 'weak label completion', help: 'Weak label completion (Eq. 2): weak O tokens take the initial model’s prediction' },
    'pipeline.nal': { label: 'noise-aware loss', help: 'The noise-aware loss (Eq. 3); off trains Stage II with plain NLL' },
    'pipeline.ft': { label: 'fine-tune on gold', help: 'Stage III, fine-tuning on the strong sentences' },
    'pipeline.bins': { label: 'confidence bins', help: 'Histogram bins for the confidence of Viterbi scores' },
    'pipeline.cap': { label: 'confidence cap', help: 'The cap on the confidence (0.95 in the paper)' },
    ...lmOptions('pipeline.stage1', 'Stage I: language-model epochs on the training text'),
    'pipeline.rounds': {
      label: 'rounds',
      help: 'Rounds of Stages II and III: a second round completes the weak labels again with the model the first ended with',
    },
  },
  presets: [
    {
      id: 'needle',
      when: "A few gold sentences beside many weak ones (NEEDLE's setting): pre-training, completion, a noise-aware loss, then fine-tuning on the gold.",
      title: 'NEEDLE: LM pre-training, completion, noise-aware loss, fine-tuning',
      method: { name: 'noise-aware' },
      pipeline: { kind: 'needle' },
      head: 'crf',
    },
  ],
};
