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
