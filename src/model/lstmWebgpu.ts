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
import * as tf from './tf';
import { FlatProgram, PerSentenceProgram, registerProgramKernel } from './webgpuProgram';

export const LSTM_SEQ = 'StudioLstmSeq';
export const LSTM_SEQ_GRAD = 'StudioLstmSeqGrad';
/** The recurrent weights' gradient of the batch-major path in one program. */
export const LSTM_WH_GRAD = 'StudioLstmWhGrad';
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

/**
 * A program over [T, B, ·] (time-major) or [B, T, ·] (batch-major) tensors with one workgroup of
 * WG invocations per sentence (b = workgroupId.x). Both layouts index a step's row the same way
 * once `row` is written for the layout.
 */
abstract class LstmProgram extends PerSentenceProgram {
  constructor(
    outputShape: number[],
    public shaderKey: string,
    protected readonly batchMajor: boolean,
  ) {
    super(outputShape, outputShape[batchMajor ? 0 : 1], WG);
  }

  /** T and B from a [T, B, ·] or [B, T, ·] shape uniform, and the row of step t of sentence b. */
  protected layout(shape: string): string {
    return this.batchMajor ? `let B = uniforms.${shape}.x; let T = uniforms.${shape}.y;` : `let T = uniforms.${shape}.x; let B = uniforms.${shape}.y;`;
  }

  protected row(t: string): string {
    return this.batchMajor ? `(b * T + ${t})` : `(${t} * B + b)`;
  }

  abstract getUserCode(): string;
}

/**
 * Time-major: inputs Xw [T, B, 4H] (input projections, bias included), M [T, B, 1] (the mask),
 * Wh [H, 4H]; output [T, B, 6H]: per step the activated gates i, f, g, o, then the cell state c
 * and the output h after the step (carried unchanged where the mask is 0), in time order; the
 * recurrence runs from the last step to the first with `reverse`.
 *
 * Batch-major (training's path, lstmDirectionFused): Xw [B, T, 4H] without the bias, M [B, T],
 * Wh, Bias [4H]; output [B, T, 6H] the same, except that h is the output as the layer gives it,
 * 0 where the mask is (the same as the carried state wherever a gradient reaches it, the mask
 * being a prefix of each row).
 */
class LstmSeqProgram extends LstmProgram {
  variableNames: string[];

  constructor(
    shape: [number, number, number],
    private reverse: boolean,
    batchMajor: boolean,
  ) {
    super([shape[0], shape[1], (6 * shape[2]) / 4], `studio_lstm_seq_${reverse}_${batchMajor}`, batchMajor);
    this.variableNames = batchMajor ? ['Xw', 'M', 'Wh', 'Bias'] : ['Xw', 'M', 'Wh'];
  }

