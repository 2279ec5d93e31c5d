/**
 * The LSTM step kernels for the WASM backend (kernel names in encoders.ts, which falls back to the
 * composed ops on other backends): one LSTM time step's elementwise work (gates, cell and output
 * update, masking) as one kernel, and its backward step as another. The composed ops are some 15
 * kernels a step forward and 25 backward on tensors of a few thousand numbers, each with the
 * engine's fixed cost. JavaScript on the WASM heap, with every sigmoid and tanh done by XNNPACK's
 * vectorized sigmoid in place (tanh(x) = 2σ(2x) − 1): a first version computing them with V8's
 * Math.exp and Math.tanh was slower per step than that.
 */
import type { KernelConfig } from '@tensorflow/tfjs-core';
import { LSTM_STEP, LSTM_STEP_GRAD } from './encoders';
import { sigmoidInPlace, type Args } from './wasmHeap';

export const lstmWasmKernels: KernelConfig[] = [
  {
    kernelName: LSTM_STEP,
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, backend } = args as unknown as Args;
      const [B, H4] = inputs.xw.shape;
      const H = H4 / 4;
      // Outputs first: allocating may grow the heap and detach earlier views.
      const outs = [backend.makeOutput([B, H4], 'float32'), backend.makeOutput([B, H], 'float32'), backend.makeOutput([B, H], 'float32')];
      const view = () => [inputs.xw, inputs.hw, inputs.c, inputs.h, inputs.m, ...outs].map((t) => backend.typedArrayFromHeap(t) as Float32Array);
      let [X, Z, C, Hp, M, G, CO, HO] = view();
      // The pre-activations, the g gate's doubled: tanh(z) = 2σ(2z) − 1, every gate through one σ.
      for (let b = 0; b < B; b++)
        for (let q = 0; q < H4; q++) {
          const r = b * H4 + q;
          G[r] = q >= 2 * H && q < 3 * H ? 2 * (X[r] + Z[r]) : X[r] + Z[r];
        }
      sigmoidInPlace(backend, outs[0]);
      [X, Z, C, Hp, M, G, CO, HO] = view();
      for (let b = 0; b < B; b++) {
        const m = M[b];
        for (let j = 0; j < H; j++) {
          const r = b * H4 + j;
          const k = b * H + j;
          const g = (G[r + 2 * H] = 2 * G[r + 2 * H] - 1);
          const c = G[r + H] * C[k] + G[r] * g;
          CO[k] = C[k] + m * (c - C[k]);
          HO[k] = 2 * c;
        }
      }
      sigmoidInPlace(backend, outs[2]);
      [X, Z, C, Hp, M, G, CO, HO] = view();
      for (let b = 0; b < B; b++) {
        const m = M[b];
        for (let j = 0; j < H; j++) {
          const k = b * H + j;
          HO[k] = Hp[k] + m * (G[b * H4 + 3 * H + j] * (2 * HO[k] - 1) - Hp[k]);
        }
      }
      return outs;
    },
  },
  {
    kernelName: LSTM_STEP_GRAD,
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, backend } = args as unknown as Args;
      const [B, H4] = inputs.gates.shape;
      const H = H4 / 4;
      const outs = [backend.makeOutput([B, H4], 'float32'), backend.makeOutput([B, H], 'float32'), backend.makeOutput([B, H], 'float32')];
      const view = () =>
        [inputs.dh, inputs.dc, inputs.dy, inputs.gates, inputs.c, inputs.cPrev, inputs.m, ...outs].map((t) => backend.typedArrayFromHeap(t) as Float32Array);
      let [DH, DC, DY, G, C, CP, M, DZ, DHK, DCN] = view();
      // tanh(c) through σ, in the dh output until that is written.
      for (let k = 0; k < B * H; k++) DHK[k] = 2 * C[k];
      sigmoidInPlace(backend, outs[1]);
      [DH, DC, DY, G, C, CP, M, DZ, DHK, DCN] = view();
      for (let b = 0; b < B; b++) {
        const m = M[b];
        for (let j = 0; j < H; j++) {
          const k = b * H + j;
          const r = b * H4 + j;
          const i = G[r];
          const f = G[r + H];
          const g = G[r + 2 * H];
          const o = G[r + 3 * H];
          const tc = 2 * DHK[k] - 1;
          const dhT = DH[k] + DY[k] * m;
          const dhNew = m * dhT;
          const dcNew = m * DC[k] + dhNew * o * (1 - tc * tc);
          DZ[r] = dcNew * g * i * (1 - i);
          DZ[r + H] = dcNew * CP[k] * f * (1 - f);
          DZ[r + 2 * H] = dcNew * i * (1 - g * g);
          DZ[r + 3 * H] = dhNew * tc * o * (1 - o);
          DHK[k] = (1 - m) * dhT;
          DCN[k] = (1 - m) * DC[k] + dcNew * f;
        }
      }
      return outs;
    },
  },
];
