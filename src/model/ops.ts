import * as tf from './tf';
import { programSource } from './programSource';

/**
 * a·bᵀ (transposeB) or aᵀ·b (transposeA) as the backend computes it fastest: on WASM an explicit
 * transpose and a plain matMul (its transposed products ran about 10x slower: 768x390 by 768x200,
 * 94 ms against 8 ms), on WebGPU the product's own flag, since there a transpose is a program of
 * its own and a program costs more than its arithmetic.
 */
export function matMulTransposed(a: tf.Tensor2D, b: tf.Tensor2D, transposeA: boolean, transposeB: boolean): tf.Tensor2D {
  if (tf.getBackend() === 'webgpu') return tf.matMul(a, b, transposeA, transposeB);
  return tf.matMul(transposeA ? tf.transpose(a) : a, transposeB ? tf.transpose(b) : b);
}

/** x·W with its gradient's products written as matMulTransposed does them. */
export const matMulFast = tf.customGrad(((x: tf.Tensor, w: tf.Tensor, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.matMul(x as tf.Tensor2D, w as tf.Tensor2D),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [sx, sw] = saved as tf.Tensor2D[];
      return [matMulTransposed(dy as tf.Tensor2D, sw, false, true), matMulTransposed(sx, dy as tf.Tensor2D, true, false)];
    },
  };
}) as never) as (x: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D;

/** A dense layer over the last axis of any-rank input. */
export function dense(x: tf.Tensor, w: tf.Variable | tf.Tensor, b?: tf.Variable | tf.Tensor): tf.Tensor {
  const shape = x.shape;
  const d = shape[shape.length - 1];
  let y: tf.Tensor = matMulFast(tf.reshape(x, [-1, d]) as tf.Tensor2D, w as tf.Tensor2D);
  if (b) y = tf.add(y, b);
  return tf.reshape(y, [...shape.slice(0, -1), w.shape[1] as number]);
}

/** Glorot-uniform initialization from a seed. */
export function glorot(shape: [number, number], seed: number): tf.Tensor {
  const limit = Math.sqrt(6 / (shape[0] + shape[1]));
  return tf.randomUniform(shape, -limit, limit, 'float32', seed);
}

/** Shifts a [B, T, D] sequence by `k` steps (positive: x[t-k] lands at t), zero-filled. */
export function shift(x: tf.Tensor3D, k: number): tf.Tensor3D {
  const [b, t, d] = x.shape;
  if (k === 0) return x;
  if (Math.abs(k) >= t) return tf.zeros([b, t, d]);
  if (k > 0) return tf.concat([tf.zeros([b, k, d]), tf.slice(x, [0, 0, 0], [b, t - k, d])], 1) as tf.Tensor3D;
  return tf.concat([tf.slice(x, [0, -k, 0], [b, t + k, d]), tf.zeros([b, -k, d])], 1) as tf.Tensor3D;
}

/**
 * The time steps of a [B, T, D] tensor as [B, D] slices. tf.unstack would do, but its gradient
 * (Unpack) fails when one of the slices gets no gradient, which happens here for batches whose
 * first steps feed nothing on the loss's path; a slice's gradient is a pad and never fails.
 */
export function timeSteps(x: tf.Tensor3D): tf.Tensor2D[] {
  const [b, t, d] = x.shape;
  return Array.from({ length: t }, (_, k) => tf.reshape(tf.slice(x, [0, k, 0], [b, 1, d]), [b, d]) as tf.Tensor2D);
}

/**
 * The sum of many tensors of one shape. tf.addN binds every input as a storage buffer of one
 * WebGPU shader, and past the device's maxStorageBuffersPerShaderStage (8 by default) the webgpu
 * backend's AddN (tfjs 4.22) makes an invalid pipeline that silently yields zeros and spoils
 * the other work in the same submission. Chunks of at most 6 inputs keep every backend correct.
 */
export function addMany(ts: readonly tf.Tensor[]): tf.Tensor {
  if (ts.length === 0) throw new Error('addMany: nothing to add');
  let xs = [...ts];
  while (xs.length > 1) {
    const next: tf.Tensor[] = [];
    for (let i = 0; i < xs.length; i += 6) next.push(xs.length - i === 1 ? xs[i] : tf.addN(xs.slice(i, i + 6)));
    xs = next;
  }
  return xs[0];
}

/**
 * One optimizer step with clipping by global norm. Every variable gets a gradient entry (zeros
 * when it was off this batch's path), since Adam keeps its moments by position in the map.
 */
export function applyClipped(optimizer: tf.Optimizer, vars: readonly tf.Variable[], grads: tf.NamedTensorMap, clip: number): void {
  const ordered = orderedGrads(vars, grads);
  tf.tidy(() => {
    const clipped = programSource('gradient clipping', () => {
      const norm = tf.sqrt(addMany(Object.values(ordered).map((g) => tf.sum(tf.square(g)))));
      const scale = tf.minimum(1, tf.div(clip, tf.maximum(norm, 1e-12)));
      return Object.fromEntries(Object.entries(ordered).map(([k, g]) => [k, tf.mul(g, scale)]));
    });
    programSource('optimizer', () => optimizer.applyGradients(clipped));
  });
  tf.dispose(Object.values(ordered).filter((g) => !Object.values(grads).includes(g)));
}

/** Every variable's gradient by name, in the variables' order: zeros for one off this batch's path (dispose them after, as applyClipped does). */
export function orderedGrads(vars: readonly tf.Variable[], grads: tf.NamedTensorMap): tf.NamedTensorMap {
  const ordered: tf.NamedTensorMap = {};
  for (const v of vars) ordered[v.name] = grads[v.name] ?? tf.zerosLike(v);
  return ordered;
}

/*
 * Reductions with hand-written gradients. TensorFlow.js differentiates max (and so logSumExp,
 * which subtracts the max) through equal(x, max) broadcast over the reduced axis, and on WASM a
 * broadcasting comparison takes a slow path: 241 ms for the character CNN's [1664, 16, 30] max
 * against 7 ms for the mask below (bench/wasm-kernels.ts).
 */
/** One custom-gradient op per value of a static parameter (an axis, a dilation, a direction), built on first use. */
export function opPer<K, F>(build: (key: K) => F): (key: K) => F {
  const ops = new Map<K, F>();
  return (key) => {
    let f = ops.get(key);
    if (!f) ops.set(key, (f = build(key)));
    return f;
  };
}

type Unary = (x: tf.Tensor) => tf.Tensor;

const maxOp = opPer(
  (a: number) =>
    tf.customGrad(((v: tf.Tensor, save: tf.GradSaveFunc) => {
      const m = tf.max(v, a, true);
      save([v, m]);
      return {
        value: tf.squeeze(m, [a]),
        // m - v >= 0, and sign() is exactly 0 where v is the max: the mask without a comparison.
        gradFunc: (dy: tf.Tensor, [sv, sm]: tf.Tensor[]) => tf.mul(tf.sub(1, tf.sign(tf.sub(sm, sv))), tf.expandDims(dy, a)),
      };
    }) as never) as Unary,
);

const logSumExpOp = opPer(
  (a: number) =>
    tf.customGrad(((v: tf.Tensor, save: tf.GradSaveFunc) => {
      const m = tf.max(v, a, true);
      const y = tf.add(m, tf.log(tf.sum(tf.exp(tf.sub(v, m)), a, true)));
      save([v, y]);
      return {
        value: tf.squeeze(y, [a]),
        gradFunc: (dy: tf.Tensor, [sv, sy]: tf.Tensor[]) => tf.mul(tf.exp(tf.sub(sv, sy)), tf.expandDims(dy, a)),
      };
    }) as never) as Unary,
);

/** max over `axis` (the axis dropped); the gradient goes to every position equal to the max. */
export function maxOver(x: tf.Tensor, axis: number): tf.Tensor {
  return maxOp(axis < 0 ? x.rank + axis : axis)(x);
}

/** log Σ exp over `axis` (the axis dropped); its gradient is the softmax, with no path through the max. */
export function logSumExpOver(x: tf.Tensor, axis: number): tf.Tensor {
  return logSumExpOp(axis < 0 ? x.rank + axis : axis)(x);
}

/** The kernel that builds shiftCat's [B, T, 3D] in one pass (wasmKernels.ts registers it for WASM). */
export const SHIFT_CAT = 'StudioShiftCat';

/**
 * [x(t−d); x(t); x(t+d)] along the last axis, zeros past either end: x [B, T, D] → [B, T, 3D].
 * One pass on backends with the kernel; elsewhere two shifts (each a slice and a concat with
 * zeros) and a concat. Both only copy values, so both give the same bits.
 */
export function shiftCat(x: tf.Tensor3D, d: number): tf.Tensor3D {
  if (tf.getKernel(SHIFT_CAT, tf.getBackend())) return tf.engine().runKernel(SHIFT_CAT, { x }, { d }) as tf.Tensor3D;
  return tf.concat([shift(x, d), x, shift(x, -d)], 2) as tf.Tensor3D;
}

/**
 * A width-3 convolution over time with dilation d, as one matrix product over the shifted
 * copies [x(t−d); x(t); x(t+d)]: x [B, T, D], w [3D, F], b [F] → [B, T, F]. TensorFlow.js has no
 * gradient for dilated convolution, and differentiating the concat-and-product version splits
 * the [B, T, 3D] gradient (SplitV, 6 % of an ID-CNN step on WASM) and pads each shift back. The
 * hand-written gradient builds the input gradient the way the forward pass builds its output:
 * dx = [dy(t+d); dy(t); dy(t−d)] · [W₀ᵀ; W₁ᵀ; W₂ᵀ], one product with no split.
 */
export function shiftConv(x: tf.Tensor3D, w: tf.Tensor2D, b: tf.Tensor1D, d: number): tf.Tensor3D {
  return convOp(d)(x, w, b);
}

const convOp = opPer(
  (d: number) =>
    tf.customGrad(((xi: tf.Tensor3D, wi: tf.Tensor2D, bi: tf.Tensor1D, save: tf.GradSaveFunc) => {
      const [B, T, D] = xi.shape;
      const F = wi.shape[1];
      const cat = tf.reshape(shiftCat(xi, d), [B * T, 3 * D]) as tf.Tensor2D;
      save([cat, wi]);
      return {
        value: tf.reshape(tf.add(tf.matMul(cat, wi), bi), [B, T, F]),
        gradFunc: (dy: tf.Tensor, [sCat, sw]: tf.Tensor[]) => {
          const dy3 = dy as tf.Tensor3D;
          const dy2 = tf.reshape(dy3, [B * T, F]) as tf.Tensor2D;
          const dyCat = tf.reshape(shiftCat(dy3, -d), [B * T, 3 * F]) as tf.Tensor2D;
          // [W₀ᵀ; W₁ᵀ; W₂ᵀ] in one transpose of the [3, D, F] blocks.
          const wT = tf.reshape(tf.transpose(tf.reshape(sw, [3, D, F]), [0, 2, 1]), [3 * F, D]) as tf.Tensor2D;
          const dx = tf.reshape(tf.matMul(dyCat, wT), [B, T, D]);
          const dw = tf.matMul(tf.transpose(sCat as tf.Tensor2D), dy2);
          return [dx, dw, tf.sum(dy2, 0)];
        },
      };
    }) as never) as (x: tf.Tensor3D, w: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor3D,
);
