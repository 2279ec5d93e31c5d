import { describe, expect, it } from 'vitest';
import { parseRatios, splitByRatio } from './splits';

describe('splits by ratio', () => {
  it('reads train/dev/test weights and refuses what is not three numbers', () => {
    expect(parseRatios('80/10/10')).toEqual({ train: 0.8, dev: 0.1, test: 0.1 });
    expect(parseRatios(' 2 / 1 / 1 ')).toEqual({ train: 0.5, dev: 0.25, test: 0.25 });
    expect(() => parseRatios('80/20')).toThrow('split ratios: "80/20" is not three numbers train/dev/test, e.g. 80/10/10');
    expect(() => parseRatios('a/1/1')).toThrow(/not three numbers/);
    expect(() => parseRatios('0/0/0')).toThrow(/gives every split nothing/);
  });

  it('gives exact counts, the same for the same seed, another draw for another', () => {
    const a = splitByRatio(20, parseRatios('60/20/20'), 1);
    expect(['train', 'dev', 'test'].map((s) => a.filter((x) => x === s).length)).toEqual([12, 4, 4]);
    expect(splitByRatio(20, parseRatios('60/20/20'), 1)).toEqual(a);
    expect(splitByRatio(20, parseRatios('60/20/20'), 2)).not.toEqual(a);
  });
});
