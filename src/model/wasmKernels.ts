/**
 * Kernels for TensorFlow.js's WASM backend that replace slow ones of the package.
 *
 * Slice, read in place.
 *
 * The package's own Slice (tfjs-backend-wasm 4.22) starts with `backend.readSync(x)`, which copies
 * the whole input out of the WASM heap, so every slice costs the size of what it is cut from, not
 * of what it cuts: 52 one-step slices of a [52, 32, 400] sequence took 109 ms here against 1.3 ms
 * in place (bench/wasm-kernels.ts). The recurrent encoder's time steps, the convolutions' shifts and every
 * split (SplitV and Unpack are built on Slice) paid that, quadratically in sentence length. This
 * kernel views the input in the heap instead, copying only the slice. Registering it replaces
 * the package's Slice, Unpack and SplitV for the 'wasm' backend (the registry is global and keyed
 * by name); the string dtype keeps the package's Slice.
 *
 * Tanh, through the package's Sigmoid: tanh(x) = 2·σ(2x) − 1. The package's Tanh calls the C
 * library's tanh per element (0.87 ms for [256, 100] here), its Sigmoid is XNNPACK's vectorized
 * one (0.14 ms); the LSTM cell and the character CNN take a tanh at every step.
 */
import { backend_util, getKernel, registerKernel, slice_util, unregisterKernel, util, type KernelConfig, type TensorInfo } from '@tensorflow/tfjs-core';

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array | Int32Array | Uint8Array;
  dataIdMap: { get(dataId: object): { id: number } };
  wasm: { cwrap(name: string, ret: null, args: string[]): (...a: number[]) => void };
}

/** Copies the slice of `x` (shape, strides) at `begin` of `size` into `out`, row by innermost row. */
export function stridedCopy(x: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> }, shape: readonly number[], begin: readonly number[], size: readonly number[], out: { set(a: ArrayLike<number>, offset: number): void }): void {
  const rank = shape.length;
  const strides = util.computeStrides(shape as number[]);
  const inner = size[rank - 1];
  const rows = size.slice(0, -1).reduce((a, b) => a * b, 1);
  const idx = new Array(Math.max(rank - 1, 0)).fill(0);
  for (let r = 0; r < rows; r++) {
    let offset = begin[rank - 1];
    for (let d = 0; d < rank - 1; d++) offset += (begin[d] + idx[d]) * strides[d];
    out.set(x.subarray(offset, offset + inner), r * inner);
    for (let d = rank - 2; d >= 0; d--) {
      if (++idx[d] < size[d]) break;
      idx[d] = 0;
    }
  }
}

let originalSlice: KernelConfig | undefined;

/**
 * One LSTM time step's elementwise work as one kernel (inputs xw, hw: the input and recurrent
 * projections [B, 4H]; c, h: the state [B, H]; m: the mask [B, 1]; outputs the activated gates
 * [B, 4H] and the carried state c, h), and its backward step (see lstmOp in encoders.ts). The
 * composed ops are some 15 kernels a step forward and 25 backward, each with the engine's fixed
 * cost, on tensors of a few thousand numbers.
 */
export const LSTM_STEP = 'StudioLstmStep';
export const LSTM_STEP_GRAD = 'StudioLstmStepGrad';

type Args = { inputs: Record<string, TensorInfo>; attrs: Record<string, unknown>; backend: WasmBackendLike };

/** The slice of x at begin of size, read in place (parsed begin and size). */
function sliceInPlace(x: TensorInfo, begin: number[], size: number[], backend: WasmBackendLike): TensorInfo {
  // The output first: allocating may grow (and so replace) the heap, which would detach a view of x.
  const out = backend.makeOutput(size, x.dtype);
  if (util.sizeFromShape(size) === 0) return out;
  const xVals = backend.typedArrayFromHeap(x);
  const outVals = backend.typedArrayFromHeap(out);
  if (slice_util.isSliceContinous(x.shape, begin, size)) {
    const offset = slice_util.computeFlatOffset(begin, util.computeStrides(x.shape));
    outVals.set(xVals.subarray(offset, offset + util.sizeFromShape(size)));
  } else stridedCopy(xVals, x.shape, begin, size, outVals);
  return out;
}

