/**
 * Weight averaging (Polyak averaging; an exponential moving average of the weights, as
 * TensorFlow's ExponentialMovingAverage keeps): after every step each shadow weight moves a share
 * (1 − decay) of the way to the trained one, and dev scores and the final model read the shadows.
 * An average over the last few hundred steps forgets less of what a noisy batch has just undone.
 */
import { programSource } from './programSource';
import type { Weights } from './tagger';
import * as tf from './tf';

/** Where the shadows are made (once, at a variable's first update): not a cost of every step (bench/gpu-programs.ts). */
export const MADE_ONCE_SHADOWS = "the weight average's shadows, made once";

/** What a checkpoint keeps of an average, to go on from. */
export interface AverageState {
  weights: Weights;
  updates: number;
}

export class WeightAverage {
  private readonly shadow = new Map<string, tf.Variable>();
  private updates = 0;

  constructor(
    /** The decay at full strength (0.99: about the last 100 steps). */
    readonly decay: number,
    /** The model's variables by name; ones made later (heads made at first use) join at their first update. */
    private readonly params: ReadonlyMap<string, tf.Variable>,
  ) {
    if (!(decay > 0 && decay < 1)) throw new Error(`weight averaging: the decay must be between 0 and 1, not ${decay}`);
  }

  /**
   * The decay of the n-th update (from 0): min(decay, (1 + n) / (10 + n)), TensorFlow's
   * num_updates rule, so that the first steps' shadows follow the weights instead of their start.
   */
  static decayAt(decay: number, n: number): number {
    return Math.min(decay, (1 + n) / (10 + n));
  }

  /** After a step: every shadow ← d · shadow + (1 − d) · weight. */
  update(): void {
    const d = this.nextDecay();
    tf.tidy(() => {
      for (const [k, v] of this.params) {
        const s = this.shadow.get(k);
        if (s && sameShape(s.shape, v.shape)) s.assign(tf.add(tf.mul(s, d), tf.mul(v, 1 - d)));
      }
    });
    this.commit();
  }

  /** The decay the next update applies. */
  nextDecay(): number {
    return WeightAverage.decayAt(this.decay, this.updates);
  }

  /**
   * For an optimizer that updates the shadows in its own kernel (adamWebgpu.ts): each variable's
   * shadow, null where it has none yet; after its step, `commit`.
   */
  shadowsFor(vars: readonly tf.Variable[]): (tf.Variable | null)[] {
    const byVar = new Map([...this.params].map(([k, v]) => [v, k]));
    return vars.map((v) => {
      const s = this.shadow.get(byVar.get(v) ?? '');
      return s && sameShape(s.shape, v.shape) ? s : null;
    });
  }

  /** Ends an update: variables seen for the first time start their shadow at their weight. */
  commit(): void {
    this.updates++;
    programSource(MADE_ONCE_SHADOWS, () =>
      tf.tidy(() => {
        for (const [k, v] of this.params) {
          const s = this.shadow.get(k);
          if (s && sameShape(s.shape, v.shape)) continue;
          s?.dispose();
          // A buffer of its own: a clone shares the weight's, which the fused update would copy apart at its first step.
          this.shadow.set(k, tf.variable(tf.add(v, 0), false));
        }
      }),
    );
  }

  /** The averaged weights; a weight never averaged yet reads as itself. */
  async weights(): Promise<Weights> {
    const entries = await Promise.all(
      [...this.params].map(async ([k, v]) => {
        const s = this.shadow.get(k) ?? v;
        return [k, { shape: s.shape, data: new Float32Array(await s.data()) }] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  /** Updates so far (a checkpoint keeps it with the weights). */
  get count(): number {
    return this.updates;
  }

  /** Goes on from a checkpoint's average. */
  restore(state: AverageState): void {
    this.dispose();
    // Variables outlive a tidy; the tensors they start from do not.
    tf.tidy(() => {
      for (const [k, w] of Object.entries(state.weights)) this.shadow.set(k, tf.variable(tf.tensor(w.data, w.shape), false));
    });
    this.updates = state.updates;
  }

  dispose(): void {
    for (const s of this.shadow.values()) s.dispose();
    this.shadow.clear();
  }
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
