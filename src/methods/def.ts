/**
 * What a method says about itself, without TensorFlow.js (the training and review pages load it on
 * the main thread): its loss and pipeline schemas with their defaults, a label and a line of help
 * for each option, its presets on the training page, and the review signals its runs record. Each
 * method's `<name>.def.ts` holds one; its `<name>.ts` (the worker's) registers the loss and the
 * pipeline with the same schemas. Adding an option touches the method's two files and nothing else.
 */
import { z } from 'zod';
import type { ReviewSignal } from '../core/reviewSignals';

/** An option on the training page: its name in words (the key is the tooltip) and one line of help. */
export interface OptionDoc {
  label: string;
  help: string;
}

/** A preset the training page offers: a method, the pipeline around it and, where the method needs one, the head. */
export interface CatalogEntry {
  id: string;
  title: string;
  /** One line on when to use it, shown under the method on the training page. */
  when: string;
  method: { name: string } & Record<string, unknown>;
  pipeline?: { kind: string } & Record<string, unknown>;
  head?: 'crf' | 'softmax' | 'span' | 'twopart';
  /** false: the method's model is not a token tagger (its module trains a span model), so the review loop cannot fine-tune it. */
  tokenTagger?: false;
}

export interface MethodDef {
  /** The loss configs this method defines, each a strict object with a `name` literal. */
  losses?: readonly z.ZodObject[];
  /** Its multi-stage procedure's options, a strict object with a `kind` literal. */
  pipeline?: z.ZodObject;
  /** Labels and help by the option's path on the form: "method.tau", "pipeline.lm.epochs". */
  options: Readonly<Record<string, OptionDoc>>;
  presets?: readonly CatalogEntry[];
  signals?: readonly ReviewSignal[];
  /**
   * What its runs record per training token (TrainSignals' fields, stored per document as
   * DocSignals' fields, which the module declares by augmenting those interfaces), and how a
   * sentence's values go into its document's: the training worker stores them without naming them.
   */
  records?: Readonly<Record<string, TokenRecord>>;
}

/**
 * A per-token record: 'flags' (1 where something happened; a document with none stores nothing),
 * 'values' (NaN where none), 'valueEpochs' (values after each epoch), 'tags' (token → tag id, stored
 * by tag name).
 */
export type TokenRecord = 'flags' | 'values' | 'valueEpochs' | 'tags';

/** A language model trained on the training text (NEEDLE's Stage I, RoSTER's augmentation): epochs (0: off) and the words it predicts. */
export const lmSchema = z.object({ epochs: z.number().int().min(0), vocab: z.number().int().min(2) }).strict();

/** The docs of a language model's options under `prefix` ("pipeline.lm"). */
export function lmOptions(prefix: string, what: string): Record<string, OptionDoc> {
  return {
    [`${prefix}.epochs`]: { label: 'language-model epochs', help: `${what} (0: off)` },
    [`${prefix}.vocab`]: { label: 'language-model vocabulary', help: 'Language model: the most frequent words it predicts' },
  };
}
