/**
 * tf.profile of an async function, printed as time per TensorFlow.js kernel (by name, or by name
 * and input shapes), largest first. Shared by the profiling benchmarks.
 */
import * as tf from '../src/model/tf';

export async function printKernelProfile(title: string, f: () => Promise<unknown>, opts: { shapes?: boolean; top: number }): Promise<void> {
  const t0 = performance.now();
  const prof = await tf.profile(async () => void (await f()));
  const wall = performance.now() - t0;
  const byKernel = new Map<string, { ms: number; n: number }>();
  for (const kr of prof.kernels) {
    const key = opts.shapes ? `${kr.name} ${JSON.stringify(kr.inputShapes)}` : kr.name;
    const e = byKernel.get(key) ?? { ms: 0, n: 0 };
    e.ms += Number(kr.kernelTimeMs) || 0;
    e.n++;
    byKernel.set(key, e);
  }
  // Custom-gradient ops show as "unnamed scope" and count their inner kernels again.
  const total = [...byKernel.values()].reduce((a, e) => a + e.ms, 0);
  console.log(`${title}: ${wall.toFixed(0)} ms under the profiler, kernels ${total.toFixed(0)} ms, ${prof.kernels.length} kernel calls`);
  for (const [k, e] of [...byKernel].sort((a, b) => b[1].ms - a[1].ms).slice(0, opts.top))
    console.log(`${((100 * e.ms) / total).toFixed(1).padStart(5)}%  ${e.ms.toFixed(1).padStart(8)} ms  ${String(e.n).padStart(6)}x  ${k}`);
}
