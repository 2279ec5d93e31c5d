/**
 * The WASM kernel costs behind src/model/wasmKernels.ts and the hand-written max gradient
 * (src/model/ops.ts), in Node on TensorFlow.js WASM: the package's Slice / Unpack / SplitV against
 * the studio's in-place ones on a [52, 32, 400] sequence, and the max gradient's broadcasting
 * `equal` mask against the `sign` mask on a character-CNN batch [1664, 16, 30]. Median of 10.
 *   npx tsx bench/wasm-kernels.ts
 */
import { registerWasmKernels } from '../src/model/wasmKernels';
import * as tf from '../src/model/tf';
import { median } from './browser';

// The package's own kernels first (the CLI's useWasmBackend would register the studio's).
await import('@tensorflow/tfjs-backend-wasm');
await tf.setBackend('wasm');
await tf.ready();
const time = (f: () => tf.Tensor | tf.Tensor[]) => {
  for (let i = 0; i < 3; i++) tf.dispose(tf.tidy(f));
  const ms: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    const r = tf.tidy(f);
    ms.push(performance.now() - t0);
    tf.dispose(r);
  }
  return +median(ms).toFixed(2);
};
const x = tf.randomNormal([52, 32, 400]);
const slicing = () => ({
  '52 one-step slices': time(() => Array.from({ length: 52 }, (_, k) => tf.slice(x, [k, 0, 0], [1, 32, 400]))),
  unstack: time(() => tf.unstack(x)),
  'split in 4 on the last axis': time(() => tf.split(x, 4, 2)),
});
const rows: Record<string, unknown> = { "package's kernels (ms)": slicing() };
registerWasmKernels();
rows["studio's in-place kernels (ms)"] = slicing();
const c = tf.randomNormal([1664, 16, 30]);
const m = tf.max(c, 1, true);
rows['max gradient mask (ms)'] = {
  'broadcasting equal (TensorFlow.js)': time(() => tf.cast(tf.equal(c, m), 'float32')),
  '1 - sign(max - x) (studio)': time(() => tf.sub(1, tf.sign(tf.sub(m, c)))),
};
console.log(JSON.stringify(rows, null, 1));
