import { beforeAll, describe, expect, it } from 'vitest';
import { crfNll, crfPartialNll, crfUnlikelihood } from '../model/crf';
import type { BatchArrays } from '../model/features';
import { twoPartLogProbs } from '../model/tagger';
import * as tf from '../model/tf';
import { gce, noiseAwareCrf, sharpen, tokenNll } from './losses';
import { getMethod } from './index';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const close = (a: number, b: number, tol = 1e-5) => expect(Math.abs(a - b)).toBeLessThan(tol);

describe('loss pieces', () => {
  const logits = tf.tensor3d([
    [
      [2, 0.5, -1],
      [0, 1, 0.3],
    ],
  ]);
  const logp = tf.logSoftmax(logits) as tf.Tensor3D;
  const onehot = tf.tensor3d([
    [
      [0, 1, 0],
      [0, 0, 1],
    ],
  ]);

  it('GCE tends to cross entropy as q → 0 and is 1 − p_y at q = 1', () => {
    const ce = tokenNll(logp, onehot).arraySync()[0];
    const near0 = gce(logp, onehot, 1e-5).arraySync()[0];
    ce.forEach((v, i) => close(near0[i], v, 1e-3));
    const p = tf.exp(logp).arraySync()[0];
    const at1 = gce(logp, onehot, 1).arraySync()[0];
    close(at1[0], 1 - p[0][1]);
    close(at1[1], 1 - p[1][2]);
    // Hand-computed at q = 0.7: (1 − p^0.7) / 0.7.
    const q7 = gce(logp, onehot, 0.7).arraySync()[0];
    close(q7[0], (1 - p[0][1] ** 0.7) / 0.7);
  });

  it("RoSTER's two-part head gives a distribution: P(O) = σ(−e), P(I-j) = σ(e) softmax(t)_j", () => {
    const raw = tf.tensor3d([[[0.3, 1, -2, 0.5]]]);
    const lp = twoPartLogProbs(raw).arraySync()[0][0];
    const sig = 1 / (1 + Math.exp(-0.3));
    const z = Math.exp(1) + Math.exp(-2) + Math.exp(0.5);
    close(Math.exp(lp[0]), 1 - sig);
    close(Math.exp(lp[1]), (sig * Math.exp(1)) / z);
    close(
      lp.reduce((a, v) => a + Math.exp(v), 0),
      1,
    );
  });

  it('sharpened soft labels (Eq. 8) sum to 1 and follow p² / g', () => {
    const probs = Float32Array.from([0.6, 0.4, 0.9, 0.1, 0.5, 0.5]);
    const q = sharpen(probs, 3, 2);
    const g = [0.6 + 0.9 + 0.5, 0.4 + 0.1 + 0.5];
    for (let i = 0; i < 3; i++) {
      const a = probs[2 * i] ** 2 / g[0];
      const b = probs[2 * i + 1] ** 2 / g[1];
      close(q[2 * i], a / (a + b));
      close(q[2 * i] + q[2 * i + 1], 1);
    }
    // The rarer type gains: token 3 is 0.5 / 0.5 before, tilted toward type 2 (g = 1.0 < 2.0) after.
    expect(q[5]).toBeGreaterThan(0.5);
  });

  it("NEEDLE's noise-aware loss is the NLL at confidence 1, the log-unlikelihood at 0, and the NLL for strong sentences", () => {
    const em = tf.tensor3d([
      [
        [1, 0, -1],
        [0.2, 0.4, 0],
      ],
      [
        [0, 1, 0.5],
        [1, -1, 0],
      ],
    ]);
    const tags = tf.tensor3d([
      [
        [1, 0, 0],
        [0, 1, 0],
      ],
      [
        [0, 0, 1],
        [1, 0, 0],
      ],
    ]);
    const mask = tf.tensor2d([
      [1, 1],
      [1, 0],
    ]);
    const p = {
      transitions: tf.tensor2d([
        [0.1, -0.2, 0],
        [0.3, 0, 0.1],
        [0, 0.2, -0.1],
      ]),
      start: tf.tensor1d([0, 0.1, -0.1]),
      end: tf.tensor1d([0.2, 0, 0]),
    };
    const nll = crfNll(em, tags, mask, p).arraySync();
    const ul = crfUnlikelihood(em, tags, mask, p).arraySync();
    const at = (weak: number[], c: number[]) => noiseAwareCrf(em, tags, mask, p, tf.tensor1d(weak), tf.tensor1d(c)).arraySync();
    at([1, 1], [1, 1]).forEach((v, b) => close(v, nll[b]));
    at([1, 1], [0, 0]).forEach((v, b) => close(v, ul[b]));
    at([0, 0], [0.2, 0.3]).forEach((v, b) => close(v, nll[b]));
    const mixed = at([1, 1], [0.25, 0.25]);
    mixed.forEach((v, b) => close(v, 0.25 * nll[b] + 0.75 * ul[b]));
  });
});

