import * as tf from './tf';

import { beforeAll, describe, expect, it } from 'vitest';
import { crfLogZ, crfMarginals, crfNll, crfPartialNll, crfPathScore, crfUnlikelihood, viterbi } from './crf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
}

/** Every tag path of a short sequence, with its score. */
function brute(em: number[][], trans: number[][], start: number[], end: number[]) {
  const T = em.length;
  const K = em[0].length;
  const paths: { path: number[]; score: number }[] = [];
  const rec = (path: number[]) => {
    if (path.length === T) {
      let s = start[path[0]] + em[0][path[0]] + end[path[T - 1]];
      for (let t = 1; t < T; t++) s += trans[path[t - 1]][path[t]] + em[t][path[t]];
      paths.push({ path, score: s });
      return;
    }
    for (let k = 0; k < K; k++) rec([...path, k]);
  };
  rec([]);
  return paths;
}

const lse = (xs: number[]) => {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((a, x) => a + Math.exp(x - m), 0));
};

describe('linear-chain CRF', () => {
  const K = 3;
  const r = rng(7);
  const lengths = [4, 2];
  const T = 4;
  const em = lengths.map(() => Array.from({ length: T }, () => Array.from({ length: K }, () => 2 * r())));
  const trans = Array.from({ length: K }, () => Array.from({ length: K }, () => r()));
  const start = Array.from({ length: K }, () => r());
  const end = Array.from({ length: K }, () => r());
  const p = { transitions: tf.tensor2d(trans), start: tf.tensor1d(start), end: tf.tensor1d(end) };
  const emissions = tf.tensor3d(em);
  const mask = tf.tensor2d(lengths.map((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 : 0))));
  const gold = [
    [0, 2, 1, 1],
    [2, 2, 0, 0],
  ];
  const tags = tf.cast(tf.oneHot(tf.tensor2d(gold, undefined, 'int32'), K), 'float32') as tf.Tensor3D;

  it('log Z, path scores, NLL and unlikelihood equal brute-force enumeration', () => {
    const logZ = crfLogZ(emissions, mask, p).arraySync();
    const score = crfPathScore(emissions, tags, mask, p).arraySync();
    const nll = crfNll(emissions, tags, mask, p).arraySync();
    const ul = crfUnlikelihood(emissions, tags, mask, p).arraySync();
    lengths.forEach((n, b) => {
      const all = brute(em[b].slice(0, n), trans, start, end);
      const z = lse(all.map((x) => x.score));
      const g = all.find((x) => x.path.join() === gold[b].slice(0, n).join())!.score;
      expect(logZ[b]).toBeCloseTo(z, 4);
      expect(score[b]).toBeCloseTo(g, 4);
      expect(nll[b]).toBeCloseTo(z - g, 4);
      expect(ul[b]).toBeCloseTo(-Math.log(1 - Math.exp(g - z)), 4);
    });
  });

  it('marginalizing tokens out of the likelihood equals summing over their tags', () => {
    // Sequence 0: tokens 1 and 2 removed (any tag); 0 and 3 fixed to the gold tag.
    const allowed = tf.tensor3d(
      lengths.map((_, b) =>
        Array.from({ length: T }, (_, t) => Array.from({ length: K }, (_, k) => (b === 0 && (t === 1 || t === 2) ? 1 : k === gold[b][t] ? 1 : 0))),
      ),
    );
    const partial = crfPartialNll(emissions, allowed, mask, p).arraySync();
    const all = brute(em[0], trans, start, end);
    const z = lse(all.map((x) => x.score));
    const kept = lse(all.filter((x) => x.path[0] === gold[0][0] && x.path[3] === gold[0][3]).map((x) => x.score));
    expect(partial[0]).toBeCloseTo(z - kept, 4);
  });

  it('marginals and Viterbi agree with enumeration', () => {
    const flat = new Float32Array(emissions.dataSync());
    const marg = crfMarginals(flat, lengths, T, K, new Float32Array(trans.flat()), new Float32Array(start), new Float32Array(end));
    const vit = viterbi(flat, lengths, T, K, new Float32Array(trans.flat()), new Float32Array(start), new Float32Array(end));
    lengths.forEach((n, b) => {
      const all = brute(em[b].slice(0, n), trans, start, end);
      const z = lse(all.map((x) => x.score));
      for (let t = 0; t < n; t++)
        for (let k = 0; k < K; k++) {
          const m = all.filter((x) => x.path[t] === k).reduce((a, x) => a + Math.exp(x.score - z), 0);
          expect(marg[(b * T + t) * K + k]).toBeCloseTo(m, 4);
        }
      const best = all.reduce((a, x) => (x.score > a.score ? x : a));
      expect(vit.paths[b]).toEqual(best.path);
      expect(vit.scores[b]).toBeCloseTo(best.score, 4);
    });
  });

  it('the gradient of log Z with respect to the emissions is the marginals', () => {
    const g = tf.grad((e: tf.Tensor) => tf.sum(crfLogZ(e as tf.Tensor3D, mask, p)))(emissions);
    const marg = crfMarginals(
      new Float32Array(emissions.dataSync()),
      lengths,
      T,
      K,
      new Float32Array(trans.flat()),
      new Float32Array(start),
      new Float32Array(end),
    );
    const gd = g.dataSync();
    for (let i = 0; i < marg.length; i++) expect(gd[i]).toBeCloseTo(marg[i], 4);
  });
});
