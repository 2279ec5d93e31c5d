/**
 * The one training loop. Every model the studio trains goes through it: the tagger in every stage
 * of every method (train.ts), the language model (lm.ts: NEEDLE's Stage I, RoSTER's augmentation,
 * the project's encoder) and the decoupled model's pre-trainings and unified training. It owns
 * what they share: Adam, the gradient step with clipping, the epochs, the dev score with early
 * stopping (patience) and the best weights, and checkpoints of all that with Adam's state, from
 * which a run resumes to the result an uninterrupted one gives. What differs is the model's: its
 * variables, its batches and loss (an epoch of `trainStep`s), and how dev scores it.
 */
import type { AverageState, WeightAverage } from './average';
import { FusedAdam, fusedAdamActive } from './adamWebgpu';
import { applyClipped, orderedGrads } from './ops';
import { programSource, programSourceAsync } from './programSource';
import type { Weights } from './tagger';
import * as tf from './tf';

/** Adam's state as a checkpoint keeps it. */
export interface OptimizerState {
  optimizer: { name: string; shape: number[]; data: Float32Array }[];
  /** Adam's running beta1^t and beta2^t, which its own weights leave out. */
  adamBetas: [number, number];
}

export async function optimizerState(optimizer: tf.Optimizer): Promise<OptimizerState> {
  const opt = await optimizer.getWeights();
  const state = await Promise.all(opt.map(async (w) => ({ name: w.name, shape: w.tensor.shape, data: new Float32Array(await w.tensor.data()) })));
  const adam = optimizer as unknown as { accBeta1: tf.Variable; accBeta2: tf.Variable };
  return { optimizer: state, adamBetas: [(await adam.accBeta1.data())[0], (await adam.accBeta2.data())[0]] };
}

/** Puts saved Adam state back; `vars` in the order the optimizer first saw them. */
export async function restoreOptimizer(optimizer: tf.Optimizer, vars: readonly tf.Variable[], saved: OptimizerState): Promise<void> {
  if (!saved.optimizer.length) return;
  // Adam's moments are created on the first update; make them, then overwrite with the saved ones.
  optimizer.applyGradients(Object.fromEntries(vars.map((v) => [v.name, tf.zerosLike(v)])));
  await optimizer.setWeights(saved.optimizer.map((w) => ({ name: w.name, tensor: tf.tensor(w.data, w.shape) })));
  // Adam's bias corrections are not among its weights, and recomputing beta^t rounds
  // differently from the running product: restore the saved values exactly.
  const adam = optimizer as unknown as { accBeta1: tf.Variable; accBeta2: tf.Variable };
  adam.accBeta1.assign(tf.scalar(saved.adamBetas[0]));
  adam.accBeta2.assign(tf.scalar(saved.adamBetas[1]));
}

/** One gradient step on `loss` (built inside a tidy), clipped by global norm; returns the loss. */
export async function trainStep(optimizer: tf.Optimizer, vars: tf.Variable[], clip: number, loss: () => tf.Scalar): Promise<number> {
  const value = await trainStepDeferred(optimizer, vars, clip, loss);
  const v = (await value.data())[0];
  value.dispose();
  return v;
}

/**
 * One step whose loss stays on the device: the caller reads it later (LossReader), so that a step
 * does not wait for the GPU to finish before the next is dispatched.
 */
export async function trainStepDeferred(
  optimizer: tf.Optimizer,
  vars: tf.Variable[],
  clip: number,
  loss: () => tf.Scalar,
  /** A weight average to update after the step: in the fused optimizer's own kernel on WebGPU. */
  average?: WeightAverage,
): Promise<tf.Scalar> {
  const { value, grads } = tf.variableGrads(() => tf.tidy(loss), vars);
  if (optimizer instanceof FusedAdam && fusedAdamActive()) {
    const ordered = orderedGrads(vars, grads);
    const averaging = average ? { shadows: average.shadowsFor(vars), decay: average.nextDecay() } : undefined;
    await programSourceAsync('optimizer', () => optimizer.applyClipped(vars, ordered, clip, averaging));
    average?.commit();
    tf.dispose(Object.values(ordered).filter((g) => !Object.values(grads).includes(g)));
  } else {
    applyClipped(optimizer, vars, grads, clip);
    if (average) programSource('weight averaging', () => average.update());
  }
  tf.dispose(Object.values(grads));
  return value;
}

/**
 * Step losses read back in batches: every `every` steps and when flushed (an epoch's end, a
 * stop), each handed to `onLoss` in step order, so sums come out as if read one by one.
 */
export class LossReader<T> {
  private pending: { value: tf.Scalar; tag: T }[] = [];
  constructor(
    private readonly every: number,
    private readonly onLoss: (loss: number, tag: T) => void,
  ) {}

  async push(value: tf.Scalar, tag: T): Promise<void> {
    this.pending.push({ value, tag });
    if (this.pending.length >= this.every) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const values = await Promise.all(batch.map((p) => p.value.data()));
    for (const p of batch) p.value.dispose();
    batch.forEach((p, k) => this.onLoss(values[k][0], p.tag));
  }
}

/** Where a loop stands after an epoch: what a checkpoint keeps besides the model's own fields. */
export interface LoopState<H> extends OptimizerState {
  epoch: number;
  step: number;
  weights: Weights;
  best: number;
  bestEpoch: number;
  bestWeights: Weights;
  stale: number;
  history: H[];
  /** The weight average's shadows (LoopOptions.average), when the loop keeps one. */
  average?: AverageState;
}

