/**
 * Dropout as tf.dropout computes it, bit for bit on the CPU backends, for less of the host's time.
 *
 * tf.dropout(x, rate, undefined, seed) draws u ~ U[0, 1) per cell on the CPU (seedrandom's Alea,
 * seeded with the seed's decimal string, through a generic per-value generator), uploads it, and
 * makes the multiplier floor(u + keep) / keep on the backend: three programs and an upload before
 * the product. On an H200 the generator alone was a tenth of a WebGPU training step's host time
 * (BENCHMARKS.md, the CPU profile of the GPU kit). Here one tight loop runs the same Alea and the
 * same float32 arithmetic on the CPU, and the backend gets the finished multiplier: one upload and
 * one program. On the CPU and WASM backends the result equals tf.dropout's exactly (dropout.test.ts);
 * on WebGPU within the GPU's division (WGSL allows 2.5 ulp), as tf.dropout's own is.
 */
import * as tf from './tf';

/** seedrandom's Mash (alea.js), which seeds Alea from a string. */
function mash(): (data: string) => number {
  let n = 0xefc8249d;
  return (data) => {
    for (let i = 0; i < data.length; i++) {
      n += data.charCodeAt(i);
      let h = 0.02519603282416938 * n;
      n = h >>> 0;
      h -= n;
      h *= n;
      n = h >>> 0;
      h -= n;
      n += h * 0x100000000;
    }
    return (n >>> 0) * 2.3283064365386963e-10;
  };
}

/** Fills `out` with seedrandom.alea(seed)'s first values (in [0, 1)), as float32, the way tf.randomUniform(shape, 0, 1, 'float32', seed) does. */
export function aleaFill(seed: number | string, out: Float32Array): Float32Array {
  const text = String(seed);
  const m = mash();
  let s0 = m(' ');
  let s1 = m(' ');
  let s2 = m(' ');
  let c = 1;
  s0 -= m(text);
  if (s0 < 0) s0 += 1;
  s1 -= m(text);
  if (s1 < 0) s1 += 1;
  s2 -= m(text);
  if (s2 < 0) s2 += 1;
  for (let i = 0; i < out.length; i++) {
    const t = 2091639 * s0 + c * 2.3283064365386963e-10;
    s0 = s1;
    s1 = s2;
    c = t | 0;
    s2 = t - c;
    out[i] = s2;
  }
  return out;
}

/** x with each cell kept with probability 1 − rate and scaled by 1 / (1 − rate): tf.dropout(x, rate, undefined, seed). */
export function seededDropout<T extends tf.Tensor>(x: T, rate: number, seed: number): T {
  if (!(rate >= 0 && rate < 1)) throw new Error(`dropout rate must be in [0, 1), got ${rate}`);
  if (rate === 0) return x.clone();
  // tf.dropout's arithmetic in float32: floor(u + keep) is 0 or 1, then divided by keep.
  const keep = Math.fround(1 - rate);
  const scale = Math.fround(1 / keep);
  const mask = aleaFill(seed, new Float32Array(x.size));
  for (let i = 0; i < mask.length; i++) mask[i] = Math.floor(Math.fround(mask[i] + keep)) === 0 ? 0 : scale;
  return tf.tidy(() => tf.mul(x, tf.tensor(mask, x.shape, 'float32'))) as T;
}
