/**
 * What to ask before an import is stored: the parser's own warnings (spans snapped to tokens),
 * entity types the project does not have yet, and text that does not look like text (tokens too
 * long to be words, U+FFFD where text once failed to decode). Each says where; the user imports anyway or
 * cancels, and nothing is stored until then.
 */
import type { ParsedCorpus } from './types';
import { tokenCount } from './types';

/** Longer than any word or identifier one would tag: a line without spaces, or binary data. */
export const LONG_TOKEN = 64;

export function importChecks(corpus: ParsedCorpus, projectTypes: readonly string[]): string[] {
  const out = [...(corpus.warnings ?? [])];
  const fresh = corpus.types.filter((t) => t !== '?' && !projectTypes.includes(t));
  if (fresh.length && projectTypes.length)
    out.push(
      `${fresh.length === 1 ? 'type' : 'types'} ${fresh.map((t) => JSON.stringify(t)).join(', ')} ${fresh.length === 1 ? 'is' : 'are'} not among this project's types (${projectTypes.join(', ')}): importing adds ${fresh.length === 1 ? 'it' : 'them'}`,
    );
  let long = 0;
  let longest = { length: 0, doc: '' };
  let undecoded = 0;
  let undecodedDoc = '';
  for (const d of corpus.docs) {
    for (let i = 0; i < tokenCount(d); i++) {
      const n = d.offsets[2 * i + 1] - d.offsets[2 * i];
      if (n > LONG_TOKEN) {
        long++;
        if (n > longest.length) longest = { length: n, doc: d.name };
      }
    }
    let k = d.text.indexOf('\uFFFD');
    if (k >= 0 && !undecodedDoc) undecodedDoc = d.name;
    while (k >= 0) {
      undecoded++;
      k = d.text.indexOf('\uFFFD', k + 1);
    }
  }
  if (long)
    out.push(
      `${long.toLocaleString('en')} ${long === 1 ? 'token is' : 'tokens are'} longer than ${LONG_TOKEN} characters (the longest, ${longest.length.toLocaleString('en')} characters, in ${longest.doc}): is the text tokenized, or is this file text at all?`,
    );
  if (undecoded)
    out.push(
      `${undecoded.toLocaleString('en')} characters are \uFFFD, the mark a converter leaves where text failed to decode (first in ${undecodedDoc}): was the text intact when it was saved?`,
    );
  return out;
}
