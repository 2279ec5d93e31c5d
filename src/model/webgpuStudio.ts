/**
 * The studio's WebGPU set-up in one call: TensorFlow.js's backend, the studio's WGSL kernels
 * (CRF, LSTM, character CNN, ID-CNN layer), and uploads through the queue.
 *
 * Uploads: TensorFlow.js 4.22 copies each tensor made on the CPU (a batch's ids and masks, a
 * dropout mask, a scalar) to the GPU through a staging buffer it creates mapped for that one copy
 * and then destroys. On an H200, creating those buffers was an eighth of a BiLSTM-CRF step's host
 * time (about 22 a step; BENCHMARKS.md, the CPU profile of the GPU kit). Here a tensor's values go
 * through `queue.writeBuffer` into a buffer from the backend's own pool, as the backend already
 * writes its uniforms. Ordering: the write reaches the queue before the commands still being
 * recorded, which cannot read this buffer (it was free: the backend frees a buffer that recorded
 * commands use only once they are submitted), and after every command submitted before it.
 */
import * as tf from './tf';

/** The backend's internals the uploads use (tfjs-backend-webgpu 4.22's backend_webgpu.js). */
interface UploadingBackend {
  device: GPUDevice;
  tensorMap: { get(id: object): { dtype: string; values: ArrayLike<number> | null; resource: unknown } };
  bufferManager: { acquireBuffer(size: number, usage: number): GPUBuffer };
  uploadToGPU(id: object): void;
}

/** The types uploaded through the queue (4 bytes an element, as TensorFlow.js stores them on the GPU). */
const QUEUED = new Set(['float32', 'int32', 'bool']);

/** Replaces the backend class's staging-buffer upload with a queue write (once). */
function installQueueUploads(proto: UploadingBackend): void {
  const original = proto.uploadToGPU;
  if ((original as { queueUploads?: boolean }).queueUploads) return;
  const upload = function (this: UploadingBackend, dataId: object) {
    const data = this.tensorMap.get(dataId);
    const { dtype, values } = data;
    // Already there, an output to be written, or a type the studio does not upload: as before.
    if (data.resource != null || values == null || values.length === 0 || !QUEUED.has(dtype)) return original.call(this, dataId);
    const typed =
      dtype === 'float32'
        ? values instanceof Float32Array
          ? values
          : Float32Array.from(values)
        : values instanceof Int32Array
          ? values
          : Int32Array.from(values);
    const buffer = this.bufferManager.acquireBuffer(typed.byteLength, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST);
    this.device.queue.writeBuffer(buffer, 0, typed.buffer, typed.byteOffset, typed.byteLength);
    data.values = null;
    data.resource = buffer;
  };
  Object.assign(upload, { queueUploads: true });
  proto.uploadToGPU = upload;
}

/** The options the benchmarks compare: each part can be left as TensorFlow.js has it. */
export interface StudioWebgpuOptions {
  /** The LSTM recurrence as WGSL kernels (default true). */
  lstm?: boolean;
  /** Uploads through queue.writeBuffer (default true). */
  queueUploads?: boolean;
}

/** Imports TensorFlow.js's WebGPU backend and registers the studio's kernels and uploads on it; the caller then sets the backend. */
export async function registerStudioWebgpu(options: StudioWebgpuOptions = {}): Promise<void> {
  const { WebGPUBackend } = await import('@tensorflow/tfjs-backend-webgpu');
  (await import('./crfWebgpu')).registerCrfWebgpuKernels();
  if (options.lstm !== false) (await import('./lstmWebgpu')).registerLstmWebgpuKernels();
  (await import('./charCnnWebgpu')).registerCharCnnWebgpuKernels();
  (await import('./convWebgpu')).registerConvWebgpuKernels();
  if (options.queueUploads !== false) installQueueUploads(WebGPUBackend.prototype as unknown as UploadingBackend);
}

/** Whether the active backend uploads through the queue (for a run's metrics). */
export function queueUploadsActive(): boolean {
  if (tf.getBackend() !== 'webgpu') return false;
  return !!((tf.backend() as unknown as UploadingBackend).uploadToGPU as { queueUploads?: boolean }).queueUploads;
}
