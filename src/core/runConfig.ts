import { z } from 'zod';
import { bondPipelineSchema } from '../methods/bond.def';
import { DEFAULT_PRESET } from '../methods/catalog';
import { completionPipelineSchema } from '../methods/completion.def';
import { decoupledPipelineSchema } from '../methods/decoupled.def';
import { needlePipelineSchema } from '../methods/needle.def';
import { puPipelineSchema } from '../methods/pu.def';
import { rosterPipelineSchema } from '../methods/roster.def';
import { sstPipelineSchema } from '../methods/sst.def';
import { singlePipelineSchema } from '../methods/supervised.def';
import { TAG_SCHEMES } from './types';
import { issueSentence } from './issueSentence';
import { abbreviationOptionsSchema } from './weak/abbreviations';

/**
 * A run, described by one serializable object: data, labels, model, method, hyperparameters and
 * seed. The same config on the same backend gives the same result.
 */
const fileSplit = z.union([z.object({ text: z.string(), labels: z.string() }).strict(), z.object({ conll: z.string() }).strict()]);

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
    /**
     * Strong labels: train documents that this layer annotates take its labels and count as
     * strong; the others keep the training layer's labels (weak when that layer is a weak one).
     */
    strongLayerId: z.number().int().optional(),
  }),
]);

