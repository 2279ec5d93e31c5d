import { z } from 'zod';
import { TAG_SCHEMES } from './types';

/**
 * A run, described by one serializable object: data, labels, model, method, hyperparameters and
 * seed. The same config on the same backend gives the same result.
 */
const fileSplit = z.union([
  z.object({ text: z.string(), labels: z.string() }).strict(),
  z.object({ conll: z.string() }).strict(),
]);

export const dataSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('files'),
    scheme: z.enum(TAG_SCHEMES as [string, ...string[]]).default('BIO'),
    train: fileSplit,
    dev: fileSplit,
    test: fileSplit.optional(),
    /** Use only the first N training sentences (quick runs, tests). */
    limitTrain: z.number().int().positive().optional(),
    limitDev: z.number().int().positive().optional(),
  }),
  z.object({
    kind: z.literal('project'),
    projectId: z.number().int(),
    /** The label layer to learn from, by id. */
    layerId: z.number().int(),
    /** The gold layer that dev and test are scored on, by id. */
    goldLayerId: z.number().int(),
  }),
]);

export const modelSchema = z.object({
  encoder: z.enum(['bilstm', 'idcnn']).default('bilstm'),
  /** LSTM units per direction, or ID-CNN filters. */
  hidden: z.number().int().positive().default(100),
  idcnnIterations: z.number().int().positive().default(2),
  charDim: z.number().int().positive().default(30),
  charFilters: z.number().int().positive().default(30),
  /** crf; softmax; span (the span classifier); twopart (RoSTER: entity or not, then the type). */
  head: z.enum(['crf', 'softmax', 'span', 'twopart']).default('crf'),
  /** Span head: the longest span classified, in tokens, and the MLP's hidden units. */
  spanMaxLength: z.number().int().positive().max(30).default(10),
  spanHidden: z.number().int().positive().default(150),
  dropout: z.number().min(0).max(0.9).default(0.5),
});

export const trainSchema = z.object({
  epochs: z.number().int().positive().default(30),
  batchSize: z.number().int().positive().default(32),
  lr: z.number().positive().default(0.001),
  clip: z.number().positive().default(5),
  /** Stop after this many epochs without a better dev F1. */
  patience: z.number().int().positive().default(5),
  seed: z.number().int().default(1),
});

export const runConfigSchema = z.object({
  name: z.string().default('run'),
  data: dataSchema,
  model: modelSchema.default(modelSchema.parse({})),
  method: z.object({ name: z.string() }).passthrough().default({ name: 'supervised' }),
  train: trainSchema.default(trainSchema.parse({})),
  backend: z.enum(['auto', 'webgpu', 'wasm', 'webgl', 'cpu']).default('auto'),
});
export type RunConfig = z.infer<typeof runConfigSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type TrainConfig = z.infer<typeof trainSchema>;

/** Parses a run config, with an error that names the field at fault. */
export function parseRunConfig(raw: unknown, where = 'run config'): RunConfig {
  const r = runConfigSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${where}: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  return r.data;
}
