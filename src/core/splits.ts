/**
 * Seeded splits by ratio: a user with one labeled file gets train, dev and test from it, the same
 * ones each time for the same seed.
 */
import { mulberry32 } from './random';
import type { Split } from './types';

export interface Ratios {
  train: number;
  dev: number;
  test: number;
}

/** "80/10/10" (percent, or any weights) as shares of 1, or an error that says what is wrong. */
export function parseRatios(text: string): Ratios {
  const parts = text.split('/').map((p) => p.trim());
  const nums = parts.map(Number);
  if (parts.length !== 3 || nums.some((n, k) => parts[k] === '' || !Number.isFinite(n) || n < 0))
    throw new Error(`split ratios: "${text}" is not three numbers train/dev/test, e.g. 80/10/10`);
  const sum = nums[0] + nums[1] + nums[2];
  if (sum <= 0) throw new Error(`split ratios: "${text}" gives every split nothing`);
  return { train: nums[0] / sum, dev: nums[1] / sum, test: nums[2] / sum };
}

/**
 * A split for each of n documents: a seeded shuffle, then round(n·train) to train, round(n·dev)
 * to dev and the rest to test, so the counts are exact and the choice is reproducible.
 */
export function splitByRatio(n: number, r: Ratios, seed: number): Split[] {
  const rand = mulberry32(seed);
  const order = Array.from({ length: n }, (_, k) => [rand(), k] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, k]) => k);
  const nTrain = Math.round(n * r.train);
  const nDev = Math.min(n - nTrain, Math.round(n * r.dev));
  const out: Split[] = new Array(n);
  order.forEach((k, i) => (out[k] = i < nTrain ? 'train' : i < nTrain + nDev ? 'dev' : 'test'));
  return out;
}
