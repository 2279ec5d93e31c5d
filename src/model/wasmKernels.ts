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
 * library's tanh per element, its Sigmoid is XNNPACK's vectorized one (bench/wasm-kernels.ts:
 * several times faster through the sigmoid); the LSTM cell and the character CNN take a tanh at
 * every step.
 *
 * GatherV2 (batchDims 0, numeric), as row copies on the heap: the package's took 10.5 ms to gather
 * 508 rows of a [221, 138] matrix (150 ns an element; an Add of the same matrix 0.4 ms), a tenth
 * of the decoupled model's prediction (bench/wasm-kernels.ts).
 *
 * UnsortedSegmentSum, which the package lacks (so gather had no gradient on WASM): row sums on the
 * heap. The span head's loss on the sampled spans gathers their token states (spanHead.ts).
 *
 * Transpose of tall matrices, as blocked copies on the heap: the package's took 22.5 ms for the
 * character CNN's [26624, 90] patch matrix, whose transpose every step's weight gradient takes
 * (matMulTransposed in ops.ts), against 6 ms here (bench/wasm-kernels.ts); other shapes keep the
 * package's (blockedWins). A transpose only moves values, so a model trains to the same
 * numbers either way.
 *
 * StudioShiftCat (shiftCat in ops.ts): a width-3 convolution's shifted copies [x(t−d); x(t);
 * x(t+d)] written in one pass, where the composed version (two slices, two concats with zeros,
 * one concat of three) spent 10 % of a bc5cdr training run in the character CNN's copies.
 *
 * registerWasmKernels also registers the studio's own LSTM step kernels (lstmWasm.ts).
 */
import { backend_util, getKernel, registerKernel, slice_util, unregisterKernel, util, type KernelConfig, type TensorInfo } from '@tensorflow/tfjs-core';
import { lstmWasmKernels } from './lstmWasm';
import { SHIFT_CAT } from './ops';
import { sigmoidInPlace, type Args, type WasmBackendLike } from './wasmHeap';

