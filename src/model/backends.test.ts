import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { modelGrads, relativeGaps } from './gradCheck';
import { registerWasmKernels } from './wasmKernels';

// The studio's own Slice / Unpack / SplitV kernels for WASM (src/model/wasmKernels.ts) take part.
registerWasmKernels();

// The WASM backend (what the CLI and most browsers train on) against the CPU backend: the same
// weights and batch give the same gradient for every variable. The WebGPU side of this check runs
// in Chromium (e2e/kernels.spec.ts).
describe('backends agree on the gradient', () => {
  for (const encoder of ['bilstm', 'idcnn'] as const) {
    for (const head of ['crf', 'softmax'] as const) {
      it(`${encoder} + ${head}: WASM equals CPU`, async () => {
        const cpu = await modelGrads('cpu', encoder, undefined, head);
        const wasm = await modelGrads('wasm', encoder, cpu.weights, head);
        for (const [k, v] of Object.entries(relativeGaps(wasm.grads, cpu.grads))) expect(v, k).toBeLessThan(1e-4);
      });
    }
  }
});