const kernels: KernelConfig[] = [
  {
    kernelName: 'Slice',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x } = inputs;
      if (x.dtype === 'string') return originalSlice!.kernelFunc(args);
      const [begin, size] = slice_util.parseSliceParams(x as never, attrs.begin as number[], attrs.size as number[]);
      return sliceInPlace(x, begin, size, backend);
    },
  },
  {
    // The package's Unpack and SplitV call its own Slice directly, so they are replaced too.
    kernelName: 'Unpack',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { value } = inputs;
      const axis = (attrs.axis as number) < 0 ? (attrs.axis as number) + value.shape.length : (attrs.axis as number);
      const outShape = value.shape.filter((_, d) => d !== axis);
      const begin = value.shape.map(() => 0);
      const size = value.shape.slice();
      size[axis] = 1;
      return Array.from({ length: value.shape[axis] }, (_, i) => {
        begin[axis] = i;
        const { dataId, dtype } = sliceInPlace(value, begin, size, backend);
        return { dataId, dtype, shape: outShape };
      });
    },
  },
  {
    kernelName: 'SplitV',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x } = inputs;
      const axis = util.parseAxisParam(attrs.axis as number, x.shape)[0];
      const sizes = backend_util.prepareSplitSize(x as never, attrs.numOrSizeSplits as number[], axis);
      const begin = x.shape.map(() => 0);
      return sizes.map((s) => {
        const size = x.shape.slice();
        size[axis] = s;
        const out = sliceInPlace(x, begin.slice(), size, backend);
        begin[axis] += s;
        return out;
      });
    },
  },
  {
    kernelName: 'Tanh',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, backend } = args as unknown as Args;

      const { x } = inputs;
      const out = backend.makeOutput(x.shape, x.dtype);
      const n = util.sizeFromShape(x.shape);
      if (n === 0) return out;
      const xv = backend.typedArrayFromHeap(x);
      let ov = backend.typedArrayFromHeap(out);
      for (let i = 0; i < n; i++) ov[i] = 2 * xv[i];
      sigmoidInPlace(backend, out);
      ov = backend.typedArrayFromHeap(out);
      for (let i = 0; i < n; i++) ov[i] = 2 * ov[i] - 1;
      return out;
    },
  },
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
      const view = () => [inputs.dh, inputs.dc, inputs.dy, inputs.gates, inputs.c, inputs.cPrev, inputs.m, ...outs].map((t) => backend.typedArrayFromHeap(t) as Float32Array);
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

/** XNNPACK's σ over a tensor of the heap, in place (its elementwise operators allow it). */
function sigmoidInPlace(backend: WasmBackendLike, t: TensorInfo): void {
  sigmoid ??= backend.wasm.cwrap('Sigmoid', null, ['number', 'number']);
  const id = backend.dataIdMap.get(t.dataId).id;
  sigmoid(id, id);
}


// Bound at first use, not in a setupFunc: that runs only for kernels registered before the backend starts.
let sigmoid: ((xId: number, outId: number) => void) | undefined;

/**
 * Replaces the WASM backend's Slice, Unpack and SplitV with the in-place versions and its Tanh
 * with the one through Sigmoid, and adds the LSTM step kernels (idempotent).
 */
export function registerWasmKernels(): void {
  const current = getKernel('Slice', 'wasm');
  if (!current || current.kernelFunc === kernels[0].kernelFunc) return;
  originalSlice = current;
  for (const k of kernels) {
    if (getKernel(k.kernelName, 'wasm')) unregisterKernel(k.kernelName, 'wasm');
    registerKernel(k);
  }
}
