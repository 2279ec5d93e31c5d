import { z } from 'zod';
import type { ReviewSignal } from '../core/reviewSignals';
import type { MethodDef } from './def';

/**
 * Weak-label completion (NEEDLE's Eq. 2, with no strong labels): a WSL teacher, decoded with the
 * O shift chosen on dev, gives the weak labels' O tokens its predictions; a student goes on from
 * the teacher on the completed labels. Distant labels miss entities; the shifted teacher finds
 * some of them, and the student learns them as entities instead of O.
 */
export const completionPipelineSchema = z
  .object({
    kind: z.literal('completion'),
    /**
     * Up to 3 rounds, the last two self-training, keeping the best model on dev and stopping at the
     * first round that does not beat it (keepBest): rounds gain on conll03 distant and lose on
     * bc5cdr and the demo, where the run stops after round 2 and keeps round 1 (BENCHMARKS.md, the
     * twenty-ninth session's section). These defaults are the training page's and `studio train`'s;
     * the experiment configs pin the values they were measured with.
     */
    rounds: z.number().int().min(1).max(5).default(3),
    /**
     * The teacher decodes the weak labels with a shift per entity type too, chosen on dev after
     * its O shift (train.typeShifts turns it on as well, with the final model's). On: mean dev
     * +0.40 over the user-scale suite (conll03 distant 3k +0.94, 1k +0.31, bc5cdr −0.04; the demo
     * level), at no training cost (BENCHMARKS.md).
     */
    typeShifts: z.boolean().default(true),
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
     * weak labels. 0: off. 10,000 (none in the demo: no effect there): conll03 distant 3k dev +0.5
     * at one round, +1.24 at three rounds (test +1.46), 1k +2.7 dev at three (BENCHMARKS.md).
     */
    unlabeled: z.number().int().min(0).max(200_000).default(10_000),
    /**
     * How many of the last rounds self-train (with `unlabeled` > 0): 2 has the second-to-last
     * round's teacher label the unlabeled text for its student too, and the last teacher, trained
     * on those labels, label it anew. At least the rounds: every round self-trains.
     */
    unlabeledRounds: z.number().int().min(1).max(5).default(2),
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
    keepBest: z.boolean().default(true),
  })
  .strict();

/** NEEDLE's weak label completion (Eq. 2), and the completion method's: weak-O tokens given an entity tag. */
export const completionSignal: ReviewSignal = {
  id: 'needle',
  title: 'weak-label completion (NEEDLE, or the completion method) gave weak O tokens an entity type',
  score: 'count',
  rankedBy: 'how many tokens',
  present: (sg) => !!sg.completion,
  flag: (t, { word, signals }) => {
    const c = signals?.completion?.[t];
    return c !== undefined ? { value: 1, why: `${word} (weak O, completed as ${c})` } : undefined;
  },
};

declare module '../core/reviewSignals' {
  interface DocSignals {
    /** Token → the tag weak label completion (this method's, or NEEDLE's) gave a weak-O token (entity tags only). */
    completion?: Record<number, string>;
  }
}
declare module './stages' {
  interface TrainSignals {
    /** Per sentence, token → the entity tag weak label completion gave a weak-O token. */
    completion?: (Record<number, number> | null)[];
  }
}

export const completionDef: MethodDef = {
  records: { completion: 'tags' },
  pipeline: completionPipelineSchema,
  options: {
    'pipeline.rounds': { label: 'rounds', help: 'Rounds of teacher and student: each round’s student is the next round’s teacher' },
    'pipeline.typeShifts': {
      label: 'teacher’s shift per type',
      help: 'The teacher decodes the weak labels with a shift per entity type as well, chosen on dev after its O shift (weak labels miss each type at its own rate)',
    },
    'pipeline.teacherEnsemble': {
      label: 'ensemble teacher',
      help: 'With dictionary dropout chosen on dev: the first teacher is the mean of the models trained at every dropout rate, not the chosen one alone',
    },
    'pipeline.folds': {
      label: 'cross-fitted folds',
      help: 'k > 1 splits the weak sentences into k folds, each completed in the first round by a teacher trained on the other folds (k more trainings on part of the data); 1: one teacher completes all',
    },
    'pipeline.relabel': {
      label: 'teacher relabels weak spans',
      help: 'The teacher’s entity spans also replace the weak spans they overlap (it corrects their types and boundaries, not only fills their misses)',
    },
    'pipeline.unlabeled': {
      label: 'unlabeled sentences',
      help: 'Self-training on up to this many unlabeled sentences (the project’s unassigned documents), labeled by the last round’s teacher for its student; 0: off',
    },
    'pipeline.unlabeledRounds': {
      label: 'self-training rounds',
      help: 'With unlabeled sentences: how many of the last rounds label them for their students (2: the second-to-last round’s teacher labels them, and the last teacher, trained on those labels, labels them anew)',
    },
    'pipeline.freshStudent': {
      label: 'fresh student',
      help: 'The student of a round that self-trains starts from the pre-trained encoder, not from its teacher’s weights, so it learns the teacher’s labels instead of going on from them (Noisy Student)',
    },
    'pipeline.keepBest': {
      label: 'keep the best round',
      help: 'The run keeps the best on dev among the teacher and each round’s student, and stops at the first round whose student does not beat it; off: every round runs',
    },
  },
  presets: [
    {
      id: 'completion',
      when: "The default. Weak labels that miss entities (a dictionary's usual fault): a teacher fills their O tokens. Best over the suite on conll03 distant and bc5cdr.",
      title: 'Weak-label completion: a WSL teacher, decoded with the O shift and type shifts chosen on dev, fills the weak O tokens; a student learns them',
      method: { name: 'wsl' },
      // The schema's defaults: three rounds, type shifts, self-training, keeping the best round (its comments say why).
      pipeline: { kind: 'completion' },
    },
  ],
  signals: [completionSignal],
};
