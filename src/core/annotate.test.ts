import { describe, expect, it } from 'vitest';
import { History, labelSpan, markReviewed, removeAt } from './annotate';

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
