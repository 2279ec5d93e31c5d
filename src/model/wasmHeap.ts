/**
 * What the studio's WASM kernels use of TensorFlow.js's WASM backend: tensors' views on the heap,
 * outputs, and XNNPACK's sigmoid in place.
 */
import type { TensorInfo } from '@tensorflow/tfjs-core';

export interface WasmBackendLike {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array | Int32Array | Uint8Array;
  dataIdMap: { get(dataId: object): { id: number } };
  wasm: { cwrap(name: string, ret: null, args: string[]): (...a: number[]) => void };
}

export type Args = { inputs: Record<string, TensorInfo>; attrs: Record<string, unknown>; backend: WasmBackendLike };

// Bound at first use, not in a setupFunc: that runs only for kernels registered before the backend starts.
let sigmoid: ((xId: number, outId: number) => void) | undefined;

/** XNNPACK's σ over a tensor of the heap, in place (its elementwise operators allow it). */
export function sigmoidInPlace(backend: WasmBackendLike, t: TensorInfo): void {
  sigmoid ??= backend.wasm.cwrap('Sigmoid', null, ['number', 'number']);
  const id = backend.dataIdMap.get(t.dataId).id;
  sigmoid(id, id);
}
