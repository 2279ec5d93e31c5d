import { z } from 'zod';
import type { MethodDef } from './def';

/** ε: a token teaches when its largest soft pseudo-label reaches it (0.9 in the paper); one default for the loss and the pipeline. */
const threshold = z.number().min(0).max(1).default(0.9);

/** BOND's self-training loss: cross entropy to soft pseudo-labels on the tokens whose largest soft label reaches `threshold` (ε). */
export const bondSchema = z.object({ name: z.literal('bond'), threshold }).strict();

/**
 * BOND (Liang et al. 2020): Stage 1, a teacher trained on the distant labels and stopped early
 * (`teacherEpochs` at most; the loop keeps its best epoch on dev and stops after `patience`
 * epochs without a better one, which is BOND's early stopping chosen on dev); Stage 2, self-training: the teacher's soft
 * pseudo-labels (sharpened, §3.2) on the tokens whose largest soft label reaches `threshold`
 * teach a student that starts from the teacher, and every `roundEpochs` epochs the student
 * becomes the teacher, `rounds` times. Needs per-token probabilities: the softmax or two-part head.
 */
export const bondPipelineSchema = z
  .object({
    kind: z.literal('bond'),
    teacherEpochs: z.number().int().positive().default(20),
    rounds: z.number().int().min(1).max(50).default(5),
    roundEpochs: z.number().int().positive().default(1),
    roundLr: z.number().positive().default(0.001),
    threshold,
    /**
     * The pseudo-labels: "soft", the teacher's distributions sharpened by soft class frequency
     * (§3.2, BOND soft); "hard", its most probable tag one-hot (BOND hard: no reweighting toward
     * rare classes, every token teaches).
     */
    pseudoLabels: z.enum(['soft', 'hard']).default('soft'),
    /**
     * Self-training on unlabeled text too: each round the teacher also labels up to this many
     * sentences of the project's unlabeled text (as completion's `unlabeled`), and the student
     * learns from their soft labels with the training text's. Stage 2 reads no distant label,
     * so text without any serves it as well (the paper self-trains on the training text only).
     * 0: off. 10,000 (none in the demo: no effect there): conll03 distant 1k dev +2.3, 3k +0.8 over
     * the user-scale suite (BENCHMARKS.md, the thirtieth session's section).
     */
    unlabeled: z.number().int().min(0).max(200_000).default(10_000),
  })
  .strict();

const thresholdDoc = {
  label: 'confidence threshold ε',
  help: 'A token teaches the student when its largest soft pseudo-label reaches this (0.9 in the paper)',
};

export const bondDef: MethodDef = {
  losses: [bondSchema],
  pipeline: bondPipelineSchema,
  options: {
    'method.threshold': thresholdDoc,
    'pipeline.teacherEpochs': {
      label: 'teacher epochs',
      help: 'Stage 1: epochs at most on the distant labels; the teacher is the best epoch on dev (early stopping)',
    },
    'pipeline.rounds': { label: 'self-training rounds', help: 'Stage 2: rounds of self-training; after each the student becomes the teacher' },
    'pipeline.roundEpochs': { label: 'epochs a round', help: 'Epochs of each self-training round' },
    'pipeline.roundLr': { label: 'learning rate of the rounds', help: 'Learning rate of the self-training rounds' },
    'pipeline.threshold': thresholdDoc,
    'pipeline.pseudoLabels': {
      label: 'pseudo-labels',
      help: 'Soft pseudo-labels sharpened by class frequency (§3.2, BOND soft), or hard ones, the teacher’s most probable tag (BOND hard: every token teaches)',
    },
    'pipeline.unlabeled': {
      label: 'unlabeled sentences',
      help: 'Each round the teacher also labels up to this many unlabeled sentences (the project’s unassigned documents) for the student; 0: off',
    },
  },
  presets: [
    {
      id: 'bond',
      when: "Distant labels wrong in both directions, with unlabeled text of the same kind: a teacher's confident soft labels, refreshed each round.",
      title: 'BOND: an early-stopped teacher on the weak labels, then self-training on its confident soft pseudo-labels, the teacher refreshed each round',
      method: { name: 'wsl' },
      pipeline: { kind: 'bond' },
      head: 'softmax',
    },
  ],
};
