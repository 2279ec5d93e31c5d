import { fusedAdamActive } from './adamWebgpu';
import { crfKernelActive } from './crf';
import { charCnnKernelActive, convKernelActive } from './encoders';
import { lstmKernelActive } from './lstmWebgpu';
import { queueUploadsActive } from './webgpuStudio';

/**
 * The parts of a training step that run as fused kernels on the active backend (WebGPU's WGSL
 * kernels, and its uploads through the queue; none on WASM), for the run's record and the backend line on the training page.
 */
export function fusedKernels(cfg: { model: { encoder: string; hidden: number; head: string } }, tags: number): string[] {
  const { encoder, hidden, head } = cfg.model;
  const parts: [string, boolean][] = [
    ['CRF', head === 'crf' && crfKernelActive(tags)],
    ['LSTM', encoder === 'bilstm' && lstmKernelActive(hidden)],
    ['ID-CNN layer', encoder === 'idcnn' && convKernelActive()],
    ['character CNN', charCnnKernelActive()],
    ['Adam', fusedAdamActive()],
    ['queue uploads', queueUploadsActive()],
  ];
  return parts.filter(([, on]) => on).map(([name]) => name);
}
