/**
 * The character CNN (charCnn in encoders.ts: embedding lookup, width-3 convolution, tanh, max over
 * the word's characters with padding kept from winning) as WGSL kernels for the webgpu backend:
 * one program forward where the generic ops take some 14, and five backward where they take some
 * 20 (bench/gpu-programs.ts).
 *
 * Shapes: Chars [N, L] character ids (0 pads), Emb [V, D], W [3D, F] (the three positions' blocks
 * of D rows), Bias [F]; the output [N, F]. A character outside [0, V) embeds as zeros, as a
 * one-hot row of zeros does in the generic version.
 */
import { CHAR_CNN_KERNELS } from './encoders';
import { FlatProgram, ReductionProgram, registerProgramKernel } from './webgpuProgram';

/** Character p of token n's embedding, component dd (0 outside the word or the table). */
const embedSnippet = `
  fn embed(n : i32, p : i32, dd : i32) -> f32 {
    let L = uniforms.charsShape.y;
    let V = uniforms.embShape.x;
    let D = uniforms.embShape.y;
    if (p < 0 || p >= L) { return 0.0; }
    let c = i32(Chars[n * L + p]);
    if (c < 0 || c >= V) { return 0.0; }
    return Emb[c * D + dd];
  }
`;

/** tanh of the convolution at character l for filter f, and the value the max is taken over. */
const convSnippet = `
  ${embedSnippet}
  fn stanh(x : f32) -> f32 { let e = exp(-2.0 * abs(x)); return sign(x) * (1.0 - e) / (1.0 + e); }
  fn conv(n : i32, l : i32, f : i32) -> f32 {
    let D = uniforms.embShape.y;
    let F = uniforms.wShape.y;
    var s = Bias[f];
    for (var k = 0; k < 3; k++) {
      for (var dd = 0; dd < D; dd++) { s = s + embed(n, l + k - 1, dd) * W[(k * D + dd) * F + f]; }
    }
    return stanh(s);
  }
  fn padding(n : i32, l : i32) -> f32 {
    return select(0.0, 10.0, i32(Chars[n * uniforms.charsShape.y + l]) == 0);
  }
`;

class CharCnnProgram extends FlatProgram {
  variableNames = ['Chars', 'Emb', 'W', 'Bias'];
  shaderKey = 'studio_char_cnn';

  getUserCode(): string {
    return `
      ${convSnippet}
      fn main(index : i32) {
        if (index < uniforms.size) {
          let F = uniforms.wShape.y;
          let n = index / F;
          let f = index - n * F;
          var m = -1e30;
          for (var l = 0; l < uniforms.charsShape.y; l++) { m = max(m, conv(n, l, f) - padding(n, l)); }
          setOutputAtIndex(index, m);
        }
      }
    `;
  }
}

/**
 * The gradient at the convolution's output before tanh, [N, L, F]: dy (1 − tanh²) at every
 * character whose value equals the max (as the generic max's gradient), 0 elsewhere. One
 * invocation per (token, filter) writes its L cells.
 */
class CharCnnPreGradProgram extends FlatProgram {
  variableNames = ['Chars', 'Emb', 'W', 'Bias', 'Dy'];
  shaderKey: string;

  constructor(
    N: number,
    private readonly L: number,
    F: number,
  ) {
    super([N, L, F], N * F);
    this.shaderKey = `studio_char_cnn_pre_grad_${L}`;
  }

  getUserCode(): string {
    return `
      ${convSnippet}
      fn main(index : i32) {
        let L = ${this.L};
        let F = uniforms.wShape.y;
        if (index < uniforms.charsShape.x * F) {
          let n = index / F;
          let f = index - n * F;
          var c: array<f32, ${this.L}>;
          var m = -1e30;
          for (var l = 0; l < L; l++) {
            c[l] = conv(n, l, f);
            m = max(m, c[l] - padding(n, l));
          }
          let dy = Dy[index];
          for (var l = 0; l < L; l++) {
            let hit = select(0.0, 1.0, c[l] - padding(n, l) == m);
            result[(n * L + l) * F + f] = hit * dy * (1.0 - c[l] * c[l]);
          }
        }
      }
    `;
  }
}

