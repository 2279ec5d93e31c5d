import { beforeAll, describe, expect, it } from 'vitest';
import type { Params } from './encoders';
import { dense } from './ops';
import { bioEntities, decodeSpans, spanCrossEntropy, spanFeatures, spanLogits, spanLogitsAt, spanSlots, spanTargets } from './spanHead';
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

  it('scores spans as the MLP on those representations would, values and gradients', () => {
    const [B, T, H, L, hidden, C] = [2, 5, 3, 3, 4, 3];
    const h = tf.tensor3d(
      Array.from({ length: B * T * H }, (_, k) => Math.cos(k * 0.7)),
      [B, T, H],
    );
    const params: Params = new Map();
    const u = tf.randomNormal([B, spanSlots(T, L).S, C], 0, 1, 'float32', 3);
    const loss = (f: (x: tf.Tensor3D) => tf.Tensor) => (x: tf.Tensor) => tf.sum(tf.mul(f(x as tf.Tensor3D), u));
    const fast = (x: tf.Tensor3D) => spanLogits(params, x, L, hidden, C, 7);
    const got = fast(h);
    // The reference: the MLP on the [B, S, 4H] representations, with the same weights.
    const [w1, b1, w2, b2] = ['span/w1', 'span/b1', 'span/w2', 'span/b2'].map((k) => params.get(k)!);
    const ref = (x: tf.Tensor3D) => dense(tf.relu(dense(spanFeatures(x, L), w1, b1)), w2, b2);
    const close = (a: tf.Tensor, b: tf.Tensor) => a.dataSync().forEach((v, k) => expect(v).toBeCloseTo(b.dataSync()[k], 5));
    close(got, ref(h));
    close(tf.grad(loss(fast))(h), tf.grad(loss(ref))(h));
    const wrt = (f: (x: tf.Tensor3D) => tf.Tensor) => tf.variableGrads(() => loss(f)(h) as tf.Scalar, [w1, b1]).grads;
    const [g, r] = [wrt(fast), wrt(ref)];
    for (const k of Object.keys(r)) close(g[k], r[k]);
  });

  it('scores chosen slots only as spanLogits scores them, values and gradients, on CPU and WASM', async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    for (const backend of ['cpu', 'wasm']) {
      await tf.setBackend(backend);
      const [B, T, H, L, hidden, C] = [2, 5, 3, 3, 4, 3];
      const S = spanSlots(T, L).S;
      const h = tf.tensor3d(
        Array.from({ length: B * T * H }, (_, k) => Math.sin(k * 0.9)),
        [B, T, H],
      );
      const params: Params = Object.assign(new Map<string, tf.Variable>(), { prefix: `at-${backend}/` });
      const slots = Int32Array.from([0, 4, S + 2, S - 1, 2 * S - 1, 4]);
      const u = tf.randomNormal([slots.length, C], 0, 1, 'float32', 5);
      const all = (x: tf.Tensor) => tf.gather(tf.reshape(spanLogits(params, x as tf.Tensor3D, L, hidden, C, 7), [B * S, C]), tf.tensor1d(slots, 'int32'));
      const at = (x: tf.Tensor) => spanLogitsAt(params, x as tf.Tensor3D, L, slots, hidden, C, 7);
      const close = (a: tf.Tensor, b: tf.Tensor) => a.dataSync().forEach((v, k) => expect(v, backend).toBeCloseTo(b.dataSync()[k], 5));
      close(at(h), all(h));
      const loss = (f: (x: tf.Tensor) => tf.Tensor) => (x: tf.Tensor) => tf.sum(tf.mul(f(x), u));
      close(tf.grad(loss(at))(h), tf.grad(loss(all))(h));
      const vars = ['span/w1', 'span/b1', 'span/w2', 'span/b2'].map((k) => params.get(k)!);
      const [g, r] = [loss(at), loss(all)].map((f) => tf.variableGrads(() => f(h) as tf.Scalar, vars).grads);
      for (const k of Object.keys(r)) close(g[k], r[k]);
      expect(() => spanLogitsAt(params, h, L, Int32Array.from([B * S]), hidden, C, 7)).toThrow(/outside the batch/);
      params.forEach((v) => v.dispose());
    }
    await tf.setBackend('cpu');
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
    expect(labeled).toEqual([
      [0, 5, 6, 2],
      [1, 1, 2, 2],
    ]);
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
    expect(spans[0].map((s) => [s.start, s.end, s.type])).toEqual([
      [1, 2, 1],
      [2, 3, 1],
    ]);
    expect(paths[0]).toEqual([0, 3, 3]);
  });

  it('span cross-entropy averages over the weighted slots only', () => {
    const logits = tf.tensor3d([
      [
        [0, 0],
        [2, 0],
        [9, 9],
      ],
    ]);
    const loss = spanCrossEntropy(logits, Int32Array.from([0, 1, 0]), Float32Array.from([1, 1, 0])).arraySync();
    const want = (Math.log(2) + (2 + Math.log(1 + Math.exp(-2)))) / 2;
    expect(loss).toBeCloseTo(want, 5);
  });
});
