import { describe, expect, it } from 'vitest';
import { firstSchemeViolation, spansToTags, tagsToSpans } from './tagScheme';
import type { Span, TagScheme } from './types';

describe('tag schemes', () => {
  it('decodes BIO, IOB1, BIOES and IO with conlleval chunking', () => {
    expect(tagsToSpans(['B-PER', 'I-PER', 'O', 'B-LOC', 'B-LOC'])).toEqual([
      { start: 0, end: 2, label: 'PER' },
      { start: 3, end: 4, label: 'LOC' },
      { start: 4, end: 5, label: 'LOC' },
    ]);
    // IOB1: I- starts a chunk after O; B- separates adjacent chunks of one type.
    expect(tagsToSpans(['I-ORG', 'I-ORG', 'B-ORG', 'O', 'I-PER'])).toEqual([
      { start: 0, end: 2, label: 'ORG' },
      { start: 2, end: 3, label: 'ORG' },
      { start: 4, end: 5, label: 'PER' },
    ]);
    expect(tagsToSpans(['S-X', 'B-Y', 'I-Y', 'E-Y', 'O', 'E-Z'])).toEqual([
      { start: 0, end: 1, label: 'X' },
      { start: 1, end: 4, label: 'Y' },
      { start: 5, end: 6, label: 'Z' },
    ]);
    // A type change inside a chunk ends it (conlleval).
    expect(tagsToSpans(['B-PER', 'I-LOC'])).toEqual([
      { start: 0, end: 1, label: 'PER' },
      { start: 1, end: 2, label: 'LOC' },
    ]);
    expect(() => tagsToSpans(['O', 'B_'])).toThrow(/token 2/);
  });

  it('round-trips spans through every scheme that can represent them', () => {
    const spans: Span[] = [
      { start: 0, end: 1, label: 'A' },
      { start: 1, end: 3, label: 'A' },
      { start: 4, end: 7, label: 'B' },
    ];
    for (const scheme of ['BIO', 'IOB1', 'BIOES'] as TagScheme[]) {
      const tags = spansToTags(spans, 0, 8, scheme);
      expect(firstSchemeViolation(tags, scheme)).toBe(-1);
      expect(tagsToSpans(tags)).toEqual(spans);
    }
    expect(spansToTags(spans, 0, 8, 'IOB1')).toEqual(['I-A', 'B-A', 'I-A', 'O', 'I-B', 'I-B', 'I-B', 'O']);
    expect(spansToTags(spans, 0, 8, 'BIOES')).toEqual(['S-A', 'B-A', 'E-A', 'O', 'B-B', 'I-B', 'E-B', 'O']);
    // IO merges adjacent entities of one type: the documented loss of that scheme.
    expect(tagsToSpans(spansToTags(spans, 0, 8, 'IO'))).toEqual([
      { start: 0, end: 3, label: 'A' },
      { start: 4, end: 7, label: 'B' },
    ]);
  });

  it('reports tags outside a scheme', () => {
    expect(firstSchemeViolation(['B-X', 'E-X'], 'BIO')).toBe(1);
    expect(firstSchemeViolation(['B-X', 'I-X'], 'IO')).toBe(0);
  });
});