/** A two-sentence batch with tags O=0, B-X=1, I-X=2 (sentence 1 strong, sentence 2 weak). */
function fakeContext(head: string, config: object, epoch = 1, prepared?: Float32Array) {
  const B = 2;
  const T = 3;
  const K = 3;
  const batch = {
    B,
    T,
    lengths: [3, 2],
    tags: Int32Array.from([1, 2, 0, 0, 1, -1]),
    weak: Float32Array.from([0, 1]),
    confidence: Float32Array.from([1, 0.6]),
    ids: Int32Array.from([0, 1]),
  } as unknown as BatchArrays;
  const raw = tf.tensor3d([
    [
      [0.1, 2, 0],
      [0, 0.3, 1.5],
      [1, 0, 0.2],
    ],
    [
      [2, 0.1, 0],
      [0.5, 0.4, 0.3],
      [0, 0, 0],
    ],
  ]);
  // The two-part head's emissions are its log probabilities.
  const emissions = head === 'twopart' ? twoPartLogProbs(raw) : raw;
  const crf = {
    transitions: tf.tensor2d([
      [0, 0.1, -1],
      [0, 0, 0.5],
      [0.1, 0, 0.2],
    ]),
    start: tf.zeros([K]) as tf.Tensor1D,
    end: tf.zeros([K]) as tf.Tensor1D,
  };
  const tagger = { cfg: { head }, dims: { tags: K }, crf: () => crf };
  const mask = tf.tensor2d([
    [1, 1, 1],
    [1, 1, 0],
  ]);
  return { tagger, batch, tensors: { mask }, emissions, config, epoch, step: 0, rand: () => 0.99, prepared } as never;
}

