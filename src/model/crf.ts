import { logSumExpOver, timeSteps } from './ops';
import * as tf from './tf';

/**
 * A linear-chain CRF in generic TensorFlow.js ops, so it runs and differentiates on every
 * backend. Shapes: emissions [B, T, K], mask [B, T] (1 for real tokens, a prefix of each row),
 * transitions [K, K] (from row to column), start and end [K].
 */
export interface CrfParams {
  transitions: tf.Tensor2D;
  start: tf.Tensor1D;
  end: tf.Tensor1D;
}

/** A large negative number standing for log 0 that keeps gradients finite. */
export const NEG = -1e4;

/** Kernel names of the fused forward algorithm and its gradient; crfWebgpu.ts registers them for webgpu. */
export const CRF_FORWARD = 'StudioCrfForward';
export const CRF_BACKWARD = 'StudioCrfBackward';
/** Kernel names of the fused NLL, its per-sequence gradient, and one parameter's gradient summed over the batch. */
export const CRF_NLL = 'StudioCrfNll';
export const CRF_NLL_GRAD = 'StudioCrfNllGrad';
export const CRF_PARAM_GRAD = 'StudioCrfParamGrad';
/** The fused kernels run one invocation per tag in one workgroup. */
export const MAX_KERNEL_TAGS = 64;
/** Set `enabled` to false to force the generic ops (the tests compare the two on one backend). */
export const crfKernelOptions = { enabled: true };

/** Whether `crfLogZ` runs as fused kernels on the active backend for K tags. */
export function crfKernelActive(K: number): boolean {
  return crfKernelOptions.enabled && K <= MAX_KERNEL_TAGS && tf.getKernel(CRF_FORWARD, tf.getBackend()) !== undefined;
}

/**
 * log Z through the backend's fused kernels: the forward kernel gives alpha and log Z; the
 * gradient is the backward kernel's marginals (d log Z / d emission = P(y_t = k)), pairwise
 * marginals for the transitions, and the first and last steps' marginals for start and end.
 */
function fusedLogZ(emissions: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams): tf.Tensor1D {
  const op = tf.customGrad(((em: tf.Tensor, m: tf.Tensor, trans: tf.Tensor, start: tf.Tensor, end: tf.Tensor, save: tf.GradSaveFunc) => {
    const alpha = tf.engine().runKernel(CRF_FORWARD, { emissions: em, mask: m, transitions: trans, start, end }) as tf.Tensor3D;
    save([em, m, trans, end, alpha]);
    const [B, T1, K] = alpha.shape;
    const value = tf.reshape(tf.slice(alpha, [0, T1 - 1, 0], [B, 1, 1]), [B]);
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sEm, sMask, sTrans, sEnd, sAlpha] = saved;
        const [, T] = sMask.shape;
        const g = tf.engine().runKernel(CRF_BACKWARD, { emissions: sEm, mask: sMask, transitions: sTrans, end: sEnd, alpha: sAlpha, dy }) as tf.Tensor2D;
        const dEm = tf.reshape(tf.slice(g, [0, 0], [B, T * K]), [B, T, K]);
        const dTrans = tf.reshape(tf.sum(tf.slice(g, [0, T * K], [B, K * K]), 0), [K, K]);
        const dStart = tf.sum(tf.slice(dEm, [0, 0, 0], [B, 1, K]), [0, 1]);
        // The last real step of each row (the first when a row is all padding, as in the kernel).
        const atLeastOne = tf.maximum(sMask, tf.concat([tf.ones([B, 1]), tf.zeros([B, T - 1])], 1));
        const nextMask = tf.concat([tf.slice(atLeastOne, [0, 1], [B, T - 1]), tf.zeros([B, 1])], 1);
        const dEnd = tf.sum(tf.mul(dEm, tf.expandDims(tf.sub(atLeastOne, nextMask), 2)), [0, 1]);
        return [dEm, tf.zerosLike(sMask), dTrans, dStart, dEnd];
      },
    };
  }) as never) as (...xs: tf.Tensor[]) => tf.Tensor;
  return op(emissions, mask, p.transitions, p.start, p.end) as tf.Tensor1D;
}

/**
 * log Z, the log partition function, by the forward algorithm. With `allowed` [B, T, K] (1 where
 * a tag is allowed, 0 where not), it sums only over the tag paths that agree with it: the
 * likelihood of partial labels, with unconstrained tokens marginalized out. Runs as fused kernels
 * where the backend registers them (webgpu), as generic ops elsewhere.
 */