export const modelSchema = z.object({
  encoder: z.enum(['bilstm', 'idcnn']).default('bilstm'),
  /** LSTM units per direction, or ID-CNN filters. */
  hidden: z.number().int().positive().max(2048).default(100),
  idcnnIterations: z.number().int().positive().default(2),
  charDim: z.number().int().positive().default(30),
  charFilters: z.number().int().positive().default(30),
  /** crf; softmax; span (the span classifier); twopart (RoSTER: entity or not, then the type). */
  head: z.enum(['crf', 'softmax', 'span', 'twopart']).default('crf'),
  /**
   * Angle-based decision vectors (PU paper, after Zhang and Liu 2014): the token head outputs k − 1
   * values, and the k tag scores are their inner products with the vertices of a centered
   * simplex, so the scores sum to zero (O-values become comparable across tokens).
   */
  angle: z.boolean().default(false),
  /** Span head: the longest span classified, in tokens, and the MLP's hidden units. */
  spanMaxLength: z.number().int().positive().max(30).default(10),
  spanHidden: z.number().int().positive().default(150),
  dropout: z.number().min(0).max(0.9).default(0.5),
  /**
   * Word dropout (Lample et al. 2016's unknown-word replacement): in training, each token reads as
   * a word the model does not know with this probability (no GloVe vector, the absent flag, the
   * shared unknown-word vector), its casing and characters kept, so that the model learns to tag
   * words by their spelling and context, as it must for names it never saw. 0: off. The default,
   * 0.1, is the leave-one-corpus-out rule's (BENCHMARKS.md, word dropout): over the suite's four
   * corpora it gains dev F1 on average for WSL with the priors and for the page's completion
   * pipeline. The bench configs measured before it pin 0.
   */
  wordDropout: z.number().min(0).max(0.5).default(0.1),
  /**
   * Dictionary features: where the project has gazetteers (a distant setting: the strings its
   * labels matched in training), the model reads each token's matches as input (src/core/lexicon.ts).
   */
  dictionary: z.boolean().default(true),
  /**
   * The share of dictionary matches left out of each training batch, so context is learned too.
   * "dev": the run's first stage trains once at each of DICTIONARY_DROPOUT_CHOICES and keeps the
   * one best on dev, and its later stages train at that value. How much to trust the dictionary
   * depends on how complete it is: bc5cdr's wants 0, conll03 distant's 0.75 (BENCHMARKS.md).
   */
  dictionaryDropout: z.union([z.literal('dev'), z.number().min(0).max(0.95)]).default('dev'),
  /**
   * With dictionary features: the project's rules' matches count as dictionary matches of their
   * label too (off by default: measured on the demo and bc5cdr, see BENCHMARKS.md).
   */
  ruleFeatures: z.boolean().default(false),
  /**
   * Words GloVe lacks get a vector spelled from their characters (a bag of character n-grams
   * trained to reproduce GloVe, src/model/spelling.ts) in place of zeros. On by default, an
   * exception to the leave-one-corpus-out rule (BENCHMARKS.md, spelling vectors): in the page's
   * pipeline over word dropout it gains dev on bc5cdr (+0.76) and twitter, loses on conll03 (−0.19)
   * and webpage's 99 dev sentences (−2.36), a mean of −0.30 over the four corpora, so the rule keeps
   * it only where webpage is left out; off, the demo's page-default run fell below its weak labels
   * on its old 150-sentence test (71.30 against 74.30; 78.43 on).
   */
  spelling: z.boolean().default(true),
  /**
   * The weak labels themselves (the aggregate of the project's sources, made for every split) as
   * model input too, one feature group per type, dropped like dictionary matches in training: the
   * model starts from what the weak labels say and learns from context where to differ. Needs weak
   * labels on the text it predicts (a dictionary setting; a project's weak layer); elsewhere it is off, and the run says so.
   * On by default, as on the training page (chosen on dev, BENCHMARKS.md).
   */
  weakFeatures: z.boolean().default(true),
  /**
   * The starter model's predictions (src/model/starter.ts: the studio's tagger trained on
   * CoNLL-2003's gold, PER/LOC/ORG/MISC) as model input too, four feature groups of their own,
   * dropped like dictionary matches in training. Off by default: it gained on tweets and web pages
   * and cost on biomedical text (BENCHMARKS.md); a project's own dev says which.
   */
  starter: z.boolean().default(false),
  /**
   * The whole public gazetteer library (core/publicGazetteers: cities, countries, parts of
   * people's names, brands) as dictionary features of their own groups, for this run only: each
   * list whose kind maps onto one of the project's types by name; a list the project has added is
   * read as it has it. Off by default: the leave-one-corpus-out rule keeps it for WSL with the
   * priors (dev +1.45 over the corpora it applies to), which the training page's rule candidates
   * run with it, and not for the page's pipeline (dev −0.91; BENCHMARKS.md, the rule decides every prior).
   */
  publicLibrary: z.boolean().default(false),
  /**
   * Each gazetteer's and rule's dictionary features read as that source's trust, as the HMM of the
   * project's newest weak labels run estimated it (core/weak/reliability.ts; the Weak labels
   * page's column), instead of 1: a match of a source the label model distrusts reads weaker.
   * Where no HMM made the weak labels, every match reads 1 and the run says so. Measured on
   * bc5cdr, the suite's only corpus of several sources (BENCHMARKS.md, each source's trust).
   */
  sourceReliability: z.boolean().default(false),
  /**
   * The abbreviations the text defines (core/weak/abbreviations.ts), read into the weak layer the
   * run trains on, for this run only: a short form in parentheses right after a typed weak span
   * ("chloroacetaldehyde ( CAA )") takes the span's type there and at its later occurrences, in
   * its document and the `following` ones (documents in import order), wherever the layer says O;
   * the weak-label features read the same layer. What the Weak labels page's option does to a new
   * aggregate, for a layer made without it. Absent: off. The training page's rule candidates set
   * it where the leave-one-corpus-out rule keeps it (BENCHMARKS.md, the abbreviations the text defines).
   */
  abbreviations: abbreviationOptionsSchema.optional(),
  /**
   * Epochs of encoder pre-training (0: off): the BiLSTM learns the project's unlabeled training
   * text as a bidirectional language model once (src/model/pretrain.ts), kept as a project asset,
   * and every stage of every method that would start from fresh weights starts from it.
   */
  pretrain: z.number().int().min(0).max(20).default(0),
  /** The language model's vocabulary: the most frequent lower-cased words of the text. */
  pretrainVocab: z.number().int().min(100).max(50_000).default(5000),
});

/** The values dictionaryDropout "dev" chooses among: those measured with 3 seeds over the user-scale suite. */
export const DICTIONARY_DROPOUT_CHOICES = [0, 0.5, 0.75] as const;