/** dW [3D, F]: Σ over tokens and characters of the pre-activation gradient times the input there. */
class CharCnnWeightGradProgram extends ReductionProgram {
  variableNames = ['DPre', 'Chars', 'Emb'];
  shaderKey = 'studio_char_cnn_w_grad';

  getUserCode(): string {
    return `
      ${embedSnippet}
      ${this.reduction(
        'N * L',
        `let N = uniforms.charsShape.x;
          let L = uniforms.charsShape.y;
          let D = uniforms.embShape.y;
          let F = uniforms.dPreShape.z;
          let r = o / F;
          let f = o - r * F;
          let k = r / D;
          let dd = r - k * D;`,
        'DPre[i * F + f] * embed(i / L, i % L + k - 1, dd)',
      )}
    `;
  }
}

/** d bias [F]: the pre-activation gradient summed over tokens and characters. */
class CharCnnBiasGradProgram extends ReductionProgram {
  variableNames = ['DPre'];
  shaderKey = 'studio_char_cnn_b_grad';

  getUserCode(): string {
    return this.reduction('cells', 'let F = uniforms.dPreShape.z; let cells = uniforms.dPreShape.x * uniforms.dPreShape.y;', 'DPre[i * F + o]');
  }
}

/** The gradient at each character's embedding [N, L, D]: the three positions' filters that saw it. */
class CharCnnInputGradProgram extends FlatProgram {
  variableNames = ['DPre', 'W'];
  shaderKey = 'studio_char_cnn_x_grad';

  getUserCode(): string {
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let L = uniforms.dPreShape.y;
          let F = uniforms.dPreShape.z;
          let D = uniforms.wShape.x / 3;
          let n = index / (L * D);
          let p = (index / D) % L;
          let dd = index % D;
          var s = 0.0;
          for (var k = 0; k < 3; k++) {
            let l = p - k + 1;
            if (l >= 0 && l < L) {
              for (var f = 0; f < F; f++) { s = s + DPre[(n * L + l) * F + f] * W[(k * D + dd) * F + f]; }
            }
          }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

/** d Emb [V, D]: each character's embedding gradient added into its id's row. */
class CharCnnEmbGradProgram extends ReductionProgram {
  variableNames = ['DX', 'Chars'];
  shaderKey = 'studio_char_cnn_emb_grad';

  getUserCode(): string {
    return this.reduction(
      'cells',
      `let D = uniforms.dXShape.z;
        let cells = uniforms.charsShape.x * uniforms.charsShape.y;
        let v = o / D;
        let dd = o - v * D;`,
      'select(0.0, DX[i * D + dd], i32(Chars[i]) == v)',
    );
  }
}

let registered = false;

/** Registers the character CNN's kernels for the webgpu backend (once; safe to call again). */
export function registerCharCnnWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  registerProgramKernel(CHAR_CNN_KERNELS.forward, ({ chars, emb, w, b }) => [new CharCnnProgram([chars.shape[0], w.shape[1]]), [chars, emb, w, b]]);
  registerProgramKernel(CHAR_CNN_KERNELS.preGrad, ({ chars, emb, w, b, dy }) => [
    new CharCnnPreGradProgram(chars.shape[0], chars.shape[1], w.shape[1]),
    [chars, emb, w, b, dy],
  ]);
  registerProgramKernel(CHAR_CNN_KERNELS.wGrad, ({ dPre, chars, emb, w }) => [new CharCnnWeightGradProgram(w.shape), [dPre, chars, emb]]);
  registerProgramKernel(CHAR_CNN_KERNELS.bGrad, ({ dPre }) => [new CharCnnBiasGradProgram([dPre.shape[2]]), [dPre]]);
  registerProgramKernel(CHAR_CNN_KERNELS.xGrad, ({ dPre, w }) => [new CharCnnInputGradProgram([dPre.shape[0], dPre.shape[1], w.shape[0] / 3]), [dPre, w]]);
  registerProgramKernel(CHAR_CNN_KERNELS.embGrad, ({ dX, chars, emb }) => [new CharCnnEmbGradProgram(emb.shape), [dX, chars]]);
}
