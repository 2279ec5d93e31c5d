/**
 * The ID-CNN's layer, mask · relu(width-3 dilated convolution + bias) (convReluMasked in
 * encoders.ts), as WGSL kernels for the webgpu backend: one program forward where the generic
 * ops take about seven (the shifted copies, their concatenation, the product, the bias, relu,
 * the mask), and one for each gradient backward (the input's, the filters', the bias's), each
 * recomputing the gradient before relu from the upstream gradient, the mask and the output.
 *
 * Shapes: X [B, T, D], W [3D, F] (the blocks for t − d, t, t + d), Bias [F], M [B, T]; the
 * output [B, T, F]. Positions outside the sentence's row read as zeros, as the zero-filled
 * shifts do in the generic version.
 */
import { CONV_KERNELS } from './encoders';
import { FlatProgram, registerProgramKernel } from './webgpuProgram';

/** A layer program: one invocation per output cell, the dilation in the shader. */
abstract class ConvProgram extends FlatProgram {
  shaderKey: string;

  constructor(
    name: string,
    outputShape: number[],
    protected readonly dilation: number,
  ) {
    super(outputShape);
    this.shaderKey = `studio_conv_${name}_${dilation}`;
  }
}

/** The gradient before relu at (b, t, f): the upstream gradient where the mask is 1 and the output positive. */
const preGradSnippet = `
  fn preGrad(b : i32, t : i32, f : i32) -> f32 {
    let T = uniforms.dyShape.y;
    let F = uniforms.dyShape.z;
    let at = (b * T + t) * F + f;
    return select(0.0, Dy[at] * M[b * T + t], Y[at] > 0.0);
  }
`;

class ConvReluProgram extends ConvProgram {
  variableNames = ['X', 'W', 'Bias', 'M'];

  getUserCode(): string {
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let T = uniforms.xShape.y;
          let D = uniforms.xShape.z;
          let F = uniforms.wShape.y;
          let f = index % F;
          let bt = index / F;
          let b = bt / T;
          let t = bt - b * T;
          var s = Bias[f];
          for (var k = 0; k < 3; k++) {
            let u = t + (k - 1) * ${this.dilation};
            if (u >= 0 && u < T) {
              let xb = (b * T + u) * D;
              for (var d = 0; d < D; d++) { s = s + X[xb + d] * W[(k * D + d) * F + f]; }
            }
          }
          setOutputAtIndex(index, M[bt] * max(s, 0.0));
        }
      }
    `;
  }
}

/** dX [B, T, D]: each position's three filter blocks against the gradient where it was read. */
class ConvInputGradProgram extends ConvProgram {
  variableNames = ['Dy', 'Y', 'M', 'W'];

  getUserCode(): string {
    return `
      ${preGradSnippet}
      fn main(index : i32) {
        if (index < uniforms.size) {
          let T = uniforms.dyShape.y;
          let F = uniforms.dyShape.z;
          let D = uniforms.wShape.x / 3;
          let d = index % D;
          let bt = index / D;
          let b = bt / T;
          let t = bt - b * T;
          var s = 0.0;
          for (var k = 0; k < 3; k++) {
            let u = t - (k - 1) * ${this.dilation};
            if (u >= 0 && u < T) {
              for (var f = 0; f < F; f++) { s = s + preGrad(b, u, f) * W[(k * D + d) * F + f]; }
            }
          }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

/** dW [3D, F]: Σ over sentences and positions of the input read times the gradient before relu. */
class ConvWeightGradProgram extends ConvProgram {
  variableNames = ['Dy', 'Y', 'M', 'X'];

  getUserCode(): string {
    return `
      ${preGradSnippet}
      fn main(index : i32) {
        if (index < uniforms.size) {
          let B = uniforms.xShape.x;
          let T = uniforms.xShape.y;
          let D = uniforms.xShape.z;
          let F = uniforms.dyShape.z;
          let f = index % F;
          let r = index / F;
          let k = r / D;
          let d = r - k * D;
          var s = 0.0;
          for (var b = 0; b < B; b++) {
            for (var t = 0; t < T; t++) {
              let u = t + (k - 1) * ${this.dilation};
              if (u >= 0 && u < T) { s = s + X[(b * T + u) * D + d] * preGrad(b, t, f); }
            }
          }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

/** d Bias [F]: the gradient before relu summed over sentences and positions. */
class ConvBiasGradProgram extends ConvProgram {
  variableNames = ['Dy', 'Y', 'M'];

  getUserCode(): string {
    return `
      ${preGradSnippet}
      fn main(index : i32) {
        if (index < uniforms.size) {
          var s = 0.0;
          for (var b = 0; b < uniforms.dyShape.x; b++) {
            for (var t = 0; t < uniforms.dyShape.y; t++) { s = s + preGrad(b, t, index); }
          }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

let registered = false;

/** Registers the ID-CNN layer's kernels for the webgpu backend (once; safe to call again). */
export function registerConvWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  registerProgramKernel(CONV_KERNELS.forward, ({ x, w, b, m }, { dilation }) => [
    new ConvReluProgram('relu', [x.shape[0], x.shape[1], w.shape[1]], dilation as number),
    [x, w, b, m],
  ]);
  registerProgramKernel(CONV_KERNELS.xGrad, ({ dy, y, m, w, x }, { dilation }) => [
    new ConvInputGradProgram('x_grad', x.shape, dilation as number),
    [dy, y, m, w],
  ]);
  registerProgramKernel(CONV_KERNELS.wGrad, ({ dy, y, m, x, w }, { dilation }) => [
    new ConvWeightGradProgram('w_grad', w.shape, dilation as number),
    [dy, y, m, x],
  ]);
  registerProgramKernel(CONV_KERNELS.bGrad, ({ dy, y, m, w }, { dilation }) => [
    new ConvBiasGradProgram('b_grad', [w.shape[1]], dilation as number),
    [dy, y, m],
  ]);
}