export const trainSchema = z.object({
  // Bounds a typo cannot pass (1e9 epochs): far above any run the studio makes.
  epochs: z.number().int().positive().max(1000).default(30),
  batchSize: z.number().int().positive().max(4096).default(32),
  // 0.002: the training page's, chosen on dev over the user-scale suite (BENCHMARKS.md).
  lr: z.number().positive().max(1).default(0.002),
  clip: z.number().positive().default(5),
  /** Stop after this many epochs without a better dev F1. */
  patience: z.number().int().positive().default(5),
  /**
   * Subtracted from the O tag's score when the final model decodes (Tagger.oShift): "dev" picks
   * it on the dev split among a few values (0 among them); a number fixes it (0: decode as trained).
   */
  oShift: z.union([z.literal('dev'), z.number().min(-10).max(10)]).default('dev'),
  /**
   * After the O shift, a shift per entity type, chosen on dev (chooseTypeShifts): weak labels miss
   * each type at its own rate. Also used where completion's teacher decodes the weak labels (for
   * the teacher alone: the completion pipeline's typeShifts).
   */
  typeShifts: z.boolean().default(false),
  /**
   * Weight averaging (src/model/average.ts): the decay of an exponential moving average of the
   * weights that dev scores and the final model read; 0 trains without one. 0.99 averages about
   * the last 100 steps.
   */
  average: z.number().min(0).max(0.9999).default(0),
  /**
   * A test-time ensemble (engine/run.ts): the pipeline trains this many times, member k with seed
   * seed + 1000·k (member 1 is the run of `seed`), and the members decode as one (TaggerEnsemble:
   * the mean of their emission scores and CRF parameters), whose O shift and type shifts are then
   * chosen on dev afresh. 1: one model. The studio keeps every member's weights with the model
   * (a review-loop fine-tune starts from the first); `studio experiment` records each member's
   * scores; `studio train` and simulate-review, which keep one tagger, refuse more than 1.
   */
  members: z.number().int().min(1).max(9).default(1),
  /**
   * An ensemble whose dictionary dropout is chosen on dev (model.dictionaryDropout "dev"): members
   * after the first train at the value the first chose, instead of trying every value again. A
   * member then trains one teacher, not one per value: the suite's ensembles of 3 took 55-80 % of
   * the time, at dev F1 level on conll03 and a little lower on tweets and web pages (BENCHMARKS.md).
   */
  shareDropout: z.boolean().default(false),
  seed: z.number().int().default(1),
});

/** "LOC +0.5, MISC +1, ORG 0, PER −0.25": a run's type shifts for a person to read. */
export function describeTypeShifts(shifts: Readonly<Record<string, number>>): string {
  return Object.entries(shifts)
    .map(([t, v]) => `${t} ${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v)}`)
    .join(', ');
}

/**
 * A run's procedure around its method's loss, by kind: each method's options are in its module's
 * `.def.ts` (src/methods), with their defaults, labels and help. 'single' is one training run.
 */
export const pipelineSchema = z.discriminatedUnion('kind', [
  singlePipelineSchema,
  sstPipelineSchema,
  completionPipelineSchema,
  needlePipelineSchema,
  rosterPipelineSchema,
  bondPipelineSchema,
  puPipelineSchema,
  decoupledPipelineSchema,
]);
export type Pipeline = z.infer<typeof pipelineSchema>;

/** How many sentences of the project's unlabeled text a pipeline self-trains on: its `unlabeled` option, where its method has one (0: none). */
export function selfTrainingPoolSize(pipeline: Pipeline): number {
  return 'unlabeled' in pipeline && typeof pipeline.unlabeled === 'number' ? pipeline.unlabeled : 0;
}

/**
 * A config that names neither a method nor a pipeline gets the training page's default preset
 * (weak-label completion with WSL); one that names either gets, for the other, a lone method
 * (supervised) or one training run (single).
 */
export function withDefaultRun(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || 'method' in raw || 'pipeline' in raw) return raw;
  return { ...raw, method: DEFAULT_PRESET.method, pipeline: DEFAULT_PRESET.pipeline };
}