export function crfLogZ(emissions: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams, allowed?: tf.Tensor3D): tf.Tensor1D {
  return tf.tidy(() => {
    const [, T, K] = emissions.shape;
    let em: tf.Tensor3D = emissions;
    if (allowed) em = tf.add(em, tf.mul(tf.sub(1, allowed), NEG)) as tf.Tensor3D;
    if (crfKernelActive(K)) return fusedLogZ(em, mask, p);
    const steps = timeSteps(em);
    const masks = timeSteps(tf.expandDims(mask, 2) as tf.Tensor3D);
    let alpha: tf.Tensor2D = tf.add(steps[0], p.start);
    const trans = tf.expandDims(p.transitions, 0);
    for (let t = 1; t < T; t++) {
      // alpha'[b, j] = logsumexp_i(alpha[b, i] + trans[i, j]) + em[b, t, j]
      const next = tf.add(logSumExpOver(tf.add(tf.expandDims(alpha, 2), trans), 1), steps[t]) as tf.Tensor2D;
      alpha = tf.add(tf.mul(masks[t], next), tf.mul(tf.sub(1, masks[t]), alpha)) as tf.Tensor2D;
    }
    return logSumExpOver(tf.add(alpha, p.end), 1) as tf.Tensor1D;
  });
}

/** The score of given tag paths, tags as one-hot [B, T, K]. */
export function crfPathScore(emissions: tf.Tensor3D, tags: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams): tf.Tensor1D {
  return tf.tidy(() => {
    const [B, T, K] = emissions.shape;
    const m3 = tf.expandDims(mask, 2);
    const emit = tf.sum(tf.mul(tf.mul(emissions, tags), m3), [1, 2]);
    const first = tf.squeeze(tf.slice(tags, [0, 0, 0], [B, 1, K]), [1]);
    const start = tf.sum(tf.mul(first, p.start), 1);
    // The last real token of each row: mask[t] - mask[t+1].
    const nextMask = tf.concat([tf.slice(mask, [0, 1], [B, T - 1]), tf.zeros([B, 1])], 1);
    const isLast = tf.expandDims(tf.sub(mask, nextMask), 2);
    const end = tf.sum(tf.mul(tf.mul(tags, isLast), p.end), [1, 2]);
    if (T === 1) return tf.add(tf.add(emit, start), end) as tf.Tensor1D;
    const prev = tf.reshape(tf.slice(tags, [0, 0, 0], [B, T - 1, K]), [B * (T - 1), K]);
    const cur = tf.reshape(tf.slice(tags, [0, 1, 0], [B, T - 1, K]), [B * (T - 1), K]);
    // prev · trans gives, per step, the row of the previous tag; dotted with the current tag.
    const trans = tf.sum(tf.mul(tf.matMul(prev, p.transitions), cur), 1);
    const transScore = tf.sum(tf.mul(tf.reshape(trans, [B, T - 1]), tf.slice(mask, [0, 1], [B, T - 1])), 1);
    return tf.add(tf.add(tf.add(emit, start), end), transScore) as tf.Tensor1D;
  });
}

/**
 * Sequence negative log-likelihood, −log P(Y | X), per sequence. On a backend with the fused kernels
 * it is one program forward and five backward (the generic ops: some 27 and 35); the tags and
 * the mask are data there, not differentiated.
 */
export function crfNll(emissions: tf.Tensor3D, tags: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams): tf.Tensor1D {
  if (crfKernelActive(emissions.shape[2]))
    return tf.engine().runKernel(CRF_NLL, { emissions, tags, mask, transitions: p.transitions, start: p.start, end: p.end }) as tf.Tensor1D;
  return tf.tidy(() => tf.sub(crfLogZ(emissions, mask, p), crfPathScore(emissions, tags, mask, p)) as tf.Tensor1D);
}

const notDifferentiated = (what: string) => (): never => {
  throw new Error(`the fused CRF likelihood does not differentiate its ${what}: they are data (crfKernelOptions.enabled = false for the generic ops)`);
};

// The fused NLL's gradient: one program for every sequence's share, then one per parameter to sum
// the batch. Each input's gradient is built only when asked for (the tags and mask never are).
tf.registerGradient({
  kernelName: CRF_NLL,
  inputsToSave: ['emissions', 'tags', 'mask', 'transitions', 'start', 'end'],
  gradFunc: (dy, saved) => {
    const [emissions, tags, mask, transitions, start, end] = saved;
    const [B, T, K] = emissions.shape;
    const g = tf.engine().runKernel(CRF_NLL_GRAD, { emissions, tags, mask, transitions, start, end, dy: dy as tf.Tensor }) as tf.Tensor2D;
    const param = (part: 0 | 1 | 2) => () => tf.engine().runKernel(CRF_PARAM_GRAD, { g }, { K, part }) as tf.Tensor;
    return {
      emissions: () => tf.reshape(tf.slice(g, [0, 0], [B, T * K]), [B, T, K]),
      transitions: () => tf.reshape(param(0)(), [K, K]),
      start: param(1),
      end: param(2),
      tags: notDifferentiated('tags'),
      mask: notDifferentiated('mask'),
    };
  },
});

