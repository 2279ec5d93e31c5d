import type { ParsedDoc, Split } from '../types';

/** A document from pre-tokenized sentences: tokens joined by one space, sentences by a newline. */
export function docFromSentences(name: string, sentences: readonly (readonly string[])[], split: Split): ParsedDoc {
  const offsets: number[] = [];
  const sentenceStarts: number[] = [];
  const parts: string[] = [];
  let pos = 0;
  let tokens = 0;
  sentences.forEach((sent, k) => {
    if (k > 0) {
      parts.push('\n');
      pos += 1;
    }
    sentenceStarts.push(tokens);
    sent.forEach((tok, i) => {
      if (i > 0) {
        parts.push(' ');
        pos += 1;
      }
      parts.push(tok);
      offsets.push(pos, pos + tok.length);
      pos += tok.length;
      tokens++;
    });
  });
  return { name, text: parts.join(''), offsets, sentenceStarts, split };
}

/** Splits text into lines, tolerating CRLF and a final newline; line numbers are index + 1. */
export function lines(text: string): string[] {
  const out = text.split(/\r?\n/);
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
