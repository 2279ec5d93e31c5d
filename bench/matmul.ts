/**
 * One matrix product (800x900 by 900x300, an ID-CNN layer of a batch) on TensorFlow.js WASM, plain
 * and with transposeB (what its default matMul gradient uses), and in PyTorch on one thread: the
 * product (Debian's build uses a generic BLAS for it) and the same layer as the dilated Conv1d that
 * bench/torch_tagger.py's ID-CNN runs (oneDNN). The FLOP rate of the WASM product bounds what
 * an ID-CNN, which is almost all such products, can reach against PyTorch's convolution.
 *   npx tsx bench/matmul.ts
 */
import '@tensorflow/tfjs-backend-wasm';
import { execFileSync } from 'node:child_process';
import * as tf from '../src/model/tf';

await tf.setBackend('wasm');
await tf.ready();
const [m, k, n] = [800, 900, 300];
const a = tf.randomNormal([m, k]);
const b = tf.randomNormal([k, n]);
const bt = tf.transpose(b);
const rows: Record<string, string> = {};
for (const [name, f] of [
  ['tfjs wasm matMul', () => tf.matMul(a, b)],
  ['tfjs wasm matMul transposeB', () => tf.matMul(a, bt, false, true)],
] as const) {
  for (let i = 0; i < 3; i++) f().dispose();
  const t0 = performance.now();
  const reps = 10;
  for (let i = 0; i < reps; i++) {
    const r = f();
    r.dataSync();
    r.dispose();
  }
  const ms = (performance.now() - t0) / reps;
  rows[name] = `${ms.toFixed(1)} ms, ${((2 * m * k * n) / ms / 1e6).toFixed(1)} GFLOP/s`;
}
rows['torch 1 thread'] = execFileSync('/usr/bin/python3', [
  '-c',
  `
import torch, time
torch.set_num_threads(1)
a = torch.randn(${m}, ${k}); b = torch.randn(${k}, ${n})
for _ in range(3): a @ b
t = time.perf_counter()
for _ in range(10): a @ b
ms = (time.perf_counter() - t) / 10 * 1000
print(f"{ms:.1f} ms, {2 * ${m * k * n} / ms / 1e6:.1f} GFLOP/s")`,
])
  .toString()
  .trim();
// The same FLOPs as a dilated convolution: 32 sentences of 25 tokens, 300 channels in and out, width 3.
rows['torch 1 thread Conv1d (oneDNN)'] = execFileSync('/usr/bin/python3', [
  '-c',
  `
import torch, time
torch.set_num_threads(1)
x = torch.randn(32, ${k / 3}, 25); conv = torch.nn.Conv1d(${k / 3}, ${n}, 3, padding=2, dilation=2)
with torch.no_grad():
  for _ in range(3): conv(x)
  t = time.perf_counter()
  for _ in range(10): conv(x)
ms = (time.perf_counter() - t) / 10 * 1000
print(f"{ms:.1f} ms, {2 * ${m * k * n} / ms / 1e6:.1f} GFLOP/s")`,
])
  .toString()
  .trim();
console.log(JSON.stringify(rows));
