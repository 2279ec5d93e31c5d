/**
 * Experiment configs (bench/configs/*.json): settings × methods × seeds. The CLI's `experiment`
 * verb runs every setting from files; the training page runs an experiment's methods × seeds on a
 * project's layers (its setting), so both read the same files.
 */
import { z } from 'zod';
import { PUBLIC_GAZETTEERS } from './publicGazetteers';
import { abbreviationOptionsSchema } from './weak/abbreviations';
import { CASE_UP_TO_MAX } from './weak/gazetteerMatcher';
import {
  modelOverrides,
  parseRunConfig,
  pipelineSchema,
  withDefaultRun,
  trainOverrides,
  type ModelConfig,
  type RunConfig,
  type TrainConfig,
} from './runConfig';
import { issueSentence } from './issueSentence';

export const splitSchema = z.union([z.object({ text: z.string(), labels: z.string() }).strict(), z.object({ conll: z.string() }).strict()]);
const common = {
  name: z.string(),
  dev: splitSchema,
  test: splitSchema,
  limitTrain: z.number().int().positive().optional(),
  limitDev: z.number().int().positive().optional(),
  /**
   * More raw text (one sentence a line, tokens between spaces) for encoder pre-training
   * (model.pretrain) beside the training sentences; never dev or test text.
   */
  unlabeled: z.string().optional(),
  /** The dataset the setting draws on (its name when absent): leave-one-corpus-out leaves a dataset's settings out together. */
  dataset: z.string().optional(),
  /** Public gazetteers (core/publicGazetteers) mapped onto the setting's types: dictionary features of their own groups. */
  publicGazetteers: z.array(z.object({ list: z.enum(PUBLIC_GAZETTEERS), type: z.string().min(1) }).strict()).optional(),
  /**
   * A starter model (a tagger trained on another corpus, `train --out`; never scored on its own
   * corpus) whose predictions on every split are, with "features", dictionary features of their
   * own groups (one per its type: the model learns what each is worth here), or, with "source",
   * a weak source: its spans, typed by `map`, fill the weak labels' O tokens on train.
   */
  starter: z
    .object({ model: z.string(), use: z.enum(['features', 'source']).default('features'), map: z.record(z.string(), z.string()).default({}) })
    .strict()
    .optional(),
  /**
   * An encoder pre-trained elsewhere (src/model/englishEncoder.ts: the Brown corpus's, built by
   * scripts/build-english-encoder.ts) that every run of the setting starts from, where its
   * method's model has no pre-training of its own (model.pretrain 0).
   */
  encoder: z.object({ asset: z.string() }).strict().optional(),
};

