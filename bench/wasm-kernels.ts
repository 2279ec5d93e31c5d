/**
 * The WASM kernel costs behind src/model/wasmKernels.ts and the hand-written max gradient
 * (src/model/ops.ts), in Node on TensorFlow.js WASM: the package's Slice / Unpack / SplitV against
 * the studio's in-place ones on a [52, 32, 400] sequence, and the max gradient's broadcasting
 * `equal` mask against the `sign` mask on a character-CNN batch [1664, 16, 30], Tanh against the
 * studio's through Sigmoid, GatherV2 against the studio's row copies (the decoupled model's
 * prediction gathers), Tile against broadcasting, and one LSTM direction's forward and backward pass over a [32, 40]
 * batch with the composed step ops against the studio's one-kernel steps; the package's Transpose
 * against the studio's blocked one on the character CNN's [26624, 90] patch matrix, the composed
 * shifted copies against StudioShiftCat on a [1664, 16, 30] batch, and the character embeddings
 * read by a one-hot product against a gather (forward and gradient), and the out-of-GloVe word
 * vectors placed by two one-hot products against two gathers. Median of 10.
 *   npx tsx bench/wasm-kernels.ts
 */
import { getKernel, unregisterKernel } from '@tensorflow/tfjs-core';
import { LSTM_STEP, LSTM_STEP_GRAD, lstmOp } from '../src/model/encoders';
import { dense, SHIFT_CAT, shift, shiftCat } from '../src/model/ops';
import { registerWasmKernels } from '../src/model/wasmKernels';
import * as tf from '../src/model/tf';
import { median } from './browser';