/** Copies the slice of `x` (shape, strides) at `begin` of `size` into `out`, row by innermost row. */
export function stridedCopy(
  x: ArrayLike<number> & { subarray(a: number, b: number): ArrayLike<number> },
  shape: readonly number[],
  begin: readonly number[],
  size: readonly number[],
  out: { set(a: ArrayLike<number>, offset: number): void },
): void {
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

/**
 * A transpose's shape and permutation with the size-1 axes dropped and the runs of axes that stay
 * neighbours, in order, merged into one: [26624, 90] by [1, 0] stays, [52, 32, 400] by [1, 0, 2]
 * stays, [3, 60, 30] by [0, 2, 1] stays, [8, 5, 1, 4] by [1, 0, 2, 3] becomes [8, 20] by [1, 0],
 * [213, 1, 100] by [1, 0, 2] becomes [21300] by [0].
 */
export function collapseTranspose(shape: readonly number[], perm: readonly number[]): { shape: number[]; perm: number[] } {
  // The axes left once the size-1 ones go, numbered among themselves: two axes a size-1 axis
  // separated are neighbours ([213, 1, 100] by [1, 0, 2] moves nothing: one axis of 21,300).
  const keptAxes = shape.map((_, d) => d).filter((d) => shape[d] !== 1);
  const sizes = keptAxes.map((d) => shape[d]);
  const kept = perm.filter((d) => shape[d] !== 1).map((d) => keptAxes.indexOf(d));
  // Runs of the output's axes that are consecutive axes of the input.
  const runs: number[][] = [];
  for (const d of kept) {
    const last = runs[runs.length - 1];
    if (last && last[last.length - 1] + 1 === d) last.push(d);
    else runs.push([d]);
  }
  // Each run is one axis; number them in the input's order.
  const byInput = runs.map((r, i) => [r[0], i] as const).sort((a, b) => a[0] - b[0]);
  const newShape = new Array<number>(runs.length);
  const newPerm = new Array<number>(runs.length);
  byInput.forEach(([, run], axis) => {
    newShape[axis] = runs[run].reduce((a, d) => a * sizes[d], 1);
    newPerm[run] = axis;
  });
  return { shape: newShape, perm: newPerm };
}

/**
 * out = x transposed by perm, for the shapes blockedWins takes (as collapseTranspose leaves them):
 * a matrix by [1, 0], or a batch of matrices by [0, 2, 1].
 */
export function transposeInto(x: TypedArrayLike, shape: readonly number[], perm: readonly number[], out: TypedArrayLike): void {
  if (shape.length === 2 && perm[0] === 1) transpose2d(x, 0, shape[0], shape[1], out, 0);
  else if (shape.length === 3 && perm[0] === 0 && perm[1] === 2) {
    const [n, r, c] = shape;
    for (let i = 0; i < n; i++) transpose2d(x, i * r * c, r, c, out, i * r * c);
  } else throw new Error(`transposeInto: [${shape}] by [${perm}] is neither a matrix's transpose nor a batch of them`);
}

type TypedArrayLike = Float32Array | Int32Array | Uint8Array;

/**
 * Whether the blocked transpose beats the package's: for matrices (or a batch of them) at least
 * twice as tall as wide, [26624, 90] (8.4 ms against 22), [1664, 138] (0.47 against 0.73),
 * [1664, 400] (1.6 against 6.2); the package's is faster for square-ish ones ([1664, 900]: 8.8
 * against 11; the ID-CNN's [3, 300, 300] weight blocks: 0.25 against 1) and tiny ones.
 */
function blockedWins(shape: readonly number[], perm: readonly number[]): boolean {
  const matrix = shape.length === 2 ? shape : shape.length === 3 && perm[0] === 0 && perm[1] === 2 ? shape.slice(1) : null;
  return matrix !== null && matrix[0] >= 2 * matrix[1] && util.sizeFromShape(shape as number[]) >= 4096;
}

/** out[o, o + D) = row `first + s` of x [*, D] where 0 ≤ s < T, else zeros. */
function copyRow(x: TypedArrayLike, first: number, s: number, T: number, D: number, out: TypedArrayLike, o: number): void {
  if (s < 0 || s >= T) {
    out.fill(0, o, o + D);
    return;
  }
  const from = (first + s) * D;
  // A view costs an allocation: worth it for long rows only (the ID-CNN's 300, not the characters' 30).
  if (D >= 64) out.set(x.subarray(from, from + D), o);
  else for (let j = 0; j < D; j++) out[o + j] = x[from + j];
}

/** out [B, T, 3D] = [x(t−d); x(t); x(t+d)] of x [B, T, D], zeros past either end. */
export function shiftCatInto(x: TypedArrayLike, B: number, T: number, D: number, d: number, out: TypedArrayLike): void {
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * 3 * D;
      copyRow(x, b * T, t - d, T, D, out, o);
      copyRow(x, b * T, t, T, D, out, o + D);
      copyRow(x, b * T, t + d, T, D, out, o + 2 * D);
    }
  }
}

/** The [r, c] matrix at x[from] transposed into out[to] as [c, r], in 32 x 32 blocks. */
function transpose2d(x: TypedArrayLike, from: number, r: number, c: number, out: TypedArrayLike, to: number): void {
  const block = 32;
  for (let r0 = 0; r0 < r; r0 += block) {
    const r1 = Math.min(r, r0 + block);
    for (let c0 = 0; c0 < c; c0 += block) {
      const c1 = Math.min(c, c0 + block);
      for (let j = c0; j < c1; j++) {
        const o = to + j * r;
        for (let i = r0; i < r1; i++) out[o + i] = x[from + i * c + j];
      }
    }
  }
}

