import type { z } from 'zod';
import { InputError } from '../errors';
import type { ParsedDoc, Split } from '../types';
import { issueSentence } from '../issueSentence';

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

/**
 * The records of a JSON-lines file, each parsed and validated by schema, with its line number;
 * blank lines skipped. Bad JSON or a record the schema rejects is an InputError at its line.
 */
export function jsonLines<T>(text: string, file: string, schema: z.ZodType<T>): { record: T; line: number }[] {
  const out: { record: T; line: number }[] = [];
  lines(text).forEach((raw, i) => {
    const where = { file, line: i + 1 };
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      throw new InputError(where, `invalid JSON (${(e as Error).message})`);
    }
    const r = schema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new InputError(where, `${issue.path.join('.') || 'record'}: ${issueSentence(issue)}`);
    }
    out.push({ record: r.data, line: i + 1 });
  });
  return out;
}
