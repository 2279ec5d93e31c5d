import { getKernel } from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { LSTM_STEP, lstmOp } from './encoders';
import * as tf from './tf';

/** The LSTM direction as plain taped ops (the studio's previous implementation), for reference. */
function reference(xw: tf.Tensor3D, mask: tf.Tensor3D, wh: tf.Tensor2D, reverse: boolean, cells = false): tf.Tensor3D {
  const [B, T, H4] = xw.shape;
  const H = H4 / 4;
  let h: tf.Tensor2D = tf.zeros([B, H]);
  let c: tf.Tensor2D = tf.zeros([B, H]);
  const out: tf.Tensor2D[] = new Array(T);
  const outC: tf.Tensor2D[] = new Array(T);
  for (let k = 0; k < T; k++) {
    const t = reverse ? T - 1 - k : k;
    const x = tf.reshape(tf.slice(xw, [0, t, 0], [B, 1, H4]), [B, H4]);
    const m = tf.reshape(tf.slice(mask, [0, t, 0], [B, 1, 1]), [B, 1]);
    const [i, f, g, o] = tf.split(tf.add(x, tf.matMul(h, wh)), 4, 1);
    const cNew = tf.add(tf.mul(tf.sigmoid(f), c), tf.mul(tf.sigmoid(i), tf.tanh(g)));
    const hNew = tf.mul(tf.sigmoid(o), tf.tanh(cNew));
    c = tf.add(tf.mul(m, cNew), tf.mul(tf.sub(1, m), c)) as tf.Tensor2D;
    h = tf.add(tf.mul(m, hNew), tf.mul(tf.sub(1, m), h)) as tf.Tensor2D;
    out[t] = tf.mul(h, m) as tf.Tensor2D;
    outC[t] = tf.mul(c, m) as tf.Tensor2D;
  }
  const hs = tf.stack(out, 1) as tf.Tensor3D;
  return cells ? (tf.concat([hs, tf.stack(outC, 1)], 2) as tf.Tensor3D) : hs;
}

/** lstmOp against the taped reference, values and gradients, on the current backend. */
function checkAgainstReference(): void {
  for (const [B, T, lengths] of [
    [3, 6, [6, 4, 1]],
    [2, 1, [1, 1]],
  ] as const) {
    const H = 5;
    const xw = tf.randomNormal([B, T, 4 * H], 0, 1, 'float32', T) as tf.Tensor3D;
    const wh = tf.randomNormal([H, 4 * H], 0, 0.5, 'float32', T + 1) as tf.Tensor2D;
    const mask = tf.tensor3d(
      Array.from({ length: B * T }, (_, p) => (p % T < lengths[Math.floor(p / T)] ? 1 : 0)),
      [B, T, 1],
    );
    for (const [reverse, cells] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ]) {
      // With cells the op returns the cell states after the outputs, and gradients reach both.
      const u = tf.randomNormal([B, T, cells ? 2 * H : H], 0, 1, 'float32', T + 2);
      const want = reference(xw, mask, wh, reverse, cells);
      const got = lstmOp(reverse, cells)(xw, mask, wh);
      const close = (a: tf.Tensor, b: tf.Tensor) => a.dataSync().forEach((v, k) => expect(v).toBeCloseTo(b.dataSync()[k], 5));
      close(got, want);
      const loss = (f: (x: tf.Tensor3D, w: tf.Tensor2D) => tf.Tensor) => (x: tf.Tensor, w: tf.Tensor) =>
        tf.sum(tf.mul(tf.tanh(f(x as tf.Tensor3D, w as tf.Tensor2D)), u));
      const [gx, gw] = tf.grads(loss((x, w) => lstmOp(reverse, cells)(x, mask, w)))([xw, wh]);
      const [rx, rw] = tf.grads(loss((x, w) => reference(x, mask, w, reverse, cells)))([xw, wh]);
      close(gx, rx);
      close(gw, rw);
    }
  }
}

describe('the fused LSTM direction', () => {
  it("gives the taped recurrence's outputs and gradients (padding, both directions, with the cell states, one-step batches)", () => {
    checkAgainstReference();
  });

  it('gives them on WASM with the one-kernel LSTM steps too', async () => {
    await import('@tensorflow/tfjs-backend-wasm');
    const { registerWasmKernels } = await import('./wasmKernels');
    registerWasmKernels();
    await tf.setBackend('wasm');
    try {
      expect(getKernel(LSTM_STEP, tf.getBackend())).toBeDefined();
      checkAgainstReference();
    } finally {
      await tf.setBackend('cpu');
    }
  });
});