export const settingSchema = z.discriminatedUnion('kind', [
  /**
   * Every training sentence with its distant (weak) labels. With entryReliability, each dictionary
   * entry's matches read as its reliability on the training sentences (core/lexicon.ts) instead of 1.
   */
  z
    .object({
      kind: z.literal('distant'),
      train: z.object({ text: z.string(), weak: z.string(), gold: z.string().optional() }).strict(),
      entryReliability: z.boolean().optional(),
      /**
       * The abbreviations the text defines after a typed distant span, read into the training
       * sentences' distant labels as a dictionary setting reads them into its aggregate
       * (core/weak/abbreviations.ts), before anything else reads those labels (the dictionary its
       * model reads included). Absent: off.
       */
      abbreviations: abbreviationOptionsSchema.optional(),
      ...common,
    })
    .strict(),
  /** A seeded fraction of the training sentences with gold labels, the rest with weak ones (NEEDLE's setting). */
  z
    .object({
      kind: z.literal('mixed'),
      train: z.object({ text: z.string(), gold: z.string(), weak: z.string() }).strict(),
      strongFraction: z.number().gt(0).lt(1),
      splitSeed: z.number().int().default(1),
      ...common,
    })
    .strict(),
  /**
   * Synthetic missing annotations (papers 002 and 003): gold labels with each entity turned into O
   * with probability p, seeded; the hidden entities are remembered for the diagnostics.
   */
  z
    .object({
      kind: z.literal('masked'),
      train: z.object({ text: z.string(), gold: z.string() }).strict(),
      p: z.number().min(0).max(1),
      maskSeed: z.number().int().default(1),
      ...common,
    })
    .strict(),
  /** Weak labels made by the weak-labeling engine from gazetteers and rules over raw text. */
  z
    .object({
      kind: z.literal('dictionary'),
      corpus: z.string(),
      gazetteers: z.array(z.string()).default([]),
      untyped: z.array(z.string()).default([]),
      rules: z.string().optional(),
      /**
       * How the sources combine. "dev": each of the three label models labels the training text
       * and the dev sentences that select models (the HMM fitted on the training text, as always),
       * and the one whose weak labels score best on that dev gold labels everything, the HMM first
       * on a tie (SettingData.labelModel says which, and every method's dev F1).
       */
      aggregate: z.enum(['priority', 'vote', 'hmm', 'dev']).default('hmm'),
      case: z.enum(['sensitive', 'insensitive', 'normalized']).default('insensitive'),
      /**
       * Entries of at most this many characters match only with their own case, whatever `case`
       * says (the element symbols "Mg" and "P" are not "mg" and "p"). Absent: none.
       */
      caseUpTo: z.number().int().min(1).max(CASE_UP_TO_MAX).optional(),
      /** EM's iteration cap for this setting's HMM (15, HMM_ITERATIONS, when absent); EM stops sooner where it settles. */
      hmmIterations: z.number().int().min(1).max(1000).optional(),
      /** Type the untyped lists' matches by their spelling, learned from the typed gazetteers (core/weak/spellingTyper.ts). */
      typeUntyped: z.boolean().default(true),
      /**
       * The text the HMM is fitted on: the training corpus ("train": nothing is fitted on text that
       * selects or scores a model), or it with the dev and test text ("all", no gold read: what the
       * Weak labels page does, fitting on every document of a project).
       */
      labelModelText: z.enum(['train', 'all']).default('train'),
      /**
       * The abbreviations the text defines after a typed dictionary match, as one more source
       * (core/weak/abbreviations.ts); `following`: the documents after the defining one it also
       * holds in, for text of one sentence a line. Absent: off.
       */
      abbreviations: abbreviationOptionsSchema.optional(),
      /**
       * The model's dictionary features read each gazetteer's, untyped list's and rule's matches as
       * that source's reliability, as the label model estimates it on the training text
       * (core/weak/reliability.ts), instead of 1. Absent: off.
       */
      sourceReliability: z.boolean().optional(),
      ...common,
    })
    .strict(),
  /**
   * Heterogeneous data (paper 004): human-labeled sentences (a seeded fraction of a gold file, or
   * a whole CoNLL file), distantly labeled sentences (a label file over text, or raw text labeled
   * by gazetteers), and a typed dictionary (a TSV file, or the distinct entity strings of the
   * distant labels with their most frequent type). With holdOut, that share of the human
   * sentences is the dev set that selects the model (for data whose only labels are a dev set).
   */
  z
    .object({
      kind: z.literal('heterogeneous'),
      name: z.string(),
      human: z.union([z.object({ text: z.string(), gold: z.string() }).strict(), z.object({ conll: z.string() }).strict()]),
      humanFraction: z.number().gt(0).max(1).default(1),
      splitSeed: z.number().int().default(1),
      holdOut: z.number().gt(0).lt(1).optional(),
      distant: z.union([
        z.object({ text: z.string(), weak: z.string() }).strict(),
        z
          .object({
            corpus: z.string(),
            gazetteers: z.array(z.string()).min(1),
            case: z.enum(['sensitive', 'insensitive', 'normalized']).default('insensitive'),
          })
          .strict(),
      ]),
      dictionary: z.union([z.literal('distant'), z.object({ file: z.string() }).strict()]),
      dev: splitSchema.optional(),
      test: splitSchema,
      limitTrain: z.number().int().positive().optional(),
      limitDev: z.number().int().positive().optional(),
      limitDistant: z.number().int().positive().optional(),
      unlabeled: z.string().optional(),
      dataset: z.string().optional(),
    })
    .strict(),
]);

/**
 * Rows that train nothing and are scored once, as seed 0: "weak-labels" (the weak labels
 * themselves) and "dictionary-match" (the setting's dictionary matched over the test text).
 */
export const SCORED_ONLY_METHODS = ['weak-labels', 'dictionary-match'] as const;
export const isScoredOnly = (name: string): boolean => (SCORED_ONLY_METHODS as readonly string[]).includes(name);