/**
 * Sequence log-unlikelihood, −log(1 − P(Y | X)) (NEEDLE, Eq. 4): pushes probability away from a
 * path believed wrong. Written as −log(−expm1(−nll)) for stability, with a floor on 1 − P.
 */
export function crfUnlikelihood(emissions: tf.Tensor3D, tags: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams): tf.Tensor1D {
  return tf.tidy(() => {
    const nll = crfNll(emissions, tags, mask, p);
    const oneMinusP = tf.sub(1, tf.exp(tf.neg(nll)));
    return tf.neg(tf.log(tf.maximum(oneMinusP, 1e-6))) as tf.Tensor1D;
  });
}

/**
 * −log of the total probability of the paths that agree with the labeled tokens, the rest
 * marginalized out (PU learning with a CRF: removed tokens take any tag).
 */
export function crfPartialNll(emissions: tf.Tensor3D, allowed: tf.Tensor3D, mask: tf.Tensor2D, p: CrfParams): tf.Tensor1D {
  return tf.tidy(() => tf.sub(crfLogZ(emissions, mask, p), crfLogZ(emissions, mask, p, allowed)) as tf.Tensor1D);
}

/** Marginals P(y_t = k | X) [B, T, K] by forward-backward, in plain arrays (no gradient). */
export function crfMarginals(
  emissions: Float32Array,
  lengths: readonly number[],
  T: number,
  K: number,
  trans: Float32Array,
  start: Float32Array,
  end: Float32Array,
): Float32Array {
  const out = new Float32Array(emissions.length);
  const alpha = new Float64Array(T * K);
  const beta = new Float64Array(T * K);
  const lse = (xs: number[]) => {
    const m = Math.max(...xs);
    return m + Math.log(xs.reduce((a, x) => a + Math.exp(x - m), 0));
  };
  lengths.forEach((n, b) => {
    const e = (t: number, k: number) => emissions[(b * T + t) * K + k];
    for (let k = 0; k < K; k++) alpha[k] = start[k] + e(0, k);
    for (let t = 1; t < n; t++)
      for (let j = 0; j < K; j++) alpha[t * K + j] = lse(Array.from({ length: K }, (_, i) => alpha[(t - 1) * K + i] + trans[i * K + j])) + e(t, j);
    for (let k = 0; k < K; k++) beta[(n - 1) * K + k] = end[k];
    for (let t = n - 2; t >= 0; t--)
      for (let i = 0; i < K; i++) beta[t * K + i] = lse(Array.from({ length: K }, (_, j) => trans[i * K + j] + e(t + 1, j) + beta[(t + 1) * K + j]));
    const logZ = lse(Array.from({ length: K }, (_, k) => alpha[(n - 1) * K + k] + end[k]));
    for (let t = 0; t < n; t++) for (let k = 0; k < K; k++) out[(b * T + t) * K + k] = Math.exp(alpha[t * K + k] + beta[t * K + k] - logZ);
  });
  return out;
}

/** Viterbi decoding on the CPU: per sequence, the best tag path and its score. */
export function viterbi(
  emissions: Float32Array,
  lengths: readonly number[],
  T: number,
  K: number,
  trans: Float32Array,
  start: Float32Array,
  end: Float32Array,
): { paths: number[][]; scores: number[] } {
  const paths: number[][] = [];
  const scores: number[] = [];
  const delta = new Float64Array(T * K);
  const back = new Int32Array(T * K);
  lengths.forEach((n, b) => {
    const base = b * T * K;
    for (let k = 0; k < K; k++) delta[k] = start[k] + emissions[base + k];
    for (let t = 1; t < n; t++) {
      for (let j = 0; j < K; j++) {
        let best = -Infinity;
        let arg = 0;
        for (let i = 0; i < K; i++) {
          const v = delta[(t - 1) * K + i] + trans[i * K + j];
          if (v > best) {
            best = v;
            arg = i;
          }
        }
        delta[t * K + j] = best + emissions[base + t * K + j];
        back[t * K + j] = arg;
      }
    }
    let best = -Infinity;
    let j = 0;
    for (let k = 0; k < K; k++) {
      const v = delta[(n - 1) * K + k] + end[k];
      if (v > best) {
        best = v;
        j = k;
      }
    }
    const path = new Array<number>(n);
    for (let t = n - 1; t >= 0; t--) {
      path[t] = j;
      if (t > 0) j = back[t * K + j];
    }
    paths.push(path);
    scores.push(best);
  });
  return { paths, scores };
}
