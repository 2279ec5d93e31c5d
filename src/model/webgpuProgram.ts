/**
 * What the studio's WGSL kernels share: a program with one invocation per cell of a flat range,
 * and registering a kernel that builds one program from its inputs. Imports only types from the
 * WebGPU backend, so the modules that use it load before the backend does.
 */
import type { WebGPUBackend, WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import * as tf from './tf';

/** A program of `groups` workgroups of `workgroup` invocations along x: what every kernel of the studio dispatches. */
abstract class RowProgram implements WebGPUProgram {
  abstract variableNames: string[];
  abstract shaderKey: string;
  outputShape: number[];
  dispatchLayout = { x: [0] };
  dispatch: [number, number, number];
  workgroupSize: [number, number, number];

  constructor(outputShape: number[], groups: number, workgroup: number) {
    this.outputShape = outputShape;
    this.dispatch = [groups, 1, 1];
    this.workgroupSize = [workgroup, 1, 1];
  }

  abstract getUserCode(): string;
}

/**
 * One invocation per cell of `cells` (the output's size unless given), `index` in main. Flat: the
 * backend spreads a dispatch past its per-dimension limit over y and z, and the index follows.
 */
export abstract class FlatProgram extends RowProgram {
  size = true;

  constructor(outputShape: number[], cells = outputShape.reduce((a, b) => a * b, 1), workgroup = 64) {
    super(outputShape, Math.ceil(cells / workgroup), workgroup);
  }
}

/** Invocations of a ReductionProgram's workgroup (a power of two, for the tree sum). */
const REDUCE_WG = 128;

/**
 * One workgroup per output cell, for a gradient that is a sum over every token and character:
 * each of REDUCE_WG invocations sums a stride of the cell's terms, then a tree sum in workgroup
 * memory. One invocation per cell summed tens of thousands of terms alone, so the character CNN's
 * weight, bias and embedding gradients were two thirds of a BiLSTM-CRF step's GPU time on an H200
 * (bench/gpu-kernel-times-entry.ts, BENCHMARKS.md). The sum's order differs from the generic ops':
 * float sums in another order, held to them within 1e-5 in the browser tests.
 */
export abstract class ReductionProgram extends RowProgram {
  size = true;

  constructor(outputShape: number[]) {
    super(
      outputShape,
      outputShape.reduce((a, b) => a * b, 1),
      REDUCE_WG,
    );
  }

  /**
   * main for the sum over i < `count` of `term` for cell `o` (both WGSL expressions; `setup` is
   * WGSL run first, once a cell, that may define what they use).
   */
  protected reduction(count: string, setup: string, term: string): string {
    return `
      var<workgroup> partial : array<f32, ${REDUCE_WG}>;
      fn main(index : i32) {
        // The workgroups' flat index: the backend spreads a dispatch past its limit over y and z.
        let o = i32(workgroupId.z * numWorkgroups.x * numWorkgroups.y + workgroupId.y * numWorkgroups.x + workgroupId.x);
        let j = i32(localId.x);
        var s = 0.0;
        if (o < uniforms.size) {
          ${setup}
          for (var i = j; i < ${count}; i += ${REDUCE_WG}) { s = s + ${term}; }
        }
        partial[j] = s;
        workgroupBarrier();
        for (var w = ${REDUCE_WG / 2}; w > 0; w = w / 2) {
          if (j < w) { partial[j] = partial[j] + partial[j + w]; }
          workgroupBarrier();
        }
        if (j == 0 && o < uniforms.size) { setOutputAtIndex(o, partial[0]); }
      }
    `;
  }
}

/** Registers `name` for webgpu as the program `build` makes from the inputs and attributes, and the inputs it reads. */
export function registerProgramKernel(name: string, build: (inputs: Record<string, TensorInfo>, attrs: NamedAttrMap) => [WebGPUProgram, TensorInfo[]]): void {
  tf.registerKernel({
    kernelName: name,
    backendName: 'webgpu',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const [program, reads] = build(inputs as Record<string, TensorInfo>, attrs ?? {});
      return (backend as WebGPUBackend).runWebGPUProgram(program, reads, 'float32');
    },
  });
}

/** One workgroup of `workgroup` invocations per sentence (workgroupId.x), the sentence's loop over time inside the kernel. */
export abstract class PerSentenceProgram extends RowProgram {
  constructor(outputShape: number[], sentences: number, workgroup: number) {
    super(outputShape, sentences, workgroup);
  }
}
