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

/** Alea's state after seeding with `seed` as seedrandom.alea does (the seed's decimal string, for a number). */
function aleaSeed(seed: number | string): [number, number, number] {
  const text = String(seed);
  const m = mash();
  let s0 = m(' ');
  let s1 = m(' ');
  let s2 = m(' ');
  s0 -= m(text);
  if (s0 < 0) s0 += 1;
  s1 -= m(text);
  if (s1 < 0) s1 += 1;
  s2 -= m(text);
  if (s2 < 0) s2 += 1;
  return [s0, s1, s2];
}

/**
 * Fills `out` with seedrandom.alea(seed)'s first values (in [0, 1)), as float32, the way
 * tf.randomUniform(shape, 0, 1, 'float32', seed) does. Alea's carry is t | 0 there; t is in
 * [0, 2091640), so Math.floor(t) is the same number, and V8 keeps it a double (twice as fast).
 */
export function aleaFill(seed: number | string, out: Float32Array): Float32Array {
  let [s0, s1, s2] = aleaSeed(seed);
  let c = 1;
  for (let i = 0; i < out.length; i++) {
    const t = 2091639 * s0 + c * 2.3283064365386963e-10;
    s0 = s1;
    s1 = s2;
    c = Math.floor(t);
    s2 = t - c;
    out[i] = s2;
  }
  return out;
}

/**
 * tf.dropout's multiplier for `size` cells: floor(u + keep) / keep in float32, u from Alea as
 * above, in the same loop. u and keep are float32, so u + keep is exact in a double, and its
 * float32 rounding is below 1 exactly when it is below 1 − 2⁻²⁵ (ties round to the even 1).
 */
export function dropoutMultiplier(seed: number | string, size: number, keep: number): Float32Array {
  const out = new Float32Array(size);
  const k = Math.fround(keep);
  const scale = Math.fround(1 / k);
  const below = 1 - 2 ** -25;
  let [s0, s1, s2] = aleaSeed(seed);
  let c = 1;
  for (let i = 0; i < size; i++) {
    const t = 2091639 * s0 + c * 2.3283064365386963e-10;
    s0 = s1;
    s1 = s2;
    c = Math.floor(t);
    s2 = t - c;
    out[i] = Math.fround(s2) + k < below ? 0 : scale;
  }
  return out;
}

/** x with each cell kept with probability 1 − rate and scaled by 1 / (1 − rate): tf.dropout(x, rate, undefined, seed). */
export function seededDropout<T extends tf.Tensor>(x: T, rate: number, seed: number): T {
  if (!(rate >= 0 && rate < 1)) throw new Error(`dropout rate must be in [0, 1), got ${rate}`);
  if (rate === 0) return x.clone();
  const multiplier = dropoutMultiplier(seed, x.size, 1 - rate);
  return tf.tidy(() => tf.mul(x, tf.tensor(multiplier, x.shape, 'float32'))) as T;
}
