import { z } from 'zod';
import type { MethodDef } from './def';

/**
 * The decoupled mention / context model (paper 004): region classification from a mention
 * encoder and a context encoder, optionally pre-trained on a dictionary and on distant labels,
 * then trained on the human labels with L = L_g + α·L_m + β·L_c (Eq. 10).
 */
export const decoupledPipelineSchema = z
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
  .strict();

export const decoupledDef: MethodDef = {
  pipeline: decoupledPipelineSchema,
  options: {
    'pipeline.alpha': { label: 'mention loss weight α', help: 'Weight of the mention classifier’s loss (Eq. 10)' },
    'pipeline.beta': { label: 'context loss weight β', help: 'Weight of the context classifier’s loss (Eq. 10)' },
    'pipeline.shared': { label: 'one shared encoder', help: 'One encoder for mentions and contexts (the paper shares them), or two' },
    'pipeline.maxLength': { label: 'longest candidate', help: 'Longest candidate region, in tokens' },
    'pipeline.proposer': {
      label: 'tagger proposes candidates',
      help: 'A token tagger, trained first on the human labels, proposes candidates too (longer ones among them)',
    },
    'pipeline.negatives': { label: 'O regions a sentence', help: 'O regions drawn each epoch per sentence' },
    'pipeline.oShift': { label: 'O shift', help: 'Shift of the O class at prediction, or “dev” to choose it on dev' },
    'pipeline.mentionPretrain.epochs': { label: 'mention pre-training epochs', help: 'Mention pre-training on the dictionary (0: off)' },
    'pipeline.mentionPretrain.oRatio': { label: 'O examples an entry', help: 'O examples per dictionary entry in mention pre-training' },
    'pipeline.contextPretrain.epochs': { label: 'context pre-training epochs', help: 'Context pre-training on distant sentences (0: off)' },
    'pipeline.contextPretrain.vocab': { label: 'masked-word vocabulary', help: 'The words context pre-training predicts where it masks them' },
    'pipeline.contextPretrain.oRatio': { label: 'O regions an entity', help: 'O regions per entity region in context pre-training' },
    'pipeline.contextPretrain.maxSentences': { label: 'sentences at most', help: 'Context pre-training reads at most this many distant sentences' },
  },
  presets: [
    {
      id: 'decoupled',
      when: 'Few gold sentences and a gazetteer: mentions and contexts learned apart, each pre-trained first.',
      title: 'Decoupled mention/context model: gazetteer + weak-layer pre-training, then strong labels (paper 004)',
      method: { name: 'supervised' },
      pipeline: { kind: 'decoupled', mentionPretrain: { epochs: 3 }, contextPretrain: { epochs: 2 } },
      tokenTagger: false,
    },
    {
      id: 'decoupled-plain',
      when: 'The decoupled model without its pre-training, to see what the pre-training adds.',
      title: 'Decoupled mention/context model, no pre-training (paper 004)',
      method: { name: 'supervised' },
      pipeline: { kind: 'decoupled' },
      tokenTagger: false,
    },
  ],
};