describe('weak-label methods on a hand-made batch', () => {
  const loss = (name: string, head: string, config: object = {}, epoch = 1, prepared?: Float32Array) => {
    const m = getMethod(name);
    return m.loss(fakeContext(head, m.schema.parse({ name, ...config }) as object, epoch, prepared)).arraySync() as number;
  };

  it('weighted WSL at γ = 1 is WSL; at γ = 0 only the strong sentence counts', () => {
    close(loss('weighted-wsl', 'crf', { gamma: 1 }), loss('wsl', 'crf'));
    const ctx = fakeContext('crf', {}) as unknown as { emissions: tf.Tensor3D; tensors: { mask: tf.Tensor2D }; tagger: { crf: () => never } };
    const gold = tf.cast(
      tf.oneHot(
        tf.tensor2d(
          [
            [1, 2, 0],
            [0, 1, 0],
          ],
          undefined,
          'int32',
        ),
        3,
      ),
      'float32',
    ) as tf.Tensor3D;
    const nll = crfNll(ctx.emissions, gold, ctx.tensors.mask, ctx.tagger.crf()).arraySync();
    close(loss('weighted-wsl', 'crf', { gamma: 0 }), nll[0] / 2);
  });

  it('partial WSL marginalizes exactly the weak sentence\u2019s O tokens', () => {
    const ctx = fakeContext('crf', {}) as unknown as { emissions: tf.Tensor3D; tensors: { mask: tf.Tensor2D }; tagger: { crf: () => never } };
    // Strong row: its own tags. Weak row: token 0 is O (free), token 1 is B-X (bound).
    const allowed = tf.tensor3d([
      [
        [0, 1, 0],
        [0, 0, 1],
        [1, 0, 0],
      ],
      [
        [1, 1, 1],
        [0, 1, 0],
        [1, 1, 1],
      ],
    ]);
    const want = crfPartialNll(ctx.emissions, allowed, ctx.tensors.mask, ctx.tagger.crf()).arraySync();
    close(loss('partial-wsl', 'crf'), (want[0] + want[1]) / 2);
  });

  it('RoSTER: q = 0, no removal, no dropping is the token cross entropy; removed weak tokens leave the loss', () => {
    close(loss('roster', 'softmax', { q: 0, tau: 0, dropO: 0 }), loss('wsl', 'softmax'));
    // The weak row's token 1 (B-X) removed by the threshold (prepare's keep weights).
    const logp = tf
      .logSoftmax(
        tf.tensor3d([
          [
            [0.1, 2, 0],
            [0, 0.3, 1.5],
            [1, 0, 0.2],
          ],
          [
            [2, 0.1, 0],
            [0.5, 0.4, 0.3],
            [0, 0, 0],
          ],
        ]),
      )
      .arraySync();
    const ce = [-logp[0][0][1], -logp[0][1][2], -logp[0][2][0], -logp[1][0][0]];
    close(
      loss('roster', 'softmax', { q: 0, tau: 0.5, dropO: 0, removeFromEpoch: 1 }, 1, Float32Array.from([1, 1, 1, 1, 0, 1])),
      ce.reduce((a, v) => a + v, 0) / 4,
    );
  });

  it('RoSTER with the two-part head: GCE on entity vs non-entity plus GCE on the type, a removed entity token staying an entity', () => {
    // IO tags O, X, Y; raw scores per token: entity logit e, then the two type scores.
    const raw = [
      [
        [0.1, 2, 0],
        [0, 0.3, 1.5],
        [1, 0, 0.2],
      ],
      [
        [2, 0.1, 0],
        [0.5, 0.4, 0.3],
      ],
    ];
    const tags = [
      [1, 2, 0],
      [0, 1],
    ];
    const q = 0.7;
    const g = (p: number) => (1 - p ** q) / q;
    const parts = (keep: number[][]) => {
      const bin: number[] = [];
      const type: number[] = [];
      raw.forEach((row, s) =>
        row.forEach(([e, a, b], t) => {
          const y = tags[s][t];
          const pEntity = 1 / (1 + Math.exp(-e));
          if (y === 0 ? keep[s][t] : 1) bin.push(g(y > 0 ? pEntity : 1 - pEntity));
          if (y > 0 && keep[s][t]) type.push(g((y === 1 ? Math.exp(a) : Math.exp(b)) / (Math.exp(a) + Math.exp(b))));
        }),
      );
      const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
      return mean(bin) + mean(type);
    };
    close(
      loss('roster', 'twopart', { q, dropO: 0 }),
      parts([
        [1, 1, 1],
        [1, 1],
      ]),
    );
    // The weak entity token's type removed: it leaves the type part only.
    close(
      loss('roster', 'twopart', { q, dropO: 0 }, 1, Float32Array.from([1, 1, 1, 1, 0, 1])),
      parts([
        [1, 1, 1],
        [1, 0],
      ]),
    );
    // The weak O token removed: it leaves the binary part.
    close(
      loss('roster', 'twopart', { q, dropO: 0 }, 1, Float32Array.from([1, 1, 1, 0, 1, 1])),
      parts([
        [1, 1, 1],
        [0, 1],
      ]),
    );
  });

  it('methods refuse heads they are not defined for', () => {
    expect(getMethod('noise-aware').heads).toEqual(['crf']);
    expect(getMethod('roster').heads).not.toContain('crf');
  });
});
