import { beforeAll, describe, expect, it } from 'vitest';
import type { BatchArrays } from '../model/features';
import { simplexVertices } from '../model/tagger';
import * as tf from '../model/tf';
import { getMethod } from './index';
import { puRemoval } from './pu';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('PU learning pieces (paper 003)', () => {
  it('angle-based decision vectors: unit simplex vertices that sum to zero', () => {
    for (const k of [3, 5, 9]) {
      const W = simplexVertices(k);
      const col = (j: number) => Array.from({ length: k - 1 }, (_, r) => W[r * k + j]);
      for (let r = 0; r < k - 1; r++) expect(Math.abs(Array.from({ length: k }, (_, j) => W[r * k + j]).reduce((a, b) => a + b, 0))).toBeLessThan(1e-6);
      for (let j = 0; j < k; j++) {
        expect(Math.hypot(...col(j))).toBeCloseTo(1, 5);
        for (let i = 0; i < j; i++) expect(col(i).reduce((a, v, r) => a + v * col(j)[r], 0)).toBeCloseTo(-1 / (k - 1), 5);
      }
      // Any head output gives scores that sum to zero.
      const h = Array.from({ length: k - 1 }, (_, r) => Math.sin(r + 1));
      const scores = Array.from({ length: k }, (_, j) => h.reduce((a, v, r) => a + v * W[r * k + j], 0));
      expect(Math.abs(scores.reduce((a, b) => a + b, 0))).toBeLessThan(1e-5);
    }
  });

  it('removes the λ·m smallest O-values and measures detection against hidden entities', () => {
    const K = 3;
    const sentences = [
      { words: ['a', 'b', 'c'], tags: [0, 1, 0], hidden: [2, 0, 0], doc: 0, offset: 0 },
      { words: ['d', 'e'], tags: [0, 0], hidden: [0, 1], doc: 1, offset: 0 },
    ];
    // O-values (column 0): s0: 0.1, -, 0.9; s1: 0.5, -0.2.
    const em = [Float32Array.from([0.1, 0, 0, 5, 0, 0, 0.9, 0, 0]), Float32Array.from([0.5, 0, 0, -0.2, 0, 0])];
    const { exclude, detection } = puRemoval(sentences, em, K, 0.5, [0.25, 0.5, 1]);
    // m = 4 O tokens; ⌈0.5·4⌉ = 2 smallest: s1 t1 (−0.2) and s0 t0 (0.1), both hidden.
    expect(exclude).toEqual([[0], [1]]);
    expect(detection).toEqual([
      { lambda: 0.25, removed: 1, precision: 1, recall: 0.5 },
      { lambda: 0.5, removed: 2, precision: 1, recall: 1 },
      { lambda: 1, removed: 4, precision: 0.5, recall: 1 },
    ]);
  });

  it('with a CRF, the free tokens are marginalized out exactly (brute force)', () => {
    const [B, T, K] = [1, 4, 3];
    const em = [
      [0.3, -0.2, 1],
      [0.5, 0.1, -1],
      [0, 0.7, 0.2],
      [1.2, 0, 0.4],
    ];
    const trans = [
      [0.1, -0.3, 0],
      [0.2, 0, -0.5],
      [0, 0.4, 0.1],
    ];
    const start = [0, 0.2, -0.1];
    const end = [0.1, 0, 0.3];
    const tags = [0, 1, 0, 0];
    const bound = Float32Array.from([1, 1, 0, 0]); // tokens 2 and 3 removed or not sampled
    const crf = { transitions: tf.tensor2d(trans), start: tf.tensor1d(start), end: tf.tensor1d(end) };
    const ctx = {
      tagger: { cfg: { head: 'crf' }, dims: { tags: K }, crf: () => crf },
      batch: { B, T, lengths: [4], tags: Int32Array.from(tags) } as unknown as BatchArrays,
      tensors: { mask: tf.ones([B, T]) },
      emissions: tf.tensor3d([em]),
      prepared: bound,
    };
    const loss = getMethod('pu')
      .loss(ctx as never)
      .arraySync() as number;
    const score = (p: number[]) => start[p[0]] + end[p[3]] + p.reduce((a, k, t) => a + em[t][k] + (t ? trans[p[t - 1]][k] : 0), 0);
    const all: number[][] = [];
    for (let a = 0; a < K; a++) for (let b = 0; b < K; b++) for (let c = 0; c < K; c++) for (let d = 0; d < K; d++) all.push([a, b, c, d]);
    const lse = (xs: number[]) => Math.max(...xs) + Math.log(xs.reduce((s, x) => s + Math.exp(x - Math.max(...xs)), 0));
    const z = lse(all.map(score));
    const agree = lse(all.filter((p) => p[0] === tags[0] && p[1] === tags[1]).map(score));
    expect(loss).toBeCloseTo(z - agree, 4);
  });
});
