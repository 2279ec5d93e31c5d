import * as tf from '../model/tf';

export type BackendName = 'webgpu' | 'wasm' | 'webgl' | 'cpu';

export interface BackendChoice {
  backend: BackendName;
  /** Why this backend: shown in the UI. */
  reason: string;
  /** True when a WebGPU adapter is a software one (SwiftShader, fallback). */
  softwareGpu: boolean;
}

interface AdapterLike {
  isFallbackAdapter?: boolean;
  info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean };
}

/** Probes WebGPU: a real adapter, a software one, or none. */
export async function probeGpu(): Promise<{ adapter: boolean; software: boolean; label: string }> {
  // Node before 21 has no navigator at all (the worker's code under unit tests).
  const nav = typeof navigator === 'undefined' ? undefined : navigator;
  const gpu = (nav as unknown as { gpu?: { requestAdapter: (o?: object) => Promise<AdapterLike | null> } } | undefined)?.gpu;
  if (!gpu) return { adapter: false, software: false, label: 'this browser has no WebGPU' };
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null);
  if (!adapter) return { adapter: false, software: false, label: 'no WebGPU adapter' };
  const info = adapter.info ?? {};
  const software = !!(
    adapter.isFallbackAdapter ||
    info.isFallbackAdapter ||
    /swiftshader|llvmpipe|software/i.test(`${info.vendor} ${info.architecture} ${info.description}`)
  );
  return { adapter: true, software, label: `${info.vendor || 'unknown vendor'} ${info.architecture || ''}`.trim() };
}

async function tryBackend(name: BackendName): Promise<boolean> {
  // Already set up by the caller (Node's CLI and benchmarks set WASM up their way: a bundler's
  // "?url" imports below do not resolve there). A worker starts with none.
  if (tf.getBackend() === name) return true;
  try {
    if (name === 'webgpu') {
      await (await import('../model/webgpuStudio')).registerStudioWebgpu();
    }
    if (name === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      (await import('../model/wasmKernels')).registerWasmKernels();
      const [plain, simd, threaded] = await Promise.all([
        import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url'),
        import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url'),
        import('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url'),
      ]);
      // Threads need SharedArrayBuffer, which a cross-origin isolated page has (the studio's
      // server sends COOP/COEP). The bundles carry a patch that lets the threaded build start
      // and use every logical core (scripts/wasmThreads.ts).
      const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
      if (!isolated) tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
      else wasm.setThreadsCount(Math.max(1, navigator.hardwareConcurrency || 1));
      wasm.setWasmPaths({
        'tfjs-backend-wasm.wasm': plain.default,
        'tfjs-backend-wasm-simd.wasm': simd.default,
        'tfjs-backend-wasm-threaded-simd.wasm': threaded.default,
      });
    }
    return await tf.setBackend(name);
  } catch {
    return false;
  }
}

/**
 * The backends to try, in order. 'auto' takes WebGPU first on a hardware adapter; otherwise WASM
 * (SIMD, and threads when the page is cross-origin isolated), then WebGL, then the CPU. Measured
 * on an H100 (bench/gpu-node.ts, BENCHMARKS.md): TensorFlow.js's WebGPU backend spends about
 * 0.3 ms of CPU per GPU program, so speed follows the program count. With every part of a step
 * as fused kernels (Adam, the CRF, the character CNN, the LSTM, the ID-CNN layer) the BiLSTM
 * trains at 5.9x one WASM thread's speed on an H200 machine at batch 32 (1.8x on an H100 with the
 * fused Adam alone), the ID-CNN at 25x, with the same dev F1. A software adapter is
 * correct but far slower than WASM for both. (The encoder is kept in the signature: the order
 * was per encoder until the fused optimizer.)
 */
export function backendOrder(pref: 'auto' | BackendName, gpu: { adapter: boolean; software: boolean }, _encoder: 'bilstm' | 'idcnn'): BackendName[] {
  if (pref !== 'auto') return [pref, 'wasm', 'cpu'];
  return gpu.adapter && !gpu.software ? ['webgpu', 'wasm', 'webgl', 'cpu'] : ['wasm', 'webgl', 'cpu'];
}

/** Picks the backend for a job that trains the given encoder (backendOrder). */
export async function chooseBackend(pref: 'auto' | BackendName, encoder: 'bilstm' | 'idcnn' = 'bilstm'): Promise<BackendChoice> {
  const gpu = await probeGpu();
  const order = backendOrder(pref, gpu, encoder);
  for (const name of order) {
    if (name === 'webgpu' && !gpu.adapter) continue;
    if (await tryBackend(name)) {
      await tf.ready();
      let reason: string;
      if (name === 'webgpu') reason = `WebGPU on ${gpu.label}${gpu.software ? ' (a software adapter: correct, not fast)' : ''}`;
      else if (name === 'wasm') {
        const simd = tf.env().getBool('WASM_HAS_SIMD_SUPPORT');
        const threads = tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT') ? (await import('@tensorflow/tfjs-backend-wasm')).getThreadsCount() : 1;
        const why =
          pref === 'auto'
            ? gpu.adapter
              ? gpu.software
                ? `the GPU adapter is a software one (${gpu.label})`
                : `WebGPU on ${gpu.label} did not start`
              : gpu.label
            : pref === 'wasm'
              ? 'chosen'
              : `${pref} was not available`;
        reason = `WASM${simd ? ' with SIMD' : ''}${threads > 1 ? ` and ${threads} threads` : ', one thread'}: ${why}`;
      } else reason = `${name}: ${pref === name ? 'chosen' : 'WASM was not available'}`;
      return { backend: name, reason, softwareGpu: gpu.software };
    }
  }
  throw new Error('no TensorFlow.js backend could start');
}
