import { describe, expect, it } from 'vitest';
import { fillWithStarter, starterGroups, withStarterFeatures } from './starter';

const tags = ['O', 'B-person', 'I-person', 'B-geo-loc', 'I-geo-loc'];

describe('a starter model in an experiment', () => {
  it("fills the weak labels' O tokens with its mapped spans, never over a weak entity, and leaves unmapped types out", () => {
    const train = [{ words: ['a', 'b', 'c', 'd'], tags: [0, 0, 3, 0] }];
    const spans = [
      [
        { start: 0, end: 2, label: 'PER' }, // all O: written
        { start: 2, end: 4, label: 'LOC' }, // overlaps the weak geo-loc: left
        { start: 3, end: 4, label: 'MISC' }, // no mapping: left
      ],
    ];
    const { sentences, added } = fillWithStarter(train, spans, { PER: 'person', LOC: 'geo-loc' }, tags);
    expect(added).toBe(1);
    expect(sentences[0].tags).toEqual([1, 2, 3, 0]);
    expect(train[0].tags).toEqual([0, 0, 3, 0]); // the input is not changed
  });

  it('writes IO tags (no B-) as I- on every token', () => {
    const io = ['O', 'I-person'];
    expect(fillWithStarter([{ words: ['a', 'b'], tags: [0, 0] }], [[{ start: 0, end: 2, label: 'PER' }]], { PER: 'person' }, io).sentences[0].tags).toEqual([
      1, 1,
    ]);
  });

  it('adds its spans as matches of its own feature groups after the others', () => {
    const out = withStarterFeatures([{ words: ['x', 'y'], lex: [{ start: 0, end: 1, type: 0 }] }], [[{ start: 1, end: 2, label: 'ORG' }]], ['PER', 'ORG'], 3);
    expect(out[0].lex).toEqual([
      { start: 0, end: 1, type: 0 },
      { start: 1, end: 2, type: 4 },
    ]);
    expect(starterGroups(['PER'])).toEqual(['starter model: PER']);
  });
});
