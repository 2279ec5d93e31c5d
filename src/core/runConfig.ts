import { z } from 'zod';
import { TAG_SCHEMES } from './types';

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
   * trained to reproduce GloVe, src/model/spelling.ts) in place of zeros. On: dev F1 +0.8 on bc5cdr,
   * +1.3 on the demo, level on conll03 (BENCHMARKS.md).
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
  seed: z.number().int().default(1),
});

/** "LOC +0.5, MISC +1, ORG 0, PER −0.25": a run's type shifts for a person to read. */
export function describeTypeShifts(shifts: Readonly<Record<string, number>>): string {
  return Object.entries(shifts)
    .map(([t, v]) => `${t} ${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v)}`)
    .join(', ');
}

const lmSchema = z.object({ epochs: z.number().int().min(0), vocab: z.number().int().min(2) }).strict();

export const pipelineSchema = z.discriminatedUnion('kind', [
  /** One training run with the config's method. */
  z.object({ kind: z.literal('single') }).strict(),
  /** Self-training: a supervised model labels the weak sentences, then training goes on over all. */
  z.object({ kind: z.literal('sst') }).strict(),
  /**
   * Weak-label completion (NEEDLE's Eq. 2, with no strong labels): a WSL teacher, decoded with the
   * O shift chosen on dev, gives the weak labels' O tokens its predictions; a student goes on from
   * the teacher on the completed labels. Distant labels miss entities; the shifted teacher finds
   * some of them, and the student learns them as entities instead of O.
   */
  z
    .object({
      kind: z.literal('completion'),
      rounds: z.number().int().min(1).max(5).default(1),
      /**
       * The teacher decodes the weak labels with a shift per entity type too, chosen on dev after
       * its O shift (train.typeShifts turns it on as well, with the final model's).
       */
      typeShifts: z.boolean().default(false),
      /**
       * Where the teacher's dictionary dropout is chosen on dev (model.dictionaryDropout "dev"),
       * the first round's teacher is the mean of the models trained at every rate (TaggerEnsemble)
       * rather than the one chosen; the student still goes on from the chosen one.
       */
      teacherEnsemble: z.boolean().default(false),
      /**
       * Cross-fitted completion in the first round: with k > 1 the weak sentences are split into k
       * folds, and each fold is completed by a teacher trained on the other folds (at the run's
       * dictionary dropout), decoded with shifts chosen on dev. No teacher completes a sentence it
       * was trained on: a teacher reproduces the O tags it learned, so its shifts, chosen on text it
       * never saw, fit the sentences it completes. The student still goes on from the teacher
       * trained on every sentence. 1: the one teacher completes all of them.
       */
      folds: z.number().int().min(1).max(5).default(1),
      /**
       * The teacher's spans also replace the weak spans they overlap (a weak span no teacher span
       * overlaps stays): the teacher corrects the weak labels' types and boundaries, not only
       * their misses. Off: weak entity tags stay, only weak O tokens take the teacher's tags.
       */
      relabel: z.boolean().default(false),
      /**
       * Self-training on unlabeled text: in the last round (the last unlabeledRounds rounds) the
       * teacher also labels up to this many sentences of the project's unlabeled text (in the
       * studio its unassigned documents; in an experiment the setting's `unlabeled` file, less the
       * sentences of train, dev and test), and the student learns from them with the completed
       * weak labels. 0: off.
       */
      unlabeled: z.number().int().min(0).max(200_000).default(0),
      /**
       * How many of the last rounds self-train (with `unlabeled` > 0): 2 has the second-to-last
       * round's teacher label the unlabeled text for its student too, and the last teacher, trained
       * on those labels, label it anew. At least the rounds: every round self-trains.
       */
      unlabeledRounds: z.number().int().min(1).max(5).default(1),
      /**
       * A round that self-trains gives its student a fresh start: from the pre-trained encoder
       * (where the run has one), not from its teacher's weights, so it learns the teacher's labels
       * rather than going on from them (Noisy Student, Xie et al. 2020).
       */
      freshStudent: z.boolean().default(false),
      /**
       * The run keeps the best model on dev among the teacher's and each round's student's (each
       * scored as the run scores its final model: with the O shift chosen on dev), and stops at
       * the first round whose student does not beat the best so far. Off: every round runs and
       * the last student is the run's model.
       */
      keepBest: z.boolean().default(false),
    })
    .strict(),
  /** NEEDLE (Jiang et al. 2021), Stages II and III, with the ablation switches. */
  z
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
    .strict(),
  /**
   * RoSTER (Meng et al. 2021) after its noise-robust loss: K models trained with the config's
   * method (roster), one seed each (see ensembleSeeds), a model distilled from their average prediction
   * (Eq. 6), then rounds of self-training on sharpened soft labels (Eq. 8-9), each on the original
   * sentences and on copies augmented by the studio's own language model (Eq. 7).
   */
  z
    .object({
      kind: z.literal('roster'),
      /**
       * Noise-robust models in the ensemble. 2, not the paper's 5, for cost: over the user-scale
       * suite (3 seeds, best stage kept, stopping early) 3 models are better on dev in every setting
       * by 0.19-0.53 (mean dev 79.64, from runs whose seeds overlapped, against 79.31 for 2 with
       * independent seeds), but a bc5cdr run of 3
       * passes the suite's 30-minute bound on a 2-core machine and a run of 2 takes 17-22 minutes;
       * 3 and 5 are level on conll03 distant 1k, and each model is about a third of a run's time
       * (BENCHMARKS.md). Users with a GPU or time to spare gain a little from 3.
       */
      models: z.number().int().min(1).default(2),
      /**
       * Self-training rounds (0: the "w/o ST" ablation). 2, not the paper's 3: chosen on dev over the
       * user-scale suite (3 seeds; level within the noise, one round less; BENCHMARKS.md).
       */
      rounds: z.number().int().min(0).default(2),
      /** Epochs of each self-training round, and its learning rate (the paper lowers it). */
      roundEpochs: z.number().int().positive().default(2),
      roundLr: z.number().positive().default(0.0005),
      /**
       * Self-training sharpens the type distribution (Eq. 8) of the tokens the model gives
       * P(entity) of at least this (0.8 in the authors' code); the others keep the model's own.
       */
      entityThreshold: z.number().min(0).max(1).default(0.8),
      /**
       * Augmentation (Eq. 7) by the studio's own bidirectional language model trained on the
       * training text: each round adds a copy of every sentence with this share of words replaced
       * (0: no augmentation).
       */
      augmentRate: z.number().min(0).max(1).default(0.15),
      /**
       * The language model trained for the augmentation when the run has no pre-trained encoder
       * (model.pretrain 0); with one, the encoder's own language model augments, untrained here.
       */
      lm: lmSchema.default({ epochs: 3, vocab: 10000 }),
      /**
       * The run's model: the best on dev among every stage's (each noise-robust model, the
       * distilled one, each round's), as BOND keeps its teacher; false: the last round's, as in the
       * paper. Where self-training gains on dev (conll03 distant) the two agree; where the weak
       * labels are precise (bc5cdr) the stages after the first lose precision (BENCHMARKS.md).
       */
      keepBest: z.boolean().default(true),
      /**
       * With keepBest: the pipeline ends at the first stage after the ensemble (distillation, a
       * round) that does not beat the best model so far on dev, since the next stages learn from
       * its predictions; false, or keepBest false: every stage runs, as in the paper. Over the
       * suite's 30 whole-pipeline runs recorded without it, it would have stopped 25 before their
       * last stage, and left out a stage that won on dev in 4 of them, by 0.08-0.24 F1 (within a
       * seed's noise); it spares bc5cdr's rounds (BENCHMARKS.md).
       */
      stopEarly: z.boolean().default(true),
      /**
       * The seeds of the ensemble's models: "spread", model k (from 0) of a run of seed s trains
       * with seed s + 1000·k, so runs of seeds 1-3 share no model; "consecutive", seeds s…s+K−1,
       * as before the twenty-second session, where the models of seeds 1-3 overlapped (seed 1's
       * model 2 was seed 2's model 1) and a run that kept such a model repeated another seed's.
       */
      ensembleSeeds: z.enum(['spread', 'consecutive']).default('spread'),
      /**
       * Self-training on unlabeled text too: each round also labels up to this many sentences of
       * the project's unlabeled text (as completion's `unlabeled`) with the same sharpened targets
       * (Eq. 8), augmented as the training text is. The rounds read no distant label. 0: off.
       */
      unlabeled: z.number().int().min(0).max(200_000).default(0),
    })
    .strict(),
  /**
   * BOND (Liang et al. 2020): Stage 1, a teacher trained on the distant labels and stopped early
   * (`teacherEpochs` at most; the loop keeps its best epoch on dev and stops after `patience`
   * epochs without a better one, which is BOND's early stopping chosen on dev); Stage 2, self-training: the teacher's soft
   * pseudo-labels (sharpened, §3.2) on the tokens whose largest soft label reaches `threshold`
   * teach a student that starts from the teacher, and every `roundEpochs` epochs the student
   * becomes the teacher, `rounds` times. Needs per-token probabilities: the softmax or two-part head.
   */
  z
    .object({
      kind: z.literal('bond'),
      teacherEpochs: z.number().int().positive().default(20),
      rounds: z.number().int().min(1).max(50).default(5),
      roundEpochs: z.number().int().positive().default(1),
      roundLr: z.number().positive().default(0.001),
      threshold: z.number().min(0).max(1).default(0.9),
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
       * 0: off.
       */
      unlabeled: z.number().int().min(0).max(200_000).default(0),
    })
    .strict(),
  /**
   * PU learning + negative sampling (paper 003, Algorithm 1): `explore` epochs of plain training,
   * the O-values of every O-tagged token, the ⌈λ·m⌉ smallest taken out of the loss, then training
   * from scratch with the config's method (pu: token-level negative sampling at rate γ).
   */
  z
    .object({
      kind: z.literal('pu'),
      explore: z.number().int().positive().default(2),
      lambda: z.number().gt(0).lt(1).default(0.1),
    })
    .strict(),
  /**
   * The decoupled mention / context model (paper 004): region classification from a mention
   * encoder and a context encoder, optionally pre-trained on a dictionary and on distant labels,
   * then trained on the human labels with L = L_g + α·L_m + β·L_c (Eq. 10).
   */
  z
    .object({
      kind: z.literal('decoupled'),
      alpha: z.number().min(0).max(1).default(0.5),
      beta: z.number().min(0).max(1).default(0.5),
      /** One encoder for mentions and contexts (the paper shares them) or two. */
      shared: z.boolean().default(true),
      /** Candidate regions: spans up to this many tokens that pass the cheap filter, plus dictionary matches. */
      maxLength: z.number().int().min(1).max(10).default(4),
      /**
       * Spans a token-level tagger proposes join the candidates at prediction (longer entities than
       * maxLength among them): the run's model, supervised on the human labels, is trained first.
       */
      proposer: z.boolean().default(false),
      /** O regions drawn anew each epoch per human-labeled sentence, from its candidates that are not entities. */
      negatives: z.number().int().min(0).default(4),
      /**
       * A shift added to the O class's log-probability at prediction: training sees `negatives` O
       * regions a sentence, prediction every candidate. A number, or 'dev': chosen each epoch on dev
       * span F1 from −3 to 3 in steps of 0.25 (with the model). 'dev' by default: on 100 gold sentences
       * beside conll03 distant 1k it gained 1.5 dev F1 over 0 (3 seeds; BENCHMARKS.md), bc5cdr's runs chose it too.
       */
      oShift: z.union([z.number().min(-10).max(10), z.literal('dev')]).default('dev'),
      /** Mention pre-training on dictionary entries (epochs 0: off); O examples per entry. */
      mentionPretrain: z
        .object({ epochs: z.number().int().min(0).default(0), oRatio: z.number().min(0).default(1) })
        .strict()
        .default({ epochs: 0, oRatio: 1 }),
      /** Context pre-training on distant sentences (epochs 0: off): masked words + region type. */
      contextPretrain: z
        .object({
          epochs: z.number().int().min(0).default(0),
          vocab: z.number().int().min(2).default(5000),
          oRatio: z.number().min(0).default(1),
          maxSentences: z.number().int().positive().optional(),
        })
        .strict()
        .default({ epochs: 0, vocab: 5000, oRatio: 1 }),
    })
    .strict(),
]);
export type Pipeline = z.infer<typeof pipelineSchema>;

/** How many sentences of the project's unlabeled text a pipeline self-trains on: its `unlabeled` option, where its method has one (0: none). */
export function selfTrainingPoolSize(pipeline: Pipeline): number {
  return 'unlabeled' in pipeline && typeof pipeline.unlabeled === 'number' ? pipeline.unlabeled : 0;
}

export const runConfigSchema = z.object({
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

/** A run's config without its name and seed: runs with equal keys differ only in the seed. */
export function runGroupKey(cfg: RunConfig): string {
  const { name: _name, train, ...rest } = cfg;
  const { seed: _seed, ...trainRest } = train ?? { seed: 0 };
  return JSON.stringify({ ...rest, train: trainRest });
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
