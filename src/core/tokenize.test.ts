import { describe, expect, it } from 'vitest';
import { splitSentences, tokenize } from './tokenize';

const toks = (text: string, cuts: number[] = []) => {
  const o = tokenize(text, cuts);
  return Array.from({ length: o.length / 2 }, (_, i) => text.slice(o[2 * i], o[2 * i + 1]));
};

describe('tokenize', () => {
  it('keeps offsets and splits punctuation', () => {
    const text = "Dr. Smith visited the U.S. in 2020, didn't he?";
    expect(toks(text)).toEqual(['Dr.', 'Smith', 'visited', 'the', 'U.S.', 'in', '2020', ',', "didn't", 'he', '?']);
    const o = tokenize(text);
    expect(text.slice(o[8], o[9])).toBe('U.S.');
  });
  it('splits a sentence-final period from its word and cuts tokens at forced boundaries', () => {
    expect(toks('It rained.')).toEqual(['It', 'rained', '.']);
    expect(toks('anti-TNF therapy', [5])).toEqual(['anti-', 'TNF', 'therapy']);
  });
  it('splits sentences after end punctuation before a capital', () => {
    const text = 'Aspirin helps. It is cheap! e.g. this is not a break.';
    const o = tokenize(text);
    // "e.g. this" does not start a sentence: the next word is lower case.
    expect(splitSentences(text, o)).toEqual([0, 3]);
  });
});