let originalSlice: KernelConfig | undefined;
let originalTranspose: KernelConfig | undefined;
let originalGather: KernelConfig | undefined;

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
    kernelName: 'GatherV2',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x, indices } = inputs;
      if (x.dtype === 'string' || ((attrs.batchDims as number) ?? 0) !== 0) return originalGather!.kernelFunc(args);
      const axis = util.parseAxisParam(attrs.axis as number, x.shape)[0];
      const outer = util.sizeFromShape(x.shape.slice(0, axis));
      const inner = util.sizeFromShape(x.shape.slice(axis + 1));
      const n = x.shape[axis];
      const m = util.sizeFromShape(indices.shape);
      const out = backend.makeOutput([...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)], x.dtype);
      if (!outer || !inner || !m) return out;
      const xv = backend.typedArrayFromHeap(x);
      const iv = backend.typedArrayFromHeap(indices);
      const ov = backend.typedArrayFromHeap(out);
      for (let i = 0; i < m; i++) if (!(iv[i] >= 0 && iv[i] < n)) throw new Error(`gather: index ${iv[i]} at ${i} is outside [0, ${n - 1}]`);
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < m; i++) {
          const from = (o * n + iv[i]) * inner;
          ov.set(xv.subarray(from, from + inner), (o * m + i) * inner);
        }
      }
      return out;
    },
  },
  {
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x, segmentIds } = inputs;
      const k = attrs.numSegments as number;
      const n = util.sizeFromShape(segmentIds.shape);
      const inner = util.sizeFromShape(x.shape.slice(segmentIds.shape.length));
      const out = backend.makeOutput([k, ...x.shape.slice(segmentIds.shape.length)], x.dtype);
      if (!k || !inner) return out;
      const xv = backend.typedArrayFromHeap(x);
      const sv = backend.typedArrayFromHeap(segmentIds);
      const ov = backend.typedArrayFromHeap(out);
      ov.fill(0);
      for (let i = 0; i < n; i++) {
        const seg = sv[i];
        if (seg < 0) continue; // TensorFlow drops negative ids
        if (seg >= k) throw new Error(`unsortedSegmentSum: segment id ${seg} at ${i} is not below numSegments ${k}`);
        const o = seg * inner;
        const from = i * inner;
        for (let j = 0; j < inner; j++) ov[o + j] += xv[from + j];
      }
      return out;
    },
  },
  {
    kernelName: 'Transpose',
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x } = inputs;
      const perm = attrs.perm as number[];
      const collapsed = collapseTranspose(x.shape, perm);
      if (x.dtype === 'string' || x.dtype === 'complex64' || util.sizeFromShape(x.shape) === 0 || !blockedWins(collapsed.shape, collapsed.perm))
        return originalTranspose!.kernelFunc(args);
      const out = backend.makeOutput(
        perm.map((d) => x.shape[d]),
        x.dtype,
      );
      transposeInto(backend.typedArrayFromHeap(x), collapsed.shape, collapsed.perm, backend.typedArrayFromHeap(out));
      return out;
    },
  },
  {
    kernelName: SHIFT_CAT,
    backendName: 'wasm',
    kernelFunc: (args) => {
      const { inputs, attrs, backend } = args as unknown as Args;
      const { x } = inputs;
      const [B, T, D] = x.shape;
      const d = attrs.d as number;
      const out = backend.makeOutput([B, T, 3 * D], x.dtype);
      if (B * T * D === 0) return out;
      shiftCatInto(backend.typedArrayFromHeap(x), B, T, D, d, backend.typedArrayFromHeap(out));
      return out;
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
];

/**
 * Replaces the WASM backend's Slice, Unpack and SplitV with the in-place versions, its Tanh with
 * the one through Sigmoid, its GatherV2 with row copies and its Transpose with blocked copies, adds UnsortedSegmentSum (gather's
 * gradient) and the LSTM step kernels (idempotent).
 */
export function registerWasmKernels(): void {
  const current = getKernel('Slice', 'wasm');
  if (!current || current.kernelFunc === kernels[0].kernelFunc) return;
  originalSlice = current;
  originalGather = getKernel('GatherV2', 'wasm');
  originalTranspose = getKernel('Transpose', 'wasm');
  for (const k of [...kernels, ...lstmWasmKernels]) {
    if (getKernel(k.kernelName, 'wasm')) unregisterKernel(k.kernelName, 'wasm');
    // The package's reductions call its own transpose, which its Transpose's setup binds.
    registerKernel(k.kernelName === 'Transpose' ? { ...k, setupFunc: originalTranspose?.setupFunc } : k);
  }
}
