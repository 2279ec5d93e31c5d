import { beforeAll, describe, expect, it } from 'vitest';
import { bioEntities, decodeSpans, spanCrossEntropy, spanFeatures, spanSlots, spanTargets } from './spanHead';
import * as tf from './tf';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('span classifier head', () => {
  it('lays out every span up to L tokens, by width', () => {
    const { S, starts, ends } = spanSlots(5, 3);
    expect(S).toBe(5 + 4 + 3);
    expect([...starts.slice(0, 6)]).toEqual([0, 1, 2, 3, 4, 0]);
    expect([...ends.slice(9)]).toEqual([3, 4, 5]);
    expect(spanSlots(2, 10).S).toBe(3);
  });

  it('represents span (i, j) as [h_i; h_j; h_i - h_j; h_i * h_j]', () => {
    const [B, T, H, L] = [2, 4, 3, 3];
    const hv = Array.from({ length: B * T * H }, (_, k) => Math.sin(k + 1));
    const x = spanFeatures(tf.tensor3d(hv, [B, T, H]), L).arraySync();
    const { S, starts, ends } = spanSlots(T, L);
    expect(x[0]).toHaveLength(S);
    for (let b = 0; b < B; b++) {
      for (let s = 0; s < S; s++) {
        const hi = hv.slice((b * T + starts[s]) * H, (b * T + starts[s]) * H + H);
        const hj = hv.slice((b * T + ends[s] - 1) * H, (b * T + ends[s] - 1) * H + H);
        const want = [...hi, ...hj, ...hi.map((v, k) => v - hj[k]), ...hi.map((v, k) => v * hj[k])];
        x[b][s].forEach((v, k) => expect(v).toBeCloseTo(want[k], 5));
      }
    }
  });

  it('reads gold spans from BIO tag ids and counts entities longer than L', () => {
    // O B-0 I-0 O B-1 I-0 | tags: O=0, B-c=2c+1, I-c=2c+2
    expect(bioEntities([0, 1, 2, 0, 3, 2])).toEqual([
      { start: 1, end: 3, type: 0 },
      { start: 4, end: 5, type: 1 },
      { start: 5, end: 6, type: 0 },
    ]);
    const T = 6;
    const tags = Int32Array.from([1, 2, 2, 2, 0, 3, /* second row */ 0, 3, -1, -1, -1, -1]);
    const { labels, valid, tooLong } = spanTargets(tags, [6, 2], T, 3);
    const { S, starts, ends } = spanSlots(T, 3);
    expect(tooLong).toBe(1);
    const labeled = [...labels].flatMap((l, k) => (l ? [[Math.floor(k / S), starts[k % S], ends[k % S], l]] : []));
    expect(labeled).toEqual([[0, 5, 6, 2], [1, 1, 2, 2]]);
    expect(valid.slice(S, 2 * S).reduce((a, v) => a + v, 0)).toBe(3);
  });

  it('decodes the best-scoring non-overlapping entity spans', () => {
    const T = 3;
    const L = 2;
    const C = 3;
    const { S, starts, ends } = spanSlots(T, L);
    const logits = new Float32Array(S * C);
    const set = (a: number, b: number, scores: number[]) => {
      const s = [...starts].findIndex((x, k) => x === a && ends[k] === b);
      logits.set(scores, s * C);
    };
    for (let s = 0; s < S; s++) logits.set([5, 0, 0], s * C);
    set(0, 2, [0, 4, 0]); // type 0, confident
    set(1, 2, [0, 0, 6]); // type 1, more confident, overlaps (0, 2)
    set(2, 3, [1, 0, 1.5]); // type 1, weak but free
    const { paths, spans } = decodeSpans(logits, [3], T, L, C);
    expect(spans[0].map((s) => [s.start, s.end, s.type])).toEqual([[1, 2, 1], [2, 3, 1]]);
    expect(paths[0]).toEqual([0, 3, 3]);
  });

  it('span cross-entropy averages over the weighted slots only', () => {
    const logits = tf.tensor3d([[[0, 0], [2, 0], [9, 9]]]);
    const loss = spanCrossEntropy(logits, Int32Array.from([0, 1, 0]), Float32Array.from([1, 1, 0])).arraySync();
    const want = (Math.log(2) + (2 + Math.log(1 + Math.exp(-2)))) / 2;
    expect(loss).toBeCloseTo(want, 5);
  });
});
