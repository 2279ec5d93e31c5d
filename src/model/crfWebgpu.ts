/**
 * The CRF's forward algorithm and its gradient (forward-backward marginals) as WGSL kernels,
 * registered for the webgpu backend under CRF_FORWARD and CRF_BACKWARD; `crfLogZ` in crf.ts uses
 * them when the active backend has them, and the generic TensorFlow.js ops everywhere else.
 *
 * One workgroup per sequence, one invocation per tag (K ≤ 64); the time loop runs inside the
 * kernel with the previous step's scores in workgroup memory, so a batch costs two dispatches
 * instead of the generic version's dozens of small ops per time step.
 */
import type { WebGPUBackend, WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import { CRF_BACKWARD, CRF_FORWARD, MAX_KERNEL_TAGS } from './crf';
import * as tf from './tf';

const WG = MAX_KERNEL_TAGS;

/** Shared by both kernels: the sequence length n (at least 1) from the mask, a prefix of ones. */
const lengthSnippet = `
  let T = uniforms.emShape.y;
  let K = uniforms.emShape.z;
  let b = i32(workgroupId.x);
  let j = i32(localId.x);
  var n = 1;
  for (var t = 0; t < T; t++) {
    if (Mask[b * T + t] > 0.5) { n = t + 1; }
  }
`;

/**
 * Inputs Em [B, T, K], Mask [B, T], Trans [K, K], Start [K], End [K]. Output [B, T + 1, K]: rows
 * 0..T-1 the forward scores alpha (carried unchanged past the sequence end), row T holds log Z in
 * its first cell.
 */
class CrfForwardProgram implements WebGPUProgram {
  variableNames = ['Em', 'Mask', 'Trans', 'Start', 'End'];
  outputShape: number[];
  shaderKey = 'studio_crf_forward';
  dispatchLayout = { x: [0] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [WG, 1, 1];

  constructor(B: number, T: number, K: number) {
    this.outputShape = [B, T + 1, K];
    this.dispatch = [B, 1, 1];
  }

  getUserCode(): string {
    return `
      var<workgroup> prev: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        var a = -1e30;
        if (j < K) {
          a = Start[j] + Em[(b * T) * K + j];
          setOutputAtIndex((b * (T + 1)) * K + j, a);
        }
        for (var t = 1; t < T; t++) {
          prev[j] = a;
          workgroupBarrier();
          if (j < K && t < n) {
            var m = -1e30;
            for (var i = 0; i < K; i++) { m = max(m, prev[i] + Trans[i * K + j]); }
            var s = 0.0;
            for (var i = 0; i < K; i++) { s = s + exp(prev[i] + Trans[i * K + j] - m); }
            a = m + log(s) + Em[(b * T + t) * K + j];
          }
          workgroupBarrier();
          if (j < K) { setOutputAtIndex((b * (T + 1) + t) * K + j, a); }
        }
        prev[j] = select(-1e30, a + End[min(j, K - 1)], j < K);
        workgroupBarrier();
        if (j == 0) {
          var m = -1e30;
          for (var i = 0; i < K; i++) { m = max(m, prev[i]); }
          var s = 0.0;
          for (var i = 0; i < K; i++) { s = s + exp(prev[i] - m); }
          setOutputAtIndex((b * (T + 1) + T) * K, m + log(s));
        } else if (j < K) {
          setOutputAtIndex((b * (T + 1) + T) * K + j, 0.0);
        }
      }
    `;
  }
}

/**
 * Inputs Em, Mask, Trans, End, Alpha (the forward output) and Dy [B], the upstream gradient of
 * log Z. Output [B, T*K + K*K]: dy times the marginals P(y_t = k) (0 past the end), then dy times
 * the pairwise marginals summed over time, sum_t P(y_t = i, y_t+1 = j).
 */
class CrfBackwardProgram implements WebGPUProgram {
  variableNames = ['Em', 'Mask', 'Trans', 'End', 'Alpha', 'Dy'];
  outputShape: number[];
  shaderKey = 'studio_crf_backward';
  dispatchLayout = { x: [0] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [WG, 1, 1];

  constructor(B: number, T: number, K: number) {
    this.outputShape = [B, T * K + K * K];
    this.dispatch = [B, 1, 1];
  }

  getUserCode(): string {
    return `
      var<workgroup> next: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        let row = b * (T * K + K * K);
        let logZ = Alpha[(b * (T + 1) + T) * K];
        let dy = Dy[b];
        var acc: array<f32, ${WG}>;
        for (var k = 0; k < ${WG}; k++) { acc[k] = 0.0; }
        var beta = 0.0;
        for (var t = T - 1; t >= 0; t--) {
          if (j < K) {
            if (t == n - 1) { beta = End[j]; }
            if (t < n) {
              setOutputAtIndex(row + t * K + j, dy * exp(Alpha[(b * (T + 1) + t) * K + j] + beta - logZ));
            } else {
              setOutputAtIndex(row + t * K + j, 0.0);
            }
          }
          // em_t[j] + beta_t[j], which every tag i of step t - 1 needs.
          next[j] = select(-1e30, beta + Em[(b * T + t) * K + min(j, K - 1)], j < K && t < n);
          workgroupBarrier();
          if (j < K && t >= 1 && t < n) {
            let ai = Alpha[(b * (T + 1) + t - 1) * K + j];
            var m = -1e30;
            for (var k = 0; k < K; k++) { m = max(m, Trans[j * K + k] + next[k]); }
            var s = 0.0;
            for (var k = 0; k < K; k++) {
              let x = Trans[j * K + k] + next[k];
              s = s + exp(x - m);
              acc[k] = acc[k] + exp(ai + x - logZ);
            }
            beta = m + log(s);
          }
          workgroupBarrier();
        }
        if (j < K) {
          for (var k = 0; k < K; k++) { setOutputAtIndex(row + T * K + j * K + k, dy * acc[k]); }
        }
      }
    `;
  }
}

function run(program: WebGPUProgram, inputs: TensorInfo[], backend: WebGPUBackend): TensorInfo {
  return backend.runWebGPUProgram(program, inputs, 'float32');
}

let registered = false;

/** Registers both kernels for the webgpu backend (once; safe to call again). */
export function registerCrfWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  tf.registerKernel({
    kernelName: CRF_FORWARD,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend }) => {
      const { emissions, mask, transitions, start, end } = inputs as Record<string, TensorInfo>;
      const [B, T, K] = emissions.shape;
      return run(new CrfForwardProgram(B, T, K), [emissions, mask, transitions, start, end], backend as WebGPUBackend);
    },
  });
  tf.registerKernel({
    kernelName: CRF_BACKWARD,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend }) => {
      const { emissions, mask, transitions, end, alpha, dy } = inputs as Record<string, TensorInfo>;
      const [B, T, K] = emissions.shape;
      return run(new CrfBackwardProgram(B, T, K), [emissions, mask, transitions, end, alpha, dy], backend as WebGPUBackend);
    },
  });
}
