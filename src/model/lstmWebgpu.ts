/**
 * One LSTM direction's whole recurrence as one WGSL kernel, and its backpropagation through time
 * as another, registered for the webgpu backend under LSTM_SEQ and LSTM_SEQ_GRAD; `lstmOp` in
 * encoders.ts uses them when the active backend has them (lstmKernelActive), the generic
 * TensorFlow.js ops everywhere else.
 *
 * Why: TensorFlow.js spends about 0.23 ms of CPU time on each GPU program it dispatches (measured
 * on an H100, BENCHMARKS.md), and the generic recurrence is some 17 programs a time step forward
 * and 30 back. Here one workgroup runs one sentence, one invocation per hidden unit (several
 * units each where H passes the workgroup), the time loop inside the kernel with the state in
 * workgroup memory, as the CRF's kernels do (crfWebgpu.ts).
 */
import type { WebGPUBackend, WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import * as tf from './tf';

export const LSTM_SEQ = 'StudioLstmSeq';
export const LSTM_SEQ_GRAD = 'StudioLstmSeqGrad';
/** The largest hidden size the kernels take (workgroup memory holds 4·H floats). */
export const MAX_KERNEL_HIDDEN = 512;
/** Tests turn the kernels off to compare them with the generic ops on the same backend. */
export const lstmKernelOptions = { enabled: true };

const WG = 128;
/** Hidden units per invocation at most. */
const UPT = MAX_KERNEL_HIDDEN / WG;

export function lstmKernelActive(H: number): boolean {
  return lstmKernelOptions.enabled && H <= MAX_KERNEL_HIDDEN && tf.getKernel(LSTM_SEQ, tf.getBackend()) !== undefined;
}

/** tanh without the overflow of exp(2x) for large |x|. */
const helpers = `
  fn stanh(x : f32) -> f32 { let e = exp(-2.0 * abs(x)); return sign(x) * (1.0 - e) / (1.0 + e); }
  fn sigm(x : f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }
`;

/** A program over time-major [T, B, ·] tensors with one workgroup of WG invocations per sentence (b = workgroupId.x). */
abstract class PerSentenceProgram implements WebGPUProgram {
  abstract variableNames: string[];
  dispatchLayout = { x: [0] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number] = [WG, 1, 1];

  constructor(
    public outputShape: number[],
    public shaderKey: string,
  ) {
    this.dispatch = [outputShape[1], 1, 1];
  }

  abstract getUserCode(): string;
}

/**
 * Inputs Xw [T, B, 4H] (input projections, bias included, time-major), M [T, B, 1] (the mask),
 * Wh [H, 4H]. Output [T, B, 6H]: per step the activated gates i, f, g, o, then the cell state c
 * and the output h after the step (carried unchanged where the mask is 0), in time order; the
 * recurrence runs from the last step to the first with `reverse`.
 */
class LstmSeqProgram extends PerSentenceProgram {
  variableNames = ['Xw', 'M', 'Wh'];

  constructor(
    T: number,
    B: number,
    H: number,
    private reverse: boolean,
  ) {
    super([T, B, 6 * H], `studio_lstm_seq_${reverse}`);
  }

  getUserCode(): string {
    return `
      ${helpers}
      var<workgroup> hs : array<f32, ${MAX_KERNEL_HIDDEN}>;
      fn main(index : i32) {
        let T = uniforms.xwShape.x;
        let B = uniforms.xwShape.y;
        let H4 = uniforms.xwShape.z;
        let H = H4 / 4;
        let b = i32(workgroupId.x);
        let j = i32(localId.x);
        var cs : array<f32, ${UPT}>;
        var hn : array<f32, ${UPT}>;
        for (var k = 0; k < ${UPT}; k++) { cs[k] = 0.0; hn[k] = 0.0; }
        for (var u = j; u < H; u += ${WG}) { hs[u] = 0.0; }
        workgroupBarrier();
        for (var s = 0; s < T; s++) {
          let t = ${this.reverse ? 'T - 1 - s' : 's'};
          let m = M[t * B + b];
          let xb = (t * B + b) * H4;
          let ob = (t * B + b) * 6 * H;
          var k = 0;
          for (var u = j; u < H; u += ${WG}) {
            var zi = Xw[xb + u];
            var zf = Xw[xb + H + u];
            var zg = Xw[xb + 2 * H + u];
            var zo = Xw[xb + 3 * H + u];
            for (var q = 0; q < H; q++) {
              let hq = hs[q];
              let w = q * H4 + u;
              zi = zi + hq * Wh[w];
              zf = zf + hq * Wh[w + H];
              zg = zg + hq * Wh[w + 2 * H];
              zo = zo + hq * Wh[w + 3 * H];
            }
            let gi = sigm(zi);
            let gf = sigm(zf);
            let gg = stanh(zg);
            let go = sigm(zo);
            let cNew = gf * cs[k] + gi * gg;
            let hNew = go * stanh(cNew);
            let c = cs[k] + m * (cNew - cs[k]);
            let h = hs[u] + m * (hNew - hs[u]);
            cs[k] = c;
            hn[k] = h;
            setOutputAtIndex(ob + u, gi);
            setOutputAtIndex(ob + H + u, gf);
            setOutputAtIndex(ob + 2 * H + u, gg);
            setOutputAtIndex(ob + 3 * H + u, go);
            setOutputAtIndex(ob + 4 * H + u, c);
            setOutputAtIndex(ob + 5 * H + u, h);
            k++;
          }
          workgroupBarrier();
          k = 0;
          for (var u = j; u < H; u += ${WG}) { hs[u] = hn[k]; k++; }
          workgroupBarrier();
        }
      }
    `;
  }
}

/**
 * Backpropagation through time for LstmSeqProgram's recurrence. Inputs Dy [T, B, H] (the outputs'
 * gradient; with `cells` [T, B, 2H]: the outputs', then the cell states'), G [T, B, 4H] (the
 * activated gates), C [T, B, H] (the cell states), M [T, B, 1], Wh [H, 4H]. Output dz
 * [T, B, 4H]: the gradient of each step's gate pre-activations (the recurrent weights' gradient
 * is then one matrix product over all steps, as in the generic version).
 */
class LstmSeqGradProgram extends PerSentenceProgram {
  variableNames = ['Dy', 'G', 'C', 'M', 'Wh'];

  constructor(
    T: number,
    B: number,
    H: number,
    private reverse: boolean,
    private cells: boolean,
  ) {
    super([T, B, 4 * H], `studio_lstm_seq_grad_${reverse}_${cells}`);
  }

  getUserCode(): string {
    return `
      ${helpers}
      var<workgroup> dzs : array<f32, ${4 * MAX_KERNEL_HIDDEN}>;
      fn main(index : i32) {
        let T = uniforms.gShape.x;
        let B = uniforms.gShape.y;
        let H4 = uniforms.gShape.z;
        let H = H4 / 4;
        let DW = ${this.cells ? '2 * H' : 'H'};
        let b = i32(workgroupId.x);
        let j = i32(localId.x);
        var dh : array<f32, ${UPT}>;
        var dc : array<f32, ${UPT}>;
        var keep : array<f32, ${UPT}>;
        for (var k = 0; k < ${UPT}; k++) { dh[k] = 0.0; dc[k] = 0.0; keep[k] = 0.0; }
        // Against the recurrence: the step it took last comes first.
        for (var s = 0; s < T; s++) {
          let r = T - 1 - s;
          let t = ${this.reverse ? 'T - 1 - r' : 'r'};
          let prev = ${this.reverse ? 't + 1' : 't - 1'};
          let m = M[t * B + b];
          let gb = (t * B + b) * H4;
          var k = 0;
          for (var u = j; u < H; u += ${WG}) {
            ${this.cells ? 'dc[k] = dc[k] + Dy[(t * B + b) * DW + H + u] * m;' : ''}
            let dhT = dh[k] + Dy[(t * B + b) * DW + u] * m;
            let dhNew = m * dhT;
            let gi = G[gb + u];
            let gf = G[gb + H + u];
            let gg = G[gb + 2 * H + u];
            let go = G[gb + 3 * H + u];
            let tc = stanh(C[(t * B + b) * H + u]);
            let dcNew = m * dc[k] + dhNew * go * (1.0 - tc * tc);
            var cPrev = 0.0;
            if (r > 0) { cPrev = C[(prev * B + b) * H + u]; }
            let dzi = dcNew * gg * gi * (1.0 - gi);
            let dzf = dcNew * cPrev * gf * (1.0 - gf);
            let dzg = dcNew * gi * (1.0 - gg * gg);
            let dzo = dhNew * tc * go * (1.0 - go);
            setOutputAtIndex(gb + u, dzi);
            setOutputAtIndex(gb + H + u, dzf);
            setOutputAtIndex(gb + 2 * H + u, dzg);
            setOutputAtIndex(gb + 3 * H + u, dzo);
            dzs[u] = dzi;
            dzs[H + u] = dzf;
            dzs[2 * H + u] = dzg;
            dzs[3 * H + u] = dzo;
            keep[k] = (1.0 - m) * dhT;
            dc[k] = (1.0 - m) * dc[k] + dcNew * gf;
            k++;
          }
          workgroupBarrier();
          k = 0;
          for (var u = j; u < H; u += ${WG}) {
            var acc = keep[k];
            let w = u * H4;
            for (var q = 0; q < H4; q++) { acc = acc + dzs[q] * Wh[w + q]; }
            dh[k] = acc;
            k++;
          }
          workgroupBarrier();
        }
      }
    `;
  }
}

let registered = false;

/** Registers both kernels for the webgpu backend (once; safe to call again). */
export function registerLstmWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  tf.registerKernel({
    kernelName: LSTM_SEQ,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { xw, m, wh } = inputs as Record<string, TensorInfo>;
      const [T, B, H4] = xw.shape;
      const program = new LstmSeqProgram(T, B, H4 / 4, !!(attrs as { reverse?: boolean }).reverse);
      return (backend as WebGPUBackend).runWebGPUProgram(program, [xw, m, wh], 'float32');
    },
  });
  tf.registerKernel({
    kernelName: LSTM_SEQ_GRAD,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { dy, gates, c, m, wh } = inputs as Record<string, TensorInfo>;
      const [T, B, H4] = gates.shape;
      const { reverse, cells } = attrs as { reverse?: boolean; cells?: boolean };
      const program = new LstmSeqGradProgram(T, B, H4 / 4, !!reverse, !!cells);
      return (backend as WebGPUBackend).runWebGPUProgram(program, [dy, gates, c, m, wh], 'float32');
    },
  });
}
