/**
 * A tokenizer for plain text that keeps character offsets, and a sentence splitter over its
 * tokens. Words keep inner apostrophes, hyphens and periods ("don't", "COVID-19", "U.S."); every
 * other non-space character is a token of its own, as in the CoNLL and BC5CDR tokenizations.
 */

const TOKEN = /[\p{L}\p{N}\p{M}]+(?:['’\-.][\p{L}\p{N}\p{M}]+)*\.?|\S/gu;
const ABBREVIATIONS = new Set([
  'mr.',
  'mrs.',
  'ms.',
  'dr.',
  'prof.',
  'st.',
  'vs.',
  'e.g.',
  'i.e.',
  'etc.',
  'no.',
  'fig.',
  'al.',
  'inc.',
  'ltd.',
  'co.',
  'jr.',
  'sr.',
]);

/** Returns flattened [start, end) offsets. `cuts` are character positions that must be token boundaries. */
export function tokenize(text: string, cuts: readonly number[] = []): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    // A word-final period belongs to the word only for abbreviations and initials ("U.S.", "J.").
    if (m[0].length > 1 && m[0].endsWith('.') && !ABBREVIATIONS.has(m[0].toLowerCase()) && !/^(\p{L}\.)+$/u.test(m[0])) {
      out.push(start, end - 1, end - 1, end);
      continue;
    }
    out.push(start, end);
  }
  return cuts.length ? splitAt(out, cuts) : out;
}

function splitAt(offsets: number[], cuts: readonly number[]): number[] {
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  const out: number[] = [];
  let c = 0;
  for (let i = 0; i < offsets.length; i += 2) {
    let s = offsets[i];
    const e = offsets[i + 1];
    while (c < sorted.length && sorted[c] <= s) c++;
    while (c < sorted.length && sorted[c] < e) {
      out.push(s, sorted[c]);
      s = sorted[c++];
    }
    out.push(s, e);
  }
  return out;
}

/** Token indices where sentences start: after . ! ? (and closing quotes) before a capital or digit. */
export function splitSentences(text: string, offsets: readonly number[]): number[] {
  const starts = [0];
  const n = offsets.length >> 1;
  for (let i = 0; i < n - 1; i++) {
    const tok = text.slice(offsets[2 * i], offsets[2 * i + 1]);
    if (tok !== '.' && tok !== '!' && tok !== '?') continue;
    let j = i + 1;
    while (j < n && /^["'”’)\]]$/.test(text.slice(offsets[2 * j], offsets[2 * j + 1]))) j++;
    if (j >= n) break;
    const next = text.slice(offsets[2 * j], offsets[2 * j + 1]);
    const gap = text.slice(offsets[2 * j - 1], offsets[2 * j]);
    if ((/^[\p{Lu}\p{N}"“(]/u.test(next) && /\s/.test(gap)) || /\n/.test(gap)) starts.push(j);
  }
  // Blank lines always end a sentence.
  for (let i = 1; i < n; i++) {
    if (/\n\s*\n/.test(text.slice(offsets[2 * i - 1], offsets[2 * i])) && !starts.includes(i)) starts.push(i);
  }
  return starts.sort((a, b) => a - b);
}