const runConfigObject = z.object({
  name: z.string().default('run'),
  /** A method's label in tables (an experiment's): runs of one label and config differ only in the seed. */
  label: z.string().optional(),
  data: dataSchema,
  model: modelSchema.default(modelSchema.parse({})),
  method: z.object({ name: z.string() }).passthrough().default({ name: 'supervised' }),
  /** Multi-stage methods (SST, NEEDLE, RoSTER) around the method's loss; 'single' is one training run. */
  pipeline: pipelineSchema.default({ kind: 'single' }),
  train: trainSchema.default(trainSchema.parse({})),
  backend: z.enum(['auto', 'webgpu', 'wasm', 'webgl', 'cpu']).default('auto'),
  /**
   * The review loop's fine-tune: starts from the final model of run `fromRunId` (one stage, the
   * same tags and features) after `corrections` reviewed sentences of the strong layer.
   */
  loop: z.object({ fromRunId: z.number().int(), corrections: z.number().int().nonnegative() }).strict().optional(),
});
export const runConfigSchema = z.preprocess(withDefaultRun, runConfigObject);
export type RunConfig = z.infer<typeof runConfigSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type TrainConfig = z.infer<typeof trainSchema>;

/** Parses a run config, with an error that names the field at fault. */
export function parseRunConfig(raw: unknown, where = 'run config'): RunConfig {
  const r = runConfigSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${where}: ${issue.path.join('.') || '(top)'}: ${issueSentence(issue)}`);
  }
  return r.data;
}

/**
 * A run's config without its name and seed: runs with equal keys differ only in the seed. Options
 * added since runs were first stored are left out where they hold their default, which is what a
 * stored run without them ran with (`train.members` 1: one model; `train.shareDropout` false), so that an experiment sees an
 * old run as done and the comparison groups it with its new seeds.
 */
export function runGroupKey(cfg: RunConfig): string {
  const { name: _name, train, ...rest } = cfg;
  const { seed: _seed, members, shareDropout, ...trainRest } = train ?? { seed: 0 };
  return JSON.stringify({
    ...rest,
    train: { ...trainRest, ...(members !== undefined && members !== 1 ? { members } : {}), ...(shareDropout ? { shareDropout } : {}) },
  });
}

/** How tables name a run's method: its label, else the pipeline and the method. */
export function runMethodName(cfg: Pick<RunConfig, 'label' | 'pipeline' | 'method'>): string {
  if (cfg.label) return cfg.label;
  const m = cfg.method as ({ name?: string } & Record<string, unknown>) | undefined;
  // Variants of one method that tables must tell apart: its options that are choices by name
  // (negative sampling's uniform and weighted sampling).
  const choices = Object.entries(m ?? {}).filter(([k, v]) => k !== 'name' && typeof v === 'string');
  const variant = choices.length ? ` (${choices.map(([, v]) => v).join(', ')})` : '';
  return `${cfg.pipeline && cfg.pipeline.kind !== 'single' ? `${cfg.pipeline.kind} · ` : ''}${m?.name ?? '?'}${variant}`;
}

const HEAD_NAMES: Record<string, string> = { crf: 'CRF', softmax: 'softmax', span: 'span classifier', twopart: 'two-part (RoSTER)' };

/** A run's model in a table: encoder, size and head, with the features that change what it reads. */
export function modelName(cfg: Pick<RunConfig, 'model'>): string {
  const m = cfg.model;
  if (!m) return '?';
  const extras = [
    m.dictionary === true && 'dictionary',
    m.weakFeatures === true && 'weak labels in',
    m.starter === true && 'starter model in',
    m.publicLibrary === true && 'public gazetteers',
    m.abbreviations !== undefined && 'abbreviations read',
    m.spelling === true && 'spelling vectors',
    (m.pretrain ?? 0) > 0 && `pre-trained encoder (${m.pretrain} epochs)`,
  ].filter(Boolean);
  return `${m.encoder} ${m.hidden} · ${HEAD_NAMES[m.head] ?? m.head}${extras.map((e) => ` · ${e}`).join('')}`;
}

/**
 * An object schema's fields as overrides: each optional and without its default, so that parsing
 * `{ head: 'span' }` gives exactly that, and merging it over another config changes only what it
 * names. (Zod's .partial() keeps the defaults: an override of one field would reset the others.)
 */
function overridesOf<S extends z.ZodRawShape>(schema: z.ZodObject<S>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([k, v]) => [k, (v instanceof z.ZodDefault ? (v.unwrap() as z.ZodType) : (v as z.ZodType)).optional()]),
  );
  return z.object(shape).strict() as unknown as z.ZodType<Partial<z.infer<z.ZodObject<S>>>>;
}

/** Model and training overrides (experiment configs): only the fields they name. */
export const modelOverrides = overridesOf(modelSchema);
export const trainOverrides = overridesOf(trainSchema);
