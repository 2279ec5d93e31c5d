import { describe, expect, it } from 'vitest';
import { rankSentences, uncertaintyOf, type QueueDoc } from '../core/reviewSignals';
import { reviewSignal } from './reviewSignals';
import { rosterRemoval } from './roster';

describe('review queue signals', () => {
  const doc = (docId: number, signals: QueueDoc['signals'], weak: QueueDoc['weak'] = [], predicted: QueueDoc['predicted'] = []): QueueDoc => ({
    docId,
    name: `d${docId}`,
    words: ['a', 'b', 'c', 'd', 'e', 'f'],
    sentences: [
      [0, 3],
      [3, 6],
    ],
    weak,
    predicted,
    signals,
  });

  it('ranks by each signal and says why', () => {
    const docs = [
      doc(
        1,
        {
          uncertainty: Float32Array.from([0.1, 0.5, 0, 0.2, 0.2, 0.2]),
          oValue: Float32Array.from([1, NaN, -2, 3, NaN, 0.5]),
          puRemoved: Uint8Array.from([0, 0, 1, 0, 0, 1]),
        },
        [{ start: 0, end: 1, label: 'X' }],
        [{ start: 0, end: 2, label: 'X' }],
      ),
      doc(2, { uncertainty: Float32Array.from([0.7, 0, 0, 0, 0, 0]), rosterRemoved: Uint8Array.from([1, 1, 0, 0, 0, 1]), completion: { 4: 'B-X' } }),
    ];
    const unc = rankSentences(docs, reviewSignal('uncertainty'));
    expect(unc.map((e) => [e.docId, e.sentence, e.score])).toEqual([
      [2, 1, expect.closeTo(0.7, 6)],
      [1, 1, expect.closeTo(0.5, 6)],
      [1, 2, expect.closeTo(0.2, 6)],
    ]);
    expect(unc[1].reasons[0]).toBe('b (uncertainty 0.5; weak O, run X)');
    // A signal that ranks by value outlines only what its reasons name; one that ranks by count, every flag.
    const long: QueueDoc = {
      ...doc(3, { uncertainty: Float32Array.from([0.1, 0.6, 0.05, 0.3, 0.2, 0.4]) }),
      sentences: [[0, 6]],
      predicted: [{ start: 0, end: 6, label: 'X' }],
    };
    const [one] = rankSentences([long], reviewSignal('uncertainty'));
    expect([one.count, one.reasons.length, one.marked]).toEqual([6, 4, [1, 3, 4, 5]]);
    const [dis] = rankSentences([long], reviewSignal('disagreement'));
    expect([dis.count, dis.reasons.length, dis.marked]).toEqual([6, 4, [0, 1, 2, 3, 4, 5]]);
    // PU: the lowest O-value among removed tokens first.
    expect(rankSentences(docs, reviewSignal('pu')).map((e) => [e.docId, e.sentence])).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(rankSentences(docs, reviewSignal('pu'))[0].reasons[0]).toContain('O-value -2');
    expect(rankSentences(docs, reviewSignal('roster')).map((e) => [e.docId, e.sentence, e.count])).toEqual([
      [2, 1, 2],
      [2, 2, 1],
    ]);
    expect(rankSentences(docs, reviewSignal('needle')).map((e) => e.reasons[0])).toEqual(['e (weak O, completed as B-X)']);
    expect(rankSentences(docs, reviewSignal('disagreement')).map((e) => [e.docId, e.sentence, e.count])).toEqual([[1, 1, 1]]);
  });

  it('ranks where the weak sources disagree, with no run: a conflict among sources, or the aggregate overruling one', () => {
    const src = (name: string, spans: QueueDoc['weak']) => ({ name, spans });
    const docs: QueueDoc[] = [
      {
        ...doc(1, undefined, [{ start: 0, end: 1, label: 'X' }], undefined),
        // Sentence 1: g says X, r says Y at a (the aggregate kept X: r overruled); u, untyped, agrees at b.
        // Sentence 2: the aggregate leaves e O though g fired there (overruled), and at d both agree with it.
        sources: [
          src('g', [
            { start: 0, end: 1, label: 'X' },
            { start: 3, end: 4, label: 'X' },
            { start: 4, end: 5, label: 'Y' },
          ]),
          src('r', [{ start: 0, end: 1, label: 'Y' }]),
          src('u', [{ start: 1, end: 2, label: '?' }]),
        ],
        weak: [
          { start: 0, end: 1, label: 'X' },
          { start: 1, end: 2, label: 'X' },
          { start: 3, end: 4, label: 'X' },
        ],
      },
      // Every source agrees with the aggregate: nothing to review.
      { ...doc(2, undefined, [{ start: 0, end: 2, label: 'X' }], undefined), sources: [src('g', [{ start: 0, end: 2, label: 'X' }])] },
      // Two sources that conflict where the aggregate could not type the match: a conflict all the same.
      {
        ...doc(3, undefined, [{ start: 2, end: 3, label: '?' }], undefined),
        sources: [src('g', [{ start: 2, end: 3, label: 'X' }]), src('r', [{ start: 2, end: 3, label: 'Y' }])],
      },
    ];
    const signal = reviewSignal('sources');
    expect(signal.present({}, false, true)).toBe(true);
    expect(signal.present({ uncertainty: new Float32Array(6) }, true, false)).toBe(false);
    const ranked = rankSentences(docs, signal);
    expect(ranked.map((e) => [e.docId, e.sentence, e.count, e.flagged])).toEqual([
      [1, 1, 1, [0]],
      [1, 2, 1, [4]],
      [3, 1, 1, [2]],
    ]);
    expect(ranked[0].reasons).toEqual(['a (g X, r Y; weak X)']);
    expect(ranked[1].reasons).toEqual(['e (g Y; weak O)']);
    // Documents without source spans (an imported weak layer) are never flagged.
    expect(rankSentences([doc(4, undefined, [{ start: 0, end: 1, label: 'X' }])], signal)).toEqual([]);
  });

  it('ranks by reach: a doubted phrase that recurs first, an undoubted or unpredicted one not at all', () => {
    const words = ['CAA', 'was', 'given', '.', 'Then', 'CAA', 'and', 'zinc', '.', 'Only', 'rare', 'here', '.'];
    const sentences: [number, number][] = [
      [0, 4],
      [4, 9],
      [9, 13],
    ];
    const d = (docId: number, weak: QueueDoc['weak'], predicted: QueueDoc['predicted'], u: number[]): QueueDoc => ({
      docId,
      name: `d${docId}`,
      words,
      sentences,
      weak,
      predicted,
      signals: { uncertainty: Float32Array.from(u) },
    });
    // The run finds CAA (the weak labels missed it) at 0.8 in sentence 1, and "rare" once at 0.9;
    // it agrees on zinc with little doubt (u 0.1).
    const docs = [
      d(
        1,
        [{ start: 7, end: 8, label: 'Chemical' }],
        [
          { start: 0, end: 1, label: 'Chemical' },
          { start: 7, end: 8, label: 'Chemical' },
          { start: 10, end: 11, label: 'Chemical' },
        ],
        [0.2, 0, 0, 0, 0, 0, 0, 0.1, 0, 0, 0.1, 0, 0],
      ),
    ];
    const q = rankSentences(docs, reviewSignal('reach'));
    // CAA occurs twice: 0.8 × 2; "rare" once: 0.9; zinc's doubt 0.1 is under the threshold.
    // Then the sentences with no doubted phrase, by their least sure token (zinc's 0.1).
    expect(q.map((e) => [e.sentence, +e.score.toFixed(6)])).toEqual([
      [1, 1.6],
      [3, 0.9],
      [2, 0.1],
    ]);
    expect(q[0].reasons[0]).toBe('CAA (2 occurrences; weak O, run Chemical, doubt 0.8)');
    expect(q[2].reasons[0]).toBe('zinc (uncertainty 0.1; weak Chemical, run Chemical)');
    // Without a run's predictions there is nothing to doubt: the queue is the uncertainty's.
    const bare = [{ ...docs[0], predicted: undefined }];
    expect(rankSentences(bare, reviewSignal('reach'))).toEqual(rankSentences(bare, reviewSignal('uncertainty')));
    // As a set: a second document with the same sentences doubles each phrase's occurrences, and
    // adds nothing to the queue, since correcting CAA and "rare" once settles them everywhere.
    const twice = rankSentences([docs[0], { ...docs[0], docId: 2, name: 'd2' }], reviewSignal('reach'));
    // The sentences it settles follow with the rest, by uncertainty.
    expect(twice.map((e) => [e.docId, e.sentence, +e.score.toFixed(6)])).toEqual([
      [1, 1, 3.2],
      [1, 3, 1.8],
      [2, 1, 0.2],
      [1, 2, 0.1],
      [2, 2, 0.1],
      [2, 3, 0.1],
    ]);
    expect(rankSentences([docs[0], { ...docs[0], docId: 2, name: 'd2' }], reviewSignal('reach'), 3)).toEqual(twice.slice(0, 3));
  });

  it("removes RoSTER's low-probability weak labels, exempting a type mostly under τ", () => {
    // K = 3 (O, X, Y). Type Y: every token under τ, so exempt.
    const K = 3;
    const p = (...rows: number[][]) => Float32Array.from(rows.flat());
    const tags = [
      [0, 1, 2],
      [1, 2, 0],
    ];
    const probs = [p([0.9, 0.05, 0.05], [0.5, 0.3, 0.2], [0.6, 0.3, 0.1]), p([0.1, 0.8, 0.1], [0.5, 0.4, 0.1], [0.2, 0.3, 0.5])];
    const r = rosterRemoval(tags, probs, [true, true], K, 0.7);
    expect([...r[0]!]).toEqual([0, 1, 0]);
    expect([...r[1]!]).toEqual([0, 0, 1]);
    expect(rosterRemoval(tags, probs, [false, true], K, 0.7)[0]).toBeNull();
    // Two-part head: an entity token is judged by P(type | entity), an O token by P(O).
    // Token 0: X at 0.6 joint but 0.86 given an entity, kept; token 1: O at 0.6, removed; token 2:
    // Y at 0.3 of an entity mass of 0.9 (0.33), removed (Y is not exempt: one of its two tokens passes).
    const two = rosterRemoval([[1, 0, 2, 2]], [p([0.3, 0.6, 0.1], [0.6, 0.2, 0.2], [0.1, 0.6, 0.3], [0.05, 0.05, 0.9])], [true], K, 0.7, true);
    expect([...two[0]!]).toEqual([0, 1, 1, 0]);
    expect([...uncertaintyOf(p([0.9, 0.05, 0.05], [0.5, 0.3, 0.2]), 3)].map((x) => +x.toFixed(6))).toEqual([0.1, 0.5]);
  });
});