  getUserCode(): string {
    return `
      ${helpers}
      var<workgroup> hs : array<f32, ${MAX_KERNEL_HIDDEN}>;
      fn main(index : i32) {
        ${this.layout('xwShape')}
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
          let r = ${this.row('t')};
          let m = M[r];
          let xb = r * H4;
          let ob = r * 6 * H;
          var k = 0;
          for (var u = j; u < H; u += ${WG}) {
            var zi = Xw[xb + u]${this.batchMajor ? ' + Bias[u]' : ''};
            var zf = Xw[xb + H + u]${this.batchMajor ? ' + Bias[H + u]' : ''};
            var zg = Xw[xb + 2 * H + u]${this.batchMajor ? ' + Bias[2 * H + u]' : ''};
            var zo = Xw[xb + 3 * H + u]${this.batchMajor ? ' + Bias[3 * H + u]' : ''};
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
            setOutputAtIndex(ob + 5 * H + u, ${this.batchMajor ? 'm * h' : 'h'});
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
 * Backpropagation through time for LstmSeqProgram's recurrence. Time-major: inputs Dy [T, B, H]
 * (the outputs' gradient; with `cells` [T, B, 2H]: the outputs', then the cell states'), G
 * [T, B, 4H] (the activated gates), C [T, B, H] (the cell states), M [T, B, 1], Wh [H, 4H].
 * Batch-major: Dy [B, T, H], P [B, T, 6H] (the forward program's output: gates and cell states
 * read in place), M [B, T], Wh. Output dz, [T, B, 4H] or [B, T, 4H]: the gradient of each step's
 * gate pre-activations (the recurrent weights' gradient is then LstmWhGradProgram, or one matrix
 * product in the time-major path).
 */
class LstmSeqGradProgram extends LstmProgram {
  variableNames: string[];

  constructor(
    shape: [number, number, number],
    private reverse: boolean,
    private cells: boolean,
    batchMajor: boolean,
  ) {
    super(shape, `studio_lstm_seq_grad_${reverse}_${cells}_${batchMajor}`, batchMajor);
    this.variableNames = batchMajor ? ['Dy', 'P', 'M', 'Wh'] : ['Dy', 'G', 'C', 'M', 'Wh'];
  }

  /** Gate q's activation and the cell state at row r. */
  private gate(r: string, q: string): string {
    return this.batchMajor ? `P[${r} * 6 * H + ${q}]` : `G[${r} * H4 + ${q}]`;
  }

  private cell(r: string): string {
    return this.batchMajor ? `P[${r} * 6 * H + 4 * H + u]` : `C[${r} * H + u]`;
  }

  getUserCode(): string {
    return `
      ${helpers}
      var<workgroup> dzs : array<f32, ${4 * MAX_KERNEL_HIDDEN}>;
      fn main(index : i32) {
        ${this.layout('dyShape')}
        let H = uniforms.whShape.x;
        let H4 = 4 * H;
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
          let row = ${this.row('t')};
          let prow = ${this.row('prev')};
          let m = M[row];
          let gb = row * H4;
          var k = 0;
          for (var u = j; u < H; u += ${WG}) {
            ${this.cells ? 'dc[k] = dc[k] + Dy[row * DW + H + u] * m;' : ''}
            let dhT = dh[k] + Dy[row * DW + u] * m;
            let dhNew = m * dhT;
            let gi = ${this.gate('row', 'u')};
            let gf = ${this.gate('row', 'H + u')};
            let gg = ${this.gate('row', '2 * H + u')};
            let go = ${this.gate('row', '3 * H + u')};
            let tc = stanh(${this.cell('row')});
            let dcNew = m * dc[k] + dhNew * go * (1.0 - tc * tc);
            var cPrev = 0.0;
            if (r > 0) { cPrev = ${this.cell('prow')}; }
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

/**
 * The recurrent weights' gradient [H, 4H] from the batch-major path: Σ over sentences and steps
 * of the previous step's output (P's h, one step earlier in the recurrence, 0 before its first)
 * times dz. One invocation per weight.
 */
class LstmWhGradProgram extends FlatProgram {
  variableNames = ['P', 'Dz'];
  shaderKey: string;

  constructor(
    H: number,
    private reverse: boolean,
  ) {
    super([H, 4 * H]);
    this.shaderKey = `studio_lstm_wh_grad_${reverse}`;
  }

  getUserCode(): string {
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let B = uniforms.dzShape.x;
          let T = uniforms.dzShape.y;
          let H4 = uniforms.dzShape.z;
          let H = H4 / 4;
          let q = index / H4;
          let g = index - q * H4;
          var s = 0.0;
          for (var b = 0; b < B; b++) {
            for (var t = ${this.reverse ? '0' : '1'}; t < ${this.reverse ? 'T - 1' : 'T'}; t++) {
              let prev = b * T + ${this.reverse ? 't + 1' : 't - 1'};
              s = s + P[prev * 6 * H + 5 * H + q] * Dz[(b * T + t) * H4 + g];
            }
          }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

let registered = false;

/** Registers the LSTM's kernels for the webgpu backend (once; safe to call again). */
export function registerLstmWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  registerProgramKernel(LSTM_SEQ, ({ xw, m, wh, bias }, attrs) => {
    const batchMajor = !!bias;
    const program = new LstmSeqProgram(xw.shape as [number, number, number], !!attrs.reverse, batchMajor);
    return [program, batchMajor ? [xw, m, wh, bias] : [xw, m, wh]];
  });
  registerProgramKernel(LSTM_SEQ_GRAD, ({ dy, gates, c, p, m, wh }, attrs) => {
    const [X, Y] = dy.shape;
    const program = new LstmSeqGradProgram([X, Y, 4 * wh.shape[0]], !!attrs.reverse, !!attrs.cells, !!p);
    return [program, p ? [dy, p, m, wh] : [dy, gates, c, m, wh]];
  });
  registerProgramKernel(LSTM_WH_GRAD, ({ p, dz }, attrs) => [new LstmWhGradProgram(dz.shape[2] / 4, !!attrs.reverse), [p, dz]]);
}
