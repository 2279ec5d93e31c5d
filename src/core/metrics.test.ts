import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../testing/data';
import { conllevalAgreement } from '../testing/referenceChecks';
import { scoreSpans } from './metrics';

describe('scoreSpans', () => {
  it('counts exact matches, boundary errors and type errors', () => {
    const gold = [
      [
        { start: 0, end: 2, label: 'PER' },
        { start: 3, end: 4, label: 'LOC' },
        { start: 5, end: 6, label: 'ORG' },
      ],
    ];
    const pred = [
      [
        { start: 0, end: 2, label: 'PER' },
        { start: 3, end: 5, label: 'LOC' },
        { start: 5, end: 6, label: 'LOC' },
      ],
    ];
    const s = scoreSpans(gold, pred);
    expect([s.overall.tp, s.overall.fp, s.overall.fn]).toEqual([1, 2, 2]);
    expect(s.perType.LOC).toMatchObject({ tp: 0, fp: 2, fn: 1 });
    expect(s.overall.f1).toBeCloseTo(1 / 3, 10);
  });

  // Counts by conlleval's chunk rules on the same 300 sentences (the whole file: npm run test:data).
  it('agrees with conlleval on conll03 distant against gold labels (train, fixture slice)', () =>
    conllevalAgreement(FIXTURES, 300, [316, 74, 244], ['81.03', '56.43', '66.53']));
});

describe('span errors by kind', () => {
  it('sorts every prediction and every untouched gold span into one kind', async () => {
    const { spanErrors } = await import('./metrics');
    const s = (start: number, end: number, label: string) => ({ start, end, label });
    const gold = [[s(0, 2, 'PER'), s(3, 4, 'LOC'), s(6, 8, 'ORG'), s(10, 11, 'PER')]];
    const pred = [[s(0, 2, 'PER'), s(3, 4, 'ORG'), s(6, 7, 'ORG'), s(12, 13, 'LOC'), s(14, 15, '?')]];
    expect(spanErrors(gold, pred)).toEqual({ correct: 1, wrongType: 1, wrongBoundary: 1, missed: 1, spurious: 1 });
  });
});

describe('label distribution', () => {
  it('counts spans and tokens per type, O tokens included', async () => {
    const { labelDistribution } = await import('./metrics');
    const s = (start: number, end: number, label: string) => ({ start, end, label });
    const d = labelDistribution(
      [
        [s(0, 2, 'A'), s(3, 4, 'B')],
        [s(1, 2, 'A'), s(2, 3, '?')],
      ],
      [5, 4],
    );
    expect(d).toEqual({ spans: { A: 2, B: 1, '?': 1 }, tokens: { O: 4, A: 3, B: 1, '?': 1 }, totalSpans: 4, totalTokens: 9 });
  });
});