// The package's own kernels first (the CLI's initWasmBackend would register the studio's).
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
const tanhInputs = [
  [256, 100],
  [32, 100],
  [1664, 16, 30],
].map((shape) => tf.randomNormal(shape, 0, 2, 'float32', 1));
const tanhs = () => Object.fromEntries(tanhInputs.map((t) => [JSON.stringify(t.shape), time(() => tf.tanh(t))]));
// Rows of token inputs [221, 138] gathered into 508 region rows, and 3,000 × 138 into 12,000.
const gatherInputs = [
  [221, 508],
  [3000, 12000],
].map(
  ([n, m], k) =>
    [
      tf.randomNormal([n, 138], 0, 1, 'float32', 6 + k),
      tf.tensor1d(
        Array.from({ length: m }, (_, i) => (i * 7) % n),
        'int32',
      ),
    ] as const,
);
const gathers = () => Object.fromEntries(gatherInputs.map(([t, idx]) => [`${idx.shape[0]} of ${JSON.stringify(t.shape)}`, time(() => tf.gather(t, idx))]));
const patches = tf.randomNormal([26624, 90], 0, 1, 'float32', 7);
const transposes = () => ({ '[26624, 90]': time(() => tf.transpose(patches)) });
const rows: Record<string, unknown> = {
  "package's kernels (ms)": slicing(),
  "package's Tanh (ms)": tanhs(),
  "package's GatherV2 (ms)": gathers(),
  "package's Transpose (ms)": transposes(),
};
registerWasmKernels();
rows["studio's Transpose (ms)"] = transposes();
rows["studio's in-place kernels (ms)"] = slicing();
rows["studio's Tanh (ms)"] = tanhs();
rows["studio's GatherV2 (ms)"] = gathers();
// One [1, 400] row for each of 256 regions: the package's Tile against a broadcasting add.
const row = tf.randomNormal([1, 400], 0, 1, 'float32', 4);
const states = tf.randomNormal([256, 400], 0, 1, 'float32', 5);
rows['one row to 256 regions (ms)'] = {
  "Tile, then add (the package's Tile)": time(() => tf.add(tf.tile(row, [256, 1]), states)),
  'broadcasting add (studio)': time(() => tf.add(row, states)),
};
// One LSTM direction, forward and backward, B = 32, T = 40, H = 100, lengths 20-40.
const [B, T, H] = [32, 40, 100];
const xw = tf.randomNormal([B, T, 4 * H], 0, 1, 'float32', 2);
const wh = tf.randomNormal([H, 4 * H], 0, 0.1, 'float32', 3);
const mask = tf.tensor3d(
  Array.from({ length: B * T }, (_, p) => (p % T < 20 + (Math.floor(p / T) % 21) ? 1 : 0)),
  [B, T, 1],
);
const lstm = () => time(() => tf.grads((a: tf.Tensor, w: tf.Tensor) => tf.sum(lstmOp(false)(a as tf.Tensor3D, mask, w as tf.Tensor2D)))([xw, wh]));
const oneKernel = lstm();
const steps = [getKernel(LSTM_STEP, 'wasm')!, getKernel(LSTM_STEP_GRAD, 'wasm')!];
steps.forEach((k) => unregisterKernel(k.kernelName, 'wasm'));
rows['LSTM direction forward + backward, [32, 40, 100] (ms)'] = { 'composed step ops': lstm(), 'one-kernel steps (studio)': oneKernel };
const c = tf.randomNormal([1664, 16, 30]);
const m = tf.max(c, 1, true);
rows['max gradient mask (ms)'] = {
  'broadcasting equal (TensorFlow.js)': time(() => tf.cast(tf.equal(c, m), 'float32')),
  '1 - sign(max - x) (studio)': time(() => tf.sub(1, tf.sign(tf.sub(m, c)))),
};
// A character CNN batch: 1,664 words of 16 characters, 30 dimensions, 78 character ids.
const charX = tf.randomNormal([1664, 16, 30], 0, 1, 'float32', 8) as tf.Tensor3D;
rows['shifted copies [x(t-1); x(t); x(t+1)] of [1664, 16, 30] (ms)'] = {
  'two shifts and a concat (composed)': time(() => tf.concat([shift(charX, 1), charX, shift(charX, -1)], 2)),
  'StudioShiftCat (studio)': time(() => (tf.getKernel(SHIFT_CAT, 'wasm') ? shiftCat(charX, 1) : tf.zeros([1]))),
};
const ids = tf.tensor1d(
  Array.from({ length: 1664 * 16 }, (_, k) => (k * 31) % 78),
  'int32',
);
const charEmb = tf.randomUniform([78, 30], -0.3, 0.3, 'float32', 9);
const charDy = tf.randomNormal([1664 * 16, 30], 0, 1, 'float32', 10);
const lookup = (read: (e: tf.Tensor) => tf.Tensor) => time(() => tf.grad((e: tf.Tensor) => tf.sum(tf.mul(read(e), charDy)))(charEmb));
rows['character embeddings of [1664, 16] ids, forward and gradient (ms)'] = {
  'one-hot product': lookup((e) => dense(tf.cast(tf.oneHot(ids, 78), 'float32'), e)),
  'gather (studio)': lookup((e) => tf.gather(e, ids)),
};
// Out-of-GloVe word vectors (the tagger's inputs): 80 of a batch's 1,664 tokens read rows of a [4000, 92] table.
const oovPos = Array.from({ length: 80 }, (_, k) => k * 20 + (k % 7));
const oovIds = tf.tensor1d(
  oovPos.map((_, k) => (k * 37) % 4000),
  'int32',
);
const oovTable = tf.randomUniform([4000, 92], -0.1, 0.1, 'float32', 11);
const oovDy = tf.randomNormal([1664, 92], 0, 1, 'float32', 12);
const select = tf.buffer([1664, 80]);
oovPos.forEach((p, k) => select.set(1, p, k));
const oovSelect = select.toTensor() as tf.Tensor2D;
const oovPlace = tf.buffer([1664], 'int32');
oovPos.forEach((p, k) => oovPlace.set(k + 1, p));
const place = oovPlace.toTensor() as tf.Tensor1D;
const oov = (read: (t: tf.Tensor) => tf.Tensor) => time(() => tf.grad((t: tf.Tensor) => tf.sum(tf.mul(read(t), oovDy)))(oovTable));
rows['80 out-of-GloVe vectors of a [4000, 92] table placed among 1,664 tokens, forward and gradient (ms)'] = {
  'two one-hot products': oov((t) => dense(oovSelect, dense(tf.cast(tf.oneHot(oovIds, 4000), 'float32'), t))),
  'two gathers (studio)': oov((t) => tf.gather(tf.concat([tf.zeros([1, 92]), tf.gather(t, oovIds)], 0), place)),
};
console.log(JSON.stringify(rows, null, 1));
