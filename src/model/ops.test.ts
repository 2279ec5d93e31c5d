import { describe, expect, it } from 'vitest';
import { logSumExpOver, matMulFast, maxOver, SHIFT_CAT, shift, shiftCat, shiftConv } from './ops';
import * as tf from './tf';

const close = (a: tf.Tensor, b: tf.Tensor) => {
  const [x, y] = [a.dataSync(), b.dataSync()];
  expect(x.length).toBe(y.length);
  x.forEach((v, k) => expect(v).toBeCloseTo(y[k], 5));
};

describe('reductions with hand-written gradients', () => {
  const x = tf.randomNormal([3, 5, 4], 0, 1, 'float32', 7);
  const w = tf.randomNormal([3, 4], 0, 1, 'float32', 8);

  it('maxOver gives tf.max and its gradient, ties included', () => {
    close(maxOver(x, 1), tf.max(x, 1));
    close(tf.grad((v) => tf.sum(tf.mul(maxOver(v, 1), w)))(x), tf.grad((v) => tf.sum(tf.mul(tf.max(v, 1), w)))(x));
    // Channel 0 is 2, 1, 2, 0 (tied at steps 0 and 2); channel 1 is 5, 5, 0, 5.
    const tied = tf.tensor3d([2, 5, 1, 5, 2, 0, 0, 5], [1, 4, 2]);
    const g = tf.grad((v) => tf.sum(maxOver(v, 1)))(tied);
    expect(Array.from(g.dataSync())).toEqual([1, 1, 0, 1, 1, 0, 0, 1]);
    close(g, tf.grad((v) => tf.sum(tf.max(v, 1)))(tied));
  });

  it('logSumExpOver gives tf.logSumExp and its gradient on any axis', () => {
    for (const axis of [0, 1, 2, -1]) {
      close(logSumExpOver(x, axis), tf.logSumExp(x, axis));
      const u = tf.randomNormal(tf.logSumExp(x, axis).shape, 0, 1, 'float32', axis + 10);
      close(tf.grad((v) => tf.sum(tf.mul(logSumExpOver(v, axis), u)))(x), tf.grad((v) => tf.sum(tf.mul(tf.logSumExp(v, axis), u)))(x));
    }
  });
});

describe('shiftConv', () => {
  it('equals the concat-and-product convolution and its autodiff gradient, for each dilation', () => {
    const x = tf.randomNormal([2, 7, 3], 0, 1, 'float32', 1);
    const w = tf.randomNormal([9, 4], 0, 1, 'float32', 2);
    const b = tf.randomNormal([4], 0, 1, 'float32', 3);
    const u = tf.randomNormal([2, 7, 4], 0, 1, 'float32', 4);
    for (const d of [1, 2, 4, 8]) {
      const ref = (xi: tf.Tensor3D, wi: tf.Tensor2D, bi: tf.Tensor1D) =>
        tf.add(tf.matMul(tf.reshape(tf.concat([shift(xi, d), xi, shift(xi, -d)], 2), [14, 9]), wi), bi).reshape([2, 7, 4]);
      close(shiftConv(x as tf.Tensor3D, w as tf.Tensor2D, b as tf.Tensor1D, d), ref(x as tf.Tensor3D, w as tf.Tensor2D, b as tf.Tensor1D));
      const loss = (conv: typeof ref) => (xi: tf.Tensor, wi: tf.Tensor, bi: tf.Tensor) =>
        tf.sum(tf.mul(tf.tanh(conv(xi as tf.Tensor3D, wi as tf.Tensor2D, bi as tf.Tensor1D)), u));
      const got = tf.grads(loss((xi, wi, bi) => shiftConv(xi, wi, bi, d)))([x, w, b]);
      const want = tf.grads(loss(ref))([x, w, b]);
      got.forEach((g, k) => close(g, want[k]));
    }
  });
});