export const experimentSchema = z
  .object({
    name: z.string(),
    /** What the experiment is for, and why its rows are together (documentation only). */
    about: z.string().optional(),
    model: modelOverrides.default({}),
    train: trainOverrides.default({}),
    settings: z.array(settingSchema).min(1),
    methods: z
      .array(
        z.preprocess(
          withDefaultRun,
          z
            .object({
              label: z.string(),
              /**
               * A method, or "weak-labels": no training; the weak labels themselves are scored (a
               * distant setting against its train gold file, a dictionary setting by labeling the
               * test text with the same sources), once, as seed 0.
               */
              method: z.object({ name: z.string() }).passthrough().default({ name: 'supervised' }),
              pipeline: pipelineSchema.default({ kind: 'single' }),
              scheme: z.enum(['BIO', 'IO']).default('BIO'),
              model: modelOverrides.default({}),
              train: trainOverrides.default({}),
              /** Settings (by name) this method runs in; all when absent. */
              settings: z.array(z.string()).optional(),
              /** A variant's own seeds (one is enough for a variant); the experiment's when absent. */
              seeds: z.array(z.number().int()).min(1).optional(),
            })
            .strict(),
        ),
      )
      .min(1),
    seeds: z.array(z.number().int()).min(1).default([1, 2, 3]),
    /**
     * Leave-one-corpus-out (`experiment --loco`, core/loco.ts): the row every gain is measured
     * against, the rows the rule chooses among (every trained row when absent), and priors: experiment
     * configs (relative to this one) whose settings are this one's, renamed "<setting> + <prior>", and
     * whose methods are rows of this one run again with the prior; the rule keeps each for the rows it helps.
     * A prior that cannot apply to a corpus (a gazetteer library with no list of its kinds of type)
     * names it in `inert`, with why: that corpus neither votes on it nor is read with it.
     */
    loco: z
      .object({
        reference: z.string(),
        candidates: z.array(z.string()).min(1).optional(),
        priors: z
          .array(z.union([z.string(), z.object({ config: z.string(), inert: z.record(z.string(), z.string().min(1)) }).strict()]))
          .min(1)
          .optional(),
      })
      .strict()
      .optional(),
    /** Where finished runs are recorded (JSONL), relative to the config file's folder. */
    records: z.string(),
  })
  .strict();
export type Experiment = z.infer<typeof experimentSchema>;
export type Setting = z.infer<typeof settingSchema>;

/**
 * What the training page takes from an experiment config: its methods, seeds, and model and
 * training options; the setting is the project's layers, so settings and records are not read.
 */
export const experimentMethodsSchema = experimentSchema.pick({ name: true, model: true, train: true, methods: true, seeds: true }).loose();
export type ExperimentMethods = z.infer<typeof experimentMethodsSchema>;
export type ExperimentMethod = ExperimentMethods['methods'][number];

/** An experiment config's methods part, or an error naming the field at fault. */
export function parseExperimentMethods(text: string, file: string): ExperimentMethods {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: invalid JSON (${(e as Error).message})`);
  }
  const r = experimentMethodsSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${file}: ${issue.path.join('.') || '(top)'}: ${issueSentence(issue)}`);
  }
  return r.data;
}

/** "1, 2, 3" or "1-5" as seeds. */
export function parseSeeds(text: string): number[] {
  const out: number[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range && Number(range[1]) <= Number(range[2])) for (let k = Number(range[1]); k <= Number(range[2]); k++) out.push(k);
    else if (/^\d+$/.test(part)) out.push(Number(part));
    else throw new Error(`seeds: "${part}" is not a whole number or a range like 1-3`);
  }
  if (!out.length) throw new Error('seeds: give at least one, e.g. 1, 2, 3');
  return [...new Set(out)];
}

export interface PlannedRun {
  label: string;
  seed: number;
  config: RunConfig;
}

/**
 * The runs of methods × seeds on one setting: each method's config over the experiment's over the
 * base (the training page's form; the CLI's has only its data), checked as a run config. Methods that train nothing (the weak
 * labels scored as they are) are returned apart.
 */
export function planExperiment(
  exp: { name: string; model?: Partial<ModelConfig>; train?: Partial<TrainConfig>; methods: readonly ExperimentMethod[]; seeds: readonly number[] },
  base: Pick<RunConfig, 'data'> & { model?: Partial<ModelConfig>; train?: Partial<TrainConfig>; backend?: RunConfig['backend'] },
): { runs: PlannedRun[]; skipped: string[] } {
  const runs: PlannedRun[] = [];
  const skipped: string[] = [];
  for (const m of exp.methods) {
    if (isScoredOnly(m.method.name)) {
      skipped.push(m.label);
      continue;
    }
    for (const seed of m.seeds ?? exp.seeds) {
      const config = parseRunConfig(
        {
          name: `${exp.name} · ${m.label} · seed ${seed}`,
          label: m.label,
          data: base.data,
          model: { ...base.model, ...exp.model, ...m.model },
          method: m.method,
          pipeline: m.pipeline,
          train: { ...base.train, ...exp.train, ...m.train, seed },
          backend: base.backend,
        },
        m.label,
      );
      // The training page tags IO with the two-part head (RoSTER's) and BIO with every other.
      if ((m.scheme === 'IO') !== (config.model.head === 'twopart'))
        throw new Error(
          `${m.label}: scheme ${m.scheme} with the ${config.model.head} head: the training page tags IO with the two-part head only, BIO with the others`,
        );
      runs.push({ label: m.label, seed, config });
    }
  }
  return { runs, skipped };
}