export interface LoopOptions<H> {
  epochs: number;
  lr: number;
  /** The variables Adam updates, in a fixed order; the model may add to the array during an epoch (heads made at first use). */
  vars: tf.Variable[];
  getWeights(): Promise<Weights>;
  setWeights(w: Weights): void;
  /**
   * Early stopping: after this many epochs without a better dev score, counted from the first
   * epoch that scores above 0 (a model that tags nothing yet on dev is not overfitting: on a small
   * corpus the first epochs can all score 0). Without a score every epoch runs.
   */
  patience?: number;
  /** Go on from a checkpoint (its model fields are the caller's to restore). */
  resume?: Partial<LoopState<H>>;
  /** Called before Adam's state is restored, for a model whose variables are made lazily. */
  beforeRestore?(): void;
  /** One epoch of the model's steps; `stopped` ends the loop where it is. */
  epoch(epoch: number, step: number, optimizer: tf.Optimizer): Promise<{ loss: number; steps: number; stopped?: 'stopped' | 'cancelled' }>;
  /** The epoch's record, scored on dev when the loop selects by dev (`score`, higher is better). */
  record(epoch: number, loss: number): Promise<{ record: H; score?: number }>;
  /** After the record (its `best`: the score improved). */
  onEpoch?(record: H, best: boolean): Promise<void> | void;
  /** After each epoch: the state to keep, from which `resume` goes on. */
  checkpoint?(state: LoopState<H>): Promise<void> | void;
  /**
   * A weight average the epochs update after each step (src/model/average.ts): each epoch is
   * scored with its weights, the best epoch keeps them, and training goes on from the trained ones.
   */
  average?: WeightAverage;
}

export interface LoopResult<H> {
  stopped: 'done' | 'early' | 'stopped' | 'cancelled';
  best: number;
  bestEpoch: number;
  /** The weights of the best epoch on dev (the model is left at them unless cancelled), or null without a dev score. */
  bestWeights: Weights | null;
  history: H[];
  step: number;
}

export async function trainLoop<H>(o: LoopOptions<H>): Promise<LoopResult<H>> {
  // TensorFlow.js's Adam; on WebGPU its clipped step is two fused kernels (adamWebgpu.ts).
  const optimizer = new FusedAdam(o.lr);
  const r = o.resume;
  const history: H[] = r?.history ? [...r.history] : [];
  let best = r?.best ?? -1;
  let bestEpoch = r?.bestEpoch ?? 0;
  let bestWeights: Weights | null = r?.bestWeights ?? (o.patience !== undefined ? await o.getWeights() : null);
  let stale = r?.stale ?? 0;
  let step = r?.step ?? 0;
  if (r?.weights) {
    o.setWeights(r.weights);
    o.beforeRestore?.();
    if (r.optimizer && r.adamBetas) {
      await restoreOptimizer(optimizer, o.vars, { optimizer: r.optimizer, adamBetas: r.adamBetas });
      optimizer.forgetAcc();
    }
    if (r.average) o.average?.restore(r.average);
  }
  let stopped: LoopResult<H>['stopped'] = 'done';
  for (let epoch = (r?.epoch ?? 0) + 1; epoch <= o.epochs; epoch++) {
    if (o.patience !== undefined && stale >= o.patience) {
      stopped = 'early';
      break;
    }
    const e = await o.epoch(epoch, step, optimizer);
    step += e.steps;
    if (e.stopped) {
      stopped = e.stopped;
      break;
    }
    // Scored, kept as the best and handed to onEpoch with the averaged weights; trained on from the live ones.
    // Read once an epoch (counted with the dev pass): scored, kept as the best and checkpointed from here.
    const live = o.average ? await programSourceAsync('dev pass', () => o.getWeights()) : null;
    const averaged = o.average ? await o.average.weights() : null;
    if (averaged) programSource('dev pass', () => o.setWeights(averaged));
    const { record, score } = await o.record(epoch, e.loss);
    const improved = score !== undefined && score > best;
    if (improved) {
      best = score;
      bestEpoch = epoch;
      bestWeights = averaged ?? (await o.getWeights());
      stale = 0;
    } else if (score !== undefined && best > 0) stale++;
    history.push(record);
    await o.onEpoch?.(record, improved);
    if (o.checkpoint)
      await o.checkpoint({
        epoch,
        step,
        weights: live ?? (await o.getWeights()),
        ...(await optimizerState(optimizer)),
        best,
        bestEpoch,
        bestWeights: bestWeights ?? (await o.getWeights()),
        stale,
        history: [...history],
        ...(o.average && averaged ? { average: { weights: averaged, updates: o.average.count } } : {}),
      });
    if (live) programSource('dev pass', () => o.setWeights(live));
    if (o.patience !== undefined && stale >= o.patience) {
      stopped = 'early';
      break;
    }
  }
  optimizer.dispose();
  if (stopped !== 'cancelled' && bestWeights && o.patience !== undefined) o.setWeights(bestWeights);
  else if (stopped !== 'cancelled' && o.average) o.setWeights(await o.average.weights());
  return { stopped, best, bestEpoch, bestWeights, history, step };
}
