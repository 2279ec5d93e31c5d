import { describe, expect, it } from 'vitest';
import { findOccurrences, History, labelOccurrences, labelSpan, markReviewed, mergeCorrections, removeAt } from './annotate';

describe('annotation editor operations', () => {
  it('labels, replaces overlapping spans, removes, marks reviewed, and undoes and redoes', () => {
    const h = new History({ spans: [{ start: 1, end: 3, label: 'A' }], oTokens: [] });
    h.apply(labelSpan(h.state, 2, 4, 'B'));
    expect(h.state.spans).toEqual([{ start: 2, end: 4, label: 'B' }]);
    h.apply(markReviewed(h.state, 0, 6));
    expect(h.state.oTokens).toEqual([0, 1, 4, 5]);
    h.apply(labelSpan(h.state, 0, 1, 'A'));
    expect(h.state.oTokens).toEqual([1, 4, 5]);
    h.apply(removeAt(h.state, 3));
    expect(h.state.spans).toEqual([{ start: 0, end: 1, label: 'A' }]);
    expect(h.undo().spans).toEqual([
      { start: 0, end: 1, label: 'A' },
      { start: 2, end: 4, label: 'B' },
    ]);
    h.undo();
    h.undo();
    expect(h.undo().spans).toEqual([{ start: 1, end: 3, label: 'A' }]);
    expect(h.canUndo).toBe(false);
    expect(h.redo().spans).toEqual([{ start: 2, end: 4, label: 'B' }]);
  });
});

describe('a decision on a whole sentence', () => {
  it('replaces the spans inside it, keeps the others, and marks its other tokens O', async () => {
    const { decideSentence } = await import('./annotate');
    const s = {
      spans: [
        { start: 0, end: 1, label: 'A' },
        { start: 3, end: 4, label: 'B' },
        { start: 7, end: 8, label: 'A' },
      ],
      oTokens: [9],
    };
    const next = decideSentence(s, 2, 6, [
      { start: 4, end: 6, label: 'C' },
      { start: 6, end: 7, label: 'X' },
    ]);
    expect(next.spans).toEqual([
      { start: 0, end: 1, label: 'A' },
      { start: 4, end: 6, label: 'C' },
      { start: 7, end: 8, label: 'A' },
    ]);
    expect(next.oTokens).toEqual([2, 3, 9]);
  });
});

describe('mergeCorrections', () => {
  const sentences: [number, number][] = [
    [0, 3],
    [3, 6],
  ];
  const weak = [
    { start: 0, end: 1, label: 'PER' },
    { start: 4, end: 5, label: 'LOC' },
  ];
  it('takes the reviewed sentences from a partial row and keeps the weak labels elsewhere', () => {
    const m = mergeCorrections(weak, { spans: [{ start: 3, end: 5, label: 'ORG' }], oMode: 'partial', reviewedAt: { 3: 1 } }, sentences);
    expect(m.spans).toEqual([
      { start: 0, end: 1, label: 'PER' },
      { start: 3, end: 5, label: 'ORG' },
    ]);
    expect([...m.strongStarts]).toEqual([3]);
  });
  it('takes every sentence of a complete row, and none without a row', () => {
    expect(mergeCorrections(weak, { spans: [], oMode: 'complete' }, sentences)).toEqual({ spans: [], strongStarts: new Set([0, 3]) });
    expect(mergeCorrections(weak, undefined, sentences).strongStarts.size).toBe(0);
  });
  it('ignores a partial row’s spans in sentences not marked reviewed', () => {
    const m = mergeCorrections(weak, { spans: [{ start: 0, end: 2, label: 'ORG' }], oMode: 'partial', reviewedAt: {} }, sentences);
    expect(m.spans).toEqual(weak);
  });
});

describe('corrections that travel', () => {
  it('finds every exact occurrence of a phrase, without overlaps', () => {
    const docs = [
      { docId: 1, words: ['New', 'York', 'and', 'New', 'York'] },
      { docId: 2, words: ['new', 'York'] },
      { docId: 3, words: ['a', 'a', 'a'] },
    ];
    expect(findOccurrences(docs, ['New', 'York'])).toEqual([
      { docId: 1, start: 0, end: 2 },
      { docId: 1, start: 3, end: 5 },
    ]);
    expect(findOccurrences(docs, ['a', 'a'])).toEqual([{ docId: 3, start: 0, end: 2 }]);
    expect(findOccurrences(docs, [])).toEqual([]);
  });
  it('labels them all, each replacing the spans it overlaps', () => {
    const s = { spans: [{ start: 0, end: 1, label: 'PER' }], oTokens: [4] };
    expect(
      labelOccurrences(
        s,
        [
          { start: 0, end: 2 },
          { start: 3, end: 5 },
        ],
        'LOC',
      ),
    ).toEqual({
      spans: [
        { start: 0, end: 2, label: 'LOC' },
        { start: 3, end: 5, label: 'LOC' },
      ],
      oTokens: [],
    });
  });
});
