import { describe, expect, it } from 'vitest';
import { prf } from './metrics';
import { compareToWeak, readDifference } from './weakComparison';

describe('the model against its weak labels', () => {
  it('reads each kind of difference in a sentence', () => {
    const weak = prf(60, 10, 40); // P 85.7, R 60
    expect(readDifference(weak, prf(61, 10, 39))).toMatch(/As the weak labels/);
    expect(readDifference(weak, prf(80, 40, 20))).toMatch(/^Finds more than the weak labels \(recall \+20\.0\)/);
    expect(readDifference(weak, prf(70, 60, 30))).toMatch(/^Over-predicts: recall \+10\.0 but precision −31\.9, F1 −9\.7/);
    // The demo's Disease on test (weak P 90.0 R 69.2, model P 87.7 R 73.1): F1 +1.5 is no loss, and no clear gain.
    const disease = prf(54, 6, 24);
    expect(readDifference(disease, prf(57, 8, 21))).toBe('Trades precision for recall (recall +3.8, precision −2.3): F1 about the same (+1.5).');
    expect(readDifference(prf(57, 8, 21), disease)).toBe('Trades recall for precision (precision +2.3, recall −3.8): F1 about the same (−1.5).');
    expect(readDifference(weak, prf(45, 1, 55))).toMatch(/^More cautious than the weak labels: precision \+12\.1, recall −15\.0, F1 −8\.9/);
    expect(readDifference(weak, prf(40, 20, 60))).toMatch(/^Worse than the weak labels on both/);
    expect(readDifference(weak, prf(75, 12, 25))).toMatch(/^Finds what the weak labels miss/);
    expect(readDifference(weak, prf(50, 2, 50))).toMatch(/more cautious|More precise/i);
    expect(readDifference(prf(0, 3, 0), prf(0, 1, 0))).toMatch(/No gold entity/);
  });

  it('compares overall and per type, a type only one of them predicts included', () => {
    const weak = { overall: prf(10, 2, 5), perType: { Chemical: prf(10, 2, 5) } };
    const model = { overall: prf(12, 3, 3), perType: { Chemical: prf(9, 1, 6), Disease: prf(3, 2, 0) } };
    const rows = compareToWeak(weak, model);
    expect(rows.map((r) => r.type)).toEqual(['all types', 'Chemical', 'Disease']);
    expect(rows[2].weak).toMatchObject({ tp: 0, fn: 3, f1: 0 });
    expect(rows[2].model.f1).toBeCloseTo(0.75, 6);
  });
});
