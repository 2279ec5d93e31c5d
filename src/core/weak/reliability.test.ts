import { describe, expect, it } from 'vitest';
import type { Annotation } from '../types';
import { reliabilityValues, sourceReliability } from './reliability';

const ann = (spans: Annotation['spans'], confidence?: number[]): Annotation => ({ spans, oMode: 'complete', ...(confidence ? { confidence } : {}) });

describe('sourceReliability', () => {
  it("is the label model's belief in a source's type, averaged over the source's tokens", () => {
    const aggregate = [
      ann(
        [
          { start: 0, end: 2, label: 'Chemical' },
          { start: 4, end: 5, label: 'Disease' },
        ],
        [0.9, 0.7, 1, 1, 0.5, 1],
      ),
      ann([]),
    ];
    const r = sourceReliability(
      [
        // Two tokens agreed with (0.9 + 0.7), one labeled Disease where the aggregate says O: 1.6 / 3.
        {
          name: 'dict',
          priority: 0,
          spans: [
            [
              { start: 0, end: 2, label: 'Chemical' },
              { start: 3, end: 4, label: 'Chemical' },
              { start: 4, end: 5, label: 'Disease' },
            ],
            [],
          ],
        },
        // A rule the aggregate overrules everywhere: 0.
        { name: 'rule', priority: 1, spans: [[], [{ start: 1, end: 3, label: 'Disease' }]] },
        // An untyped match agrees with any typed label: 0.5 at token 4.
        { name: 'untyped', priority: 2, spans: [[{ start: 4, end: 5, label: '?' }], []] },
      ],
      aggregate,
    );
    expect(r.dict.Chemical).toEqual({ value: 0.5333, tokens: 3 });
    expect(r.dict.Disease).toEqual({ value: 0.5, tokens: 1 });
    expect(r.rule.Disease).toEqual({ value: 0, tokens: 2 });
    expect(r.untyped['?']).toEqual({ value: 0.5, tokens: 1 });
    expect(reliabilityValues(r.dict)).toEqual({ Chemical: 0.5333, Disease: 0.5 });
    expect(reliabilityValues(undefined)).toBeUndefined();
  });

  it('reads an aggregate without confidences as sure where it agrees', () => {
    const r = sourceReliability([{ name: 'a', priority: 0, spans: [[{ start: 0, end: 2, label: 'X' }]] }], [ann([{ start: 1, end: 2, label: 'X' }])]);
    expect(r.a.X).toEqual({ value: 0.5, tokens: 2 });
  });
});
