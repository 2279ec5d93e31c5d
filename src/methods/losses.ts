/**
 * The losses of the noise-aware methods, as pieces the method modules combine. Shapes: log
 * probabilities or emissions [B, T, K], one-hot targets [B, T, K], token weights [B, T].
 */
import { crfNll, crfUnlikelihood, type CrfParams } from '../model/crf';
import * as tf from '../model/tf';

/** Weighted mean of per-token values; 0 when every weight is 0. */
export function weightedMean(values: tf.Tensor, weights: tf.Tensor): tf.Scalar {
  return tf.div(tf.sum(tf.mul(values, weights)), tf.maximum(tf.sum(weights), 1e-12)) as tf.Scalar;
}

/** Token cross-entropy −log p_y from log probabilities. */
export function tokenNll(logProbs: tf.Tensor3D, onehot: tf.Tensor3D): tf.Tensor2D {
  return tf.neg(tf.sum(tf.mul(logProbs, onehot), 2)) as tf.Tensor2D;
}

/**
 * Generalized cross entropy (Zhang and Sabuncu 2018; RoSTER Eq. 3): (1 − p_y^q) / q per token.
 * q → 0 gives the cross entropy, q = 1 the mean absolute error.
 */
export function gce(logProbs: tf.Tensor3D, onehot: tf.Tensor3D, q: number): tf.Tensor2D {
  return gceOfLabel(tf.sum(tf.mul(logProbs, onehot), 2) as tf.Tensor2D, q);
}

/** GCE from the log probability of each token's label; q = 0 is the cross entropy −log p_y. */
export function gceOfLabel(logPy: tf.Tensor2D, q: number): tf.Tensor2D {
  return (q > 0 ? tf.div(tf.sub(1, tf.exp(tf.mul(logPy, q))), q) : tf.neg(logPy)) as tf.Tensor2D;
}

/**
 * NEEDLE's noise-aware loss (Eq. 3): per sequence, c · NLL + (1 − c) · log-unlikelihood, where c
 * is the estimated confidence that the (completed) weak labels are right; strong sequences take
 * the NLL alone. `weak` and `confidence` are [B].
 */
export function noiseAwareCrf(
  emissions: tf.Tensor3D,
  tags: tf.Tensor3D,
  mask: tf.Tensor2D,
  p: CrfParams,
  weak: tf.Tensor1D,
  confidence: tf.Tensor1D,
): tf.Tensor1D {
  const nll = crfNll(emissions, tags, mask, p);
  const ul = crfUnlikelihood(emissions, tags, mask, p);
  const c = tf.add(tf.mul(weak, confidence), tf.sub(1, weak));
  return tf.add(tf.mul(c, nll), tf.mul(tf.sub(1, c), ul)) as tf.Tensor1D;
}

/**
 * RoSTER's sharpened soft labels (Eq. 8) over the entity types of tokens: q_ij ∝ p_ij² / g_j with
 * g_j = Σ_i p_ij, the soft frequency of type j. `probs` is [N, C] row-major; rows sum to 1 after.
 */
export function sharpen(probs: Float32Array, N: number, C: number): Float32Array {
  const g = new Float64Array(C);
  for (let i = 0; i < N; i++) for (let j = 0; j < C; j++) g[j] += probs[i * C + j];
  const out = new Float32Array(N * C);
  for (let i = 0; i < N; i++) {
    let z = 0;
    for (let j = 0; j < C; j++) z += probs[i * C + j] ** 2 / Math.max(g[j], 1e-12);
    for (let j = 0; j < C; j++) out[i * C + j] = probs[i * C + j] ** 2 / Math.max(g[j], 1e-12) / Math.max(z, 1e-30);
  }
  return out;
}

/** KL(target ‖ model) per token from target probabilities and model log probabilities. */
export function klTokens(target: tf.Tensor3D, logProbs: tf.Tensor3D): tf.Tensor2D {
  const logT = tf.log(tf.maximum(target, 1e-12));
  return tf.sum(tf.mul(target, tf.sub(logT, logProbs)), 2) as tf.Tensor2D;
}
