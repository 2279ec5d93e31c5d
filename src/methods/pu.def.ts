import { z } from 'zod';
import { fmt, type ReviewSignal } from '../core/reviewSignals';
import type { MethodDef } from './def';

export const puSchema = z
  .object({
    name: z.literal('pu'),
    /** Share of a sentence's length sampled from its remaining O tokens as negatives. */
    gamma: z.number().gt(0).max(1).default(0.35),
  })
  .strict();

/**
 * PU learning + negative sampling (paper 003, Algorithm 1): `explore` epochs of plain training,
 * the O-values of every O-tagged token, the ⌈λ·m⌉ smallest taken out of the loss, then training
 * from scratch with the config's method (pu: token-level negative sampling at rate γ).
 */
export const puPipelineSchema = z
  .object({
    kind: z.literal('pu'),
    explore: z.number().int().positive().default(2),
    lambda: z.number().gt(0).lt(1).default(0.1),
  })
  .strict();

/** PU learning (paper 003): the weak-O tokens the PU step took out of the loss, lowest O-value first. */
export const puSignal: ReviewSignal = {
  id: 'pu',
  title: 'lowest O-values of the PU step',
  score: 'max',
  rankedBy: 'the lowest O-value removed',
  present: (sg) => !!sg.puRemoved,
  flag: (t, { word, signals }) =>
    signals?.puRemoved?.[t]
      ? { value: -(signals.oValue?.[t] ?? 0), why: `${word} (O-value ${fmt(signals.oValue?.[t] ?? NaN)}, removed as a likely unlabeled entity)` }
      : undefined,
};

declare module '../core/reviewSignals' {
  interface DocSignals {
    /** PU O-values of weak-O tokens (NaN elsewhere), from the model the PU step cut with. */
    oValue?: Float32Array;
    /** The same after each exploratory epoch. */
    oValueEpochs?: Float32Array[];
    /** 1 where the PU step removed the token from the loss as a likely unlabeled entity. */
    puRemoved?: Uint8Array;
  }
}
declare module './stages' {
  interface MethodMetrics {
    /**
     * PU: where synthetic masking remembers the hidden entities, the precision and recall of taking
     * the λ·m smallest O-values as unlabeled entities, for several λ (paper 003, Figure 3).
     */
    detection?: { lambda: number; removed: number; precision: number; recall: number }[];
  }
  interface TrainSignals {
    oValue?: Float32Array[];
    /** Per sentence, its O-values after each exploratory epoch. */
    oValueEpochs?: Float32Array[][];
    puRemoved?: Uint8Array[];
  }
}

export const puDef: MethodDef = {
  records: { oValue: 'values', oValueEpochs: 'valueEpochs', puRemoved: 'flags' },
  losses: [puSchema],
  pipeline: puPipelineSchema,
  options: {
    'method.gamma': { label: 'negatives sampled', help: 'The share of a sentence’s length sampled from its remaining O tokens as negatives' },
    'pipeline.explore': { label: 'exploratory epochs', help: 'Epochs of plain training before the O-values are read' },
    'pipeline.lambda': { label: 'O tokens removed', help: 'The share ⌈λ·m⌉ of O-tagged tokens with the smallest O-values taken out of the loss' },
  },
  presets: [
    {
      id: 'pu',
      when: 'Missing annotations: removes the O tokens the model thinks are entities (low O-value), then samples O.',
      title: 'PU learning + negative sampling (removes low O-values, then samples O)',
      method: { name: 'pu' },
      pipeline: { kind: 'pu' },
    },
  ],
  signals: [puSignal],
};
