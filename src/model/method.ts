/**
 * What the one training loop needs from a learning method: its config schema, the sentences it
 * learns from, its heads, and its loss. The loop is handed a method (src/methods registers them by
 * name); the model layer never looks one up.
 */
import type { ZodType } from 'zod';
import type { LabeledSentence } from './data';
import type { BatchArrays, Featurizer } from './features';
import type { BatchTensors, Tagger } from './tagger';
import type * as tf from './tf';

export interface LossContext<C> {
  tagger: Tagger;
  batch: BatchArrays;
  tensors: BatchTensors;
  emissions: tf.Tensor3D;
  config: C;
  epoch: number;
  /** The global step, and a generator seeded by it (a resumed run draws the same numbers). */
  step: number;
  rand: () => number;
  /** What the method's `prepare` returned for this step. */
  prepared?: unknown;
}

export interface PrepareContext<C> {
  tagger: Tagger;
  batch: BatchArrays;
  config: C;
  epoch: number;
  /** The run's epoch budget (negative sampling's temperature schedule). */
  epochs: number;
  step: number;
  rand: () => number;
}

/**
 * A learning method from the papers: its config schema and its loss. Every method shares one
 * training loop; a new method is a new module that calls `registerMethod`.
 */
export interface Method<C extends { name: string } = { name: string }> {
  name: string;
  title: string;
  schema: ZodType<C>;
  /** Which training sentences the method learns from: the strong (gold) ones only, or all. */
  trainsOn?: 'strong' | 'all';
  /** Heads the loss is defined for; a run with another head stops before training. */
  heads?: readonly string[];
  /**
   * Runs before each step, outside the gradient: may read the current model's predictions
   * (asynchronously, so on every backend) and return data for the loss and numbers to average
   * per epoch.
   */
  prepare?(ctx: PrepareContext<C>): Promise<{ data: unknown; stats?: Record<string, number> }>;
  /**
   * What the loss reads as `emissions`, in place of the tagger's over the whole batch: a loss on a
   * few spans a sentence scores those only. Runs inside the gradient tape.
   */
  emissions?(ctx: { tagger: Tagger; tensors: BatchTensors; step: number; prepared?: unknown }): tf.Tensor3D;
  loss(ctx: LossContext<C>): tf.Scalar;
  /**
   * After a run's last stage, what the method records for the review queue and the diagnostics:
   * per-token signals over the training sentences (merged into the run's, keys as
   * TrainSignals names them) and run metrics (merged into the run's). `signals`: what the run's
   * stages recorded already.
   */
  record?(ctx: RecordContext<C>): Promise<{ signals?: Record<string, unknown>; metrics?: Record<string, unknown> }>;
}

export interface RecordContext<C> {
  tagger: Tagger;
  feat: Featurizer;
  /** The training sentences, as the run trained on them. */
  train: readonly LabeledSentence[];
  config: C;
  /** The run's epoch budget. */
  epochs: number;
  signals: Record<string, unknown> | undefined;
}
