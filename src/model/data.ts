import type { LexiconMatch } from '../core/lexicon';
import { spansToTags, tagsToSpans } from '../core/tagScheme';
import type { Annotation, ParsedDoc, Span } from '../core/types';
import { sentenceRanges, tokenTexts, UNKNOWN_TYPE } from '../core/types';

/** A sentence as the model sees it: words and, when labeled, BIO tag ids. */
export interface LabeledSentence {
  words: string[];
  tags: number[];
  /** Where it came from, to write predictions back as spans. */
  doc: number;
  offset: number;
  /** True when the tags are weak labels rather than gold (the weak-supervision methods tell them apart). */
  weak?: boolean;
  /** The confidence of the tags (NEEDLE), 1 when unset. */
  confidence?: number;
  /** [length, K] target distributions per token (RoSTER's distillation and self-training). */
  soft?: Float32Array;
  /** Tag ids of entities that synthetic masking turned into O, remembered for diagnostics. */
  hidden?: number[];
  /** Token positions taken out of the loss (PU learning's likely unlabeled entities). */
  exclude?: number[];
  /** Dictionary matches, when the model reads them (src/core/lexicon.ts). */
  lex?: LexiconMatch[];
}

/** O, then B- and I- of each type in order. */
export function bioTags(types: readonly string[]): string[] {
  return ['O', ...types.flatMap((t) => [`B-${t}`, `I-${t}`])];
}

/** O, then I- of each type: the IO scheme RoSTER trains with (Appendix C). */
export function ioTags(types: readonly string[]): string[] {
  return ['O', ...types.map((t) => `I-${t}`)];
}

/** The scheme of a model's tag set: BIO when it has B- tags (bioTags), else IO (ioTags). */
export function tagSetScheme(tags: readonly string[]): 'BIO' | 'IO' {
  return tags.some((t) => t.startsWith('B-')) ? 'BIO' : 'IO';
}

/**
 * Documents and one layer's annotations as labeled sentences. Spans of unknown type count as O
 * here; the methods for missing annotations read the layer's token states themselves.
 */
export function toSentences(docs: readonly ParsedDoc[], anns: readonly (Annotation | undefined)[], tags: readonly string[]): LabeledSentence[] {
  const scheme = tagSetScheme(tags);
  const index = new Map(tags.map((t, k) => [t, k]));
  const out: LabeledSentence[] = [];
  docs.forEach((d, k) => {
    const words = tokenTexts(d);
    const spans = (anns[k]?.spans ?? []).filter((s) => s.label !== UNKNOWN_TYPE);
    for (const [a, b] of sentenceRanges(d)) {
      const tagStrings = spansToTags(spans, a, b, scheme);
      out.push({
        words: words.slice(a, b),
        tags: tagStrings.map((t) => {
          const id = index.get(t);
          if (id === undefined) throw new Error(`tag ${t} is not in the model's tag set (${tags.join(' ')})`);
          return id;
        }),
        doc: k,
        offset: a,
      });
    }
  });
  return out;
}

/** Predicted tag ids of each sentence back to spans per document. */
export function pathsToSpans(sentences: readonly LabeledSentence[], paths: readonly number[][], tags: readonly string[], nDocs: number): Span[][] {
  const out: Span[][] = Array.from({ length: nDocs }, () => []);
  sentences.forEach((s, k) =>
    out[s.doc].push(
      ...tagsToSpans(
        paths[k].map((t) => tags[t]),
        s.offset,
      ),
    ),
  );
  return out;
}