describe("the studio's WASM kernels", () => {
  /** The tensors `cases` makes, read on the CPU backend and on WASM with the studio's kernels. */
  async function cpuAndWasm(cases: () => tf.Tensor[]) {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    const read = () => cases().map((t) => ({ shape: t.shape, dtype: t.dtype, data: Array.from(t.dataSync()) }));
    await tf.setBackend('cpu');
    const want = read();
    await tf.setBackend('wasm');
    const got = read();
    await tf.setBackend('cpu');
    return { want, got };
  }

  it('cut what the CPU backend cuts: slices (contiguous, strided, empty), unstack and split on every axis', async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    const { registerWasmKernels } = await import('./wasmKernels');
    registerWasmKernels();
    const cases = (x: tf.Tensor) => [
      tf.slice(x, [1, 0, 0], [2, 4, 5]),
      tf.slice(x, [0, 1, 2], [3, 2, 3]),
      tf.slice(x, [2, 3, 4], [1, 1, 1]),
      tf.slice(x, [0, 0, 0], [3, 0, 5]),
      tf.slice(tf.reshape(x, [12, 5]), [3, 1], [6, 2]),
      tf.slice(tf.reshape(x, [60]), [7], [20]),
      ...[0, 1, 2].flatMap((a) => tf.unstack(x, a)),
      ...tf.split(x, [1, 3, 1], 2),
      ...tf.split(x, 3, 0),
      ...tf.split(tf.cast(x, 'int32'), 2, 1),
    ];
    const values = Array.from({ length: 60 }, (_, k) => k * 1.5 - 7);
    await tf.setBackend('cpu');
    const want = cases(tf.tensor3d(values, [3, 4, 5])).map((t) => ({ shape: t.shape, data: Array.from(t.dataSync()) }));
    await tf.setBackend('wasm');
    const got = cases(tf.tensor3d(values, [3, 4, 5])).map((t) => ({ shape: t.shape, data: Array.from(t.dataSync()) }));
    await tf.setBackend('cpu');
    expect(got).toEqual(want);
  });

  it('gather what the CPU backend gathers: every axis, repeated and multi-dimensional indices, int32, empty', async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    const values = Array.from({ length: 60 }, (_, k) => k * 1.5 - 7);
    const cases = (x: tf.Tensor) => [
      tf.gather(x, [2, 0, 2, 1]),
      tf.gather(x, tf.tensor2d([3, 0, 1, 1], [2, 2], 'int32'), 1),
      tf.gather(x, [4, 0], 2),
      tf.gather(x, [4, 0], -1),
      tf.gather(tf.cast(x, 'int32'), [1], 0),
      tf.gather(x, tf.tensor1d([], 'int32')),
      tf.gather(tf.reshape(x, [12, 5]), [11, 0, 5]),
    ];
    await tf.setBackend('cpu');
    const want = cases(tf.tensor3d(values, [3, 4, 5])).map((t) => ({ shape: t.shape, dtype: t.dtype, data: Array.from(t.dataSync()) }));
    await tf.setBackend('wasm');
    const got = cases(tf.tensor3d(values, [3, 4, 5])).map((t) => ({ shape: t.shape, dtype: t.dtype, data: Array.from(t.dataSync()) }));
    expect(() => tf.gather(tf.tensor3d(values, [3, 4, 5]), [3])).toThrow(/index 3 at 0 is outside \[0, 2\]/);
    await tf.setBackend('cpu');
    expect(got).toEqual(want);
  });

  it('transpose what the CPU backend transposes: every permutation of ranks 2-4, tall matrices, size-1 axes, int32 and bool, empty', async () => {
    const permutations = (n: number): number[][] =>
      n === 1 ? [[0]] : permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
    // [200, 40] and [3, 100, 20] by [0, 2, 1] take the blocked copies; the rest the package's.
    const shapes = [
      [37, 70],
      [200, 40],
      [3, 100, 20],
      [3, 4, 5],
      [3, 1, 5],
      [1, 4, 5],
      [2, 3, 1, 4],
      [2, 3, 4, 5],
      [70, 33, 2],
    ];
    const cases = () =>
      shapes.flatMap((shape) => {
        const size = shape.reduce((a, b) => a * b, 1);
        const x = tf.tensor(
          Array.from({ length: size }, (_, k) => k * 1.5 - 7),
          shape,
        );
        return permutations(shape.length).map((p) => tf.transpose(x, p));
      });
    const others = () => [
      tf.transpose(tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3], 'int32')),
      tf.transpose(tf.tensor2d([1, 0, 0, 1, 1, 0], [3, 2], 'bool')),
      tf.transpose(tf.zeros([0, 3])),
      // A size-1 axis between two that keep their order: nothing moves (the blocked copy took it for a matrix and threw).
      tf.transpose(tf.range(0, 130 * 40).reshape([130, 1, 40]), [1, 0, 2]),
      tf.transpose(tf.range(0, 130 * 40).reshape([130, 1, 40]), [2, 1, 0]),
    ];
    const { want, got } = await cpuAndWasm(() => [...cases(), ...others()]);
    expect(got).toEqual(want);
    // The blocked copies themselves on the shapes they take, whatever their size.
    const { collapseTranspose, transposeInto } = await import('./wasmKernels');
    const blocked = (shape: number[], perm: number[]) => {
      const size = shape.reduce((a, b) => a * b, 1);
      const c = collapseTranspose(shape, perm);
      const out = new Float32Array(size);
      transposeInto(
        Float32Array.from({ length: size }, (_, k) => k * 1.5 - 7),
        c.shape,
        c.perm,
        out,
      );
      return Array.from(out);
    };
    await tf.setBackend('cpu');
    for (const [shape, perm] of [
      [
        [37, 70],
        [1, 0],
      ],
      [
        [3, 4, 5],
        [0, 2, 1],
      ],
      [
        [2, 3, 4, 5],
        [0, 1, 3, 2],
      ],
      [
        [70, 33, 2],
        [0, 2, 1],
      ],
    ]) {
      const x = tf.tensor(
        Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, k) => k * 1.5 - 7),
        shape,
      );
      expect(blocked(shape, perm)).toEqual(Array.from(tf.transpose(x, perm).dataSync()));
    }
    expect(() => blocked([3, 4, 5], [1, 0, 2])).toThrow(/neither a matrix/);
  });

  it('build shiftCat as the composed shifts do: dilations 1, 2 and -3, a sequence shorter than the shift, int32', async () => {
    const values = Array.from({ length: 60 }, (_, k) => k * 1.5 - 7);
    const { want, got } = await cpuAndWasm(() => {
      const x = tf.tensor3d(values, [3, 4, 5]);
      return [shiftCat(x, 1), shiftCat(x, 2), shiftCat(x, -3), shiftCat(x, 4), shiftCat(tf.reshape(x, [2, 6, 5]), 1), shiftCat(tf.cast(x, 'int32'), -1)];
    });
    expect(tf.getKernel(SHIFT_CAT, 'cpu')).toBeUndefined();
    expect(tf.getKernel(SHIFT_CAT, 'wasm')).toBeDefined();
    expect(got).toEqual(want);
  });

  it('sum segments as the CPU backend does, and so give gather a gradient', async () => {
    const values = Array.from({ length: 24 }, (_, k) => k * 0.5 - 3);
    const { want, got } = await cpuAndWasm(() => {
      const x = tf.tensor2d(values, [6, 4]);
      return [
        tf.unsortedSegmentSum(x, tf.tensor1d([2, 0, 2, -1, 1, 2], 'int32'), 4),
        tf.unsortedSegmentSum(tf.reshape(x, [6, 2, 2]), tf.tensor1d([0, 0, 1, 1, 0, 1], 'int32'), 2),
        tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, [3, 0, 3, 5]), tf.range(0, 16).reshape([4, 4]))))(x),
      ];
    });
    expect(got).toEqual(want);
  });

  it("place out-of-GloVe rows by gathers with the one-hot products' bits on WASM, forward and gradient (the tagger's inputs)", async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    await tf.setBackend('wasm');
    // 4 sentences of 9 tokens, 7 of them out of GloVe, reading rows 3, 0, 3, 5, 3, 1, 5 of a [6, 20] table (repeats sum their gradients).
    const [BT, V, D] = [36, 6, 20];
    const pos = [2, 5, 6, 11, 20, 30, 35];
    const ids = [3, 0, 3, 5, 3, 1, 5];
    const table = tf.randomNormal([V, D], 0, 1, 'float32', 5);
    const u = tf.randomNormal([BT, D], 0, 1, 'float32', 6);
    const sel = new Float32Array(BT * pos.length);
    pos.forEach((p, k) => (sel[p * pos.length + k] = 1));
    const oneHot = tf.cast(tf.oneHot(ids, V), 'float32') as tf.Tensor2D;
    const place = new Int32Array(BT);
    pos.forEach((p, k) => (place[p] = k + 1));
    const byProducts = (t: tf.Tensor) => matMulFast(tf.tensor2d(sel, [BT, pos.length]), matMulFast(oneHot, t as tf.Tensor2D));
    const byGathers = (t: tf.Tensor) => tf.gather(tf.concat([tf.zeros([1, D]), tf.gather(t, ids)], 0), tf.tensor1d(place, 'int32'));
    const read = (f: (t: tf.Tensor) => tf.Tensor) => [f(table), tf.grad((t: tf.Tensor) => tf.sum(tf.mul(f(t), u)))(table)].map((t) => Array.from(t.dataSync()));
    const [want, got] = [read(byProducts), read(byGathers)];
    await tf.setBackend('cpu');
    expect(got).toEqual(want);
    expect(want[1].some((v) => v !== 0)).toBe(true);
  });

  it('take tanh through the sigmoid to float precision, saturated ends and empty tensors included', async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    (await import('./wasmKernels')).registerWasmKernels();
    const values = [...Array.from({ length: 20_001 }, (_, k) => (k - 10_000) / 500), -1e-6, 3e-8, 50, -50, 1e4, -1e4];
    await tf.setBackend('wasm');
    const got = tf.tanh(tf.tensor1d(values)).dataSync();
    expect(tf.tanh(tf.zeros([0, 3])).shape).toEqual([0, 3]);
    await tf.setBackend('cpu');
    values.forEach((v, k) => expect(Math.abs(got[k] - Math.tanh(v))).toBeLessThan(3e-7));
  });
});
