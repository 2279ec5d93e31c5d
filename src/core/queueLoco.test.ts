import { describe, expect, it } from 'vitest';
import { chooseQueueSignal, keptStart, pairedGains, type QueueRecord, queueLoco } from './queueLoco';

/** Records of one setting: per seed a base, random and each arm at 2 %, dev and test given as gains over the base of 50. */
function setting(name: string, arms: Record<string, { dev: number[]; test: number[] }>): QueueRecord[] {
  const seeds = arms.random.dev.map((_, i) => i + 1);
  return seeds.flatMap((seed, i) => [
    { setting: name, seed, arm: 'base', fraction: 0, dev: 50, test: 50 },
    ...Object.entries(arms).map(([arm, g]) => ({ setting: name, seed, arm, fraction: 0.02, dev: 50 + g.dev[i], test: 50 + g.test[i] })),
  ]);
}

const corpora = [
  { corpus: 'a', settings: ['a1', 'a2'] },
  { corpus: 'b', settings: ['b'] },
  { corpus: 'c', settings: ['c'] },
];

describe('the queue signal chosen leave-one-corpus-out', () => {
  const records = [
    // Corpus a: x is best on its own dev; a's two settings are left out together.
    ...setting('a1', { random: { dev: [1, 1], test: [1, 1] }, x: { dev: [9, 9], test: [5, 7] }, y: { dev: [2, 2], test: [3, 3] } }),
    ...setting('a2', { random: { dev: [1, 1], test: [1, 1] }, x: { dev: [9, 9], test: [6, 6] }, y: { dev: [2, 2], test: [2, 2] } }),
    // Corpora b and c: y beats random on dev, x does not.
    ...setting('b', { random: { dev: [2, 2, 2], test: [2, 2, 2] }, x: { dev: [1, 1, 1], test: [9, 9, 9] }, y: { dev: [4, 4, 4], test: [1, 1, 1] } }),
    ...setting('c', { random: { dev: [0, 0], test: [0, 0] }, y: { dev: [1, 3], test: [1, 3] } }),
  ];

  it('pairs gains seed for seed', () => {
    expect([...pairedGains(records, 'a1', 'x', 'random', 0.02, 'test')]).toEqual([
      [1, 4],
      [2, 6],
    ]);
    expect([...pairedGains(records, 'a1', 'random', 'base', 0.02, 'test').values()]).toEqual([1, 1]);
  });

  it("chooses on the other corpora's dev only, and reads the left-out corpus's test after", () => {
    const [a, b, c] = queueLoco(records, corpora, ['x', 'y'], 0.02);
    // a left out: b says x −1, y +2; c has no x (no vote) and y +2: y, although a's own dev prefers x.
    expect(a.choice).toBe('y');
    expect(a.why).toBe('x: b -1.00; mean -1.00 | y: b +2.00, c +2.00; mean +2.00');
    expect(a.settings).toEqual(['a1', 'a2']);
    // Its test, over both settings' seeds: y gains 3, 3, 2, 2 over base; random 1 each.
    expect(a.test.choice).toEqual({ mean: 2.5, std: 0.58, n: 4 });
    expect(a.test.random.mean).toBe(1);
    expect(a.ratio).toBe(2.5);
    expect(a.candidates.x.mean).toBe(5);
    // b left out: a's settings give x +8 and y +1 (each the mean over its seeds, then over settings); c y +2: x +8 > y +1.5.
    expect(b.choice).toBe('x');
    expect(b.test.overRandom).toEqual({ mean: 7, std: 0, n: 3 });
    expect(c.choice).toBe('x');
    // c has no record of x: its figures say so rather than invent one.
    expect(c.test.choice.n).toBe(0);
    expect(c.ratio).toBeNull();
  });

  it('chooses the default on every corpus by the same rule', () => {
    // x: a +8, b −1 (c none) → +3.5; y: a +1, b +2, c +2 → +1.67.
    expect(chooseQueueSignal(records, corpora, ['x', 'y'], 0.02).choice).toBe('x');
    expect(chooseQueueSignal(records, corpora, ['y', 'x'], 0.02).why).toBe('y: a +1.00, b +2.00, c +2.00; mean +1.67 | x: a +8.00, b -1.00; mean +3.50');
  });

  it("does not read the left-out corpus's own figures to choose", () => {
    const tilted = records.map((r) => (r.setting.startsWith('a') && r.arm === 'y' ? { ...r, dev: 0 } : r));
    expect(queueLoco(tilted, corpora, ['x', 'y'], 0.02)[0].choice).toBe('y');
  });
});

describe('fine-tunes that keep their start', () => {
  const base = { setting: 's', seed: 1, arm: 'base', fraction: 0, dev: 60, test: 55 };
  it('a fine-tune no better than its base on dev reads as the base; one that beats it, or one recorded under the rule, is left as it was', () => {
    const records: QueueRecord[] = [
      base,
      { setting: 's', seed: 1, arm: 'worse', fraction: 0.02, dev: 59, test: 58 },
      { setting: 's', seed: 1, arm: 'tied', fraction: 0.02, dev: 60, test: 57 },
      { setting: 's', seed: 1, arm: 'better', fraction: 0.02, dev: 61, test: 54 },
      { setting: 's', seed: 1, arm: 'recorded', fraction: 0.02, dev: 60, test: 55, start: 'kept' },
      // Recorded without the rule: read by it like the older records.
      { setting: 's', seed: 1, arm: 'any', fraction: 0.02, dev: 58, test: 59, start: 'any' },
      // Another seed's base does not count: this one has none, so it is left alone.
      { setting: 's', seed: 2, arm: 'orphan', fraction: 0.02, dev: 10, test: 10 },
      { setting: 's', seed: 1, arm: 'ranking', fraction: 0 },
    ];
    expect(keptStart(records)).toEqual([
      base,
      { setting: 's', seed: 1, arm: 'worse', fraction: 0.02, dev: 60, test: 55, start: 'kept' },
      { setting: 's', seed: 1, arm: 'tied', fraction: 0.02, dev: 60, test: 55, start: 'kept' },
      { setting: 's', seed: 1, arm: 'better', fraction: 0.02, dev: 61, test: 54, start: 'beaten' },
      records[4],
      { setting: 's', seed: 1, arm: 'any', fraction: 0.02, dev: 60, test: 55, start: 'kept' },
      records[6],
      records[7],
    ]);
    // So a kept fine-tune gains nothing over its base, on dev or test.
    expect([...pairedGains(keptStart(records), 's', 'worse', 'base', 0.02, 'test').values()]).toEqual([0]);
  });
});
