import { getKernel } from '@tensorflow/tfjs-core';
import { LSTM_SEQ, LSTM_SEQ_GRAD, LSTM_WH_GRAD, lstmKernelActive } from './lstmWebgpu';
import { dense, matMulTransposed, maxOver, opPer, shiftConv } from './ops';
import * as tf from './tf';
import { MADE_ONCE_VARIABLES, programSource } from './programSource';

/** A model's variables by their own names; TensorFlow.js names are prefixed to stay unique. */
export type Params = Map<string, tf.Variable> & { prefix?: string };

export function param(params: Params, name: string, init: () => tf.Tensor): tf.Variable {
  let v = params.get(name);
  if (!v) {
    const value = programSource(MADE_ONCE_VARIABLES, init);
    v = tf.variable(value, true, `${params.prefix ?? ''}${name}`);
    value.dispose();
    params.set(name, v);
  }
  return v;
}

/**
 * One LSTM direction over [B, T, D] with a [B, T] mask. The input projections of all time steps
 * are one matrix product; only the recurrent part loops. Padding sits at the end of each row:
 * where the mask is 0 the state is carried unchanged, so the backward direction starts each row
 * at its own last token without reversing sequences.
 */
function lstmWeights(params: Params, prefix: string, D: number, H: number, seed: number) {
  const wx = param(params, `${prefix}/wx`, () => tf.randomUniform([D, 4 * H], -Math.sqrt(6 / (D + 4 * H)), Math.sqrt(6 / (D + 4 * H)), 'float32', seed));
  const wh = param(params, `${prefix}/wh`, () => tf.randomUniform([H, 4 * H], -Math.sqrt(6 / (5 * H)), Math.sqrt(6 / (5 * H)), 'float32', seed + 1));
  // Forget-gate bias 1 (Jozefowicz et al. 2015).
  const b = param(params, `${prefix}/b`, () => tf.concat([tf.zeros([H]), tf.ones([H]), tf.zeros([2 * H])]));
  return { wx, wh, b };
}

/**
 * One LSTM cell update from the input projection xw (bias included) and the state (h, c): the new
 * state and the activated gates [i, f, g, o] (which backpropagation through time needs).
 */
function lstmCell(xw: tf.Tensor2D, h: tf.Tensor2D, c: tf.Tensor2D, wh: tf.Tensor2D): { h: tf.Tensor2D; c: tf.Tensor2D; gates: tf.Tensor2D[] } {
  const [zi, zf, zg, zo] = tf.split(tf.add(xw, dense(h, wh)), 4, 1);
  const gates = [tf.sigmoid(zi), tf.sigmoid(zf), tf.tanh(zg), tf.sigmoid(zo)] as tf.Tensor2D[];
  const [i, f, g, o] = gates;
  const cNew = tf.add(tf.mul(f, c), tf.mul(i, g)) as tf.Tensor2D;
  return { h: tf.mul(o, tf.tanh(cNew)) as tf.Tensor2D, c: cNew, gates };
}

/**
 * The recurrence of one LSTM direction over time-major inputs: xw [T, B, 4H] (input projections,
 * bias included), masks [T, B, 1], from the first step to the last or, `reverse`, from the last
 * to the first, the initial state zero. Returns per time step the activated gates [i, f, g, o]
 * and the states (c, h) after the step, each stacked in time order. Time-major steps are
 * contiguous slices.
 */
function lstmScan(xw: tf.Tensor3D, masks: tf.Tensor3D, wh: tf.Tensor2D, reverse: boolean): { gates: tf.Tensor3D; c: tf.Tensor3D; h: tf.Tensor3D } {
  const [T, B, H4] = xw.shape;
  const H = H4 / 4;
  if (lstmKernelActive(H)) {
    // The whole recurrence as one WGSL kernel (src/model/lstmWebgpu.ts).
    const packed = tf.engine().runKernel(LSTM_SEQ, { xw, m: masks, wh }, { reverse }) as tf.Tensor3D;
    const [gates, c, h] = tf.split(packed, [H4, H, H], 2) as tf.Tensor3D[];
    return { gates, c, h };
  }
  const steps = tf.unstack(xw) as tf.Tensor2D[];
  const ms = tf.unstack(masks) as tf.Tensor2D[];
  let h: tf.Tensor2D = tf.zeros([B, H]);
  let c: tf.Tensor2D = tf.zeros([B, H]);
  const gates: tf.Tensor2D[] = new Array(T);
  const cs: tf.Tensor2D[] = new Array(T);
  const hs: tf.Tensor2D[] = new Array(T);
  const fused = hasKernel(LSTM_STEP);
  for (let k = 0; k < T; k++) {
    const t = reverse ? T - 1 - k : k;
    const m = ms[t];
    if (fused) {
      // The same step as one kernel (src/model/wasmKernels.ts).
      [gates[t], c, h] = tf.engine().runKernel(LSTM_STEP, { xw: steps[t], hw: dense(h, wh), c, h, m }) as tf.Tensor2D[];
    } else {
      const next = lstmCell(steps[t], h, c, wh);
      // Where the mask is 0 the state is carried unchanged.
      c = tf.add(c, tf.mul(m, tf.sub(next.c, c))) as tf.Tensor2D;
      h = tf.add(h, tf.mul(m, tf.sub(next.h, h))) as tf.Tensor2D;
      gates[t] = tf.concat(next.gates, 1) as tf.Tensor2D;
    }
    cs[t] = c;
    hs[t] = h;
  }
  return { gates: tf.stack(gates) as tf.Tensor3D, c: tf.stack(cs) as tf.Tensor3D, h: tf.stack(hs) as tf.Tensor3D };
}

/**
 * Backpropagation through time for lstmScan's recurrence with the generic ops (a fused step
 * kernel per step where the backend has one): the gate pre-activations' gradient dz [T, B, 4H]
 * from the outputs' gradient dyT [T, B, H] (with `cells` [T, B, 2H], the cell states' after).
 */
function lstmBptt(dyT: tf.Tensor3D, gates: tf.Tensor3D, cAll: tf.Tensor3D, mAll: tf.Tensor3D, w: tf.Tensor2D, reverse: boolean, cells: boolean): tf.Tensor3D {
  const [T, B, H4] = gates.shape;
  const H = H4 / 4;
  const dys = tf.unstack(cells ? tf.slice(dyT, [0, 0, 0], [T, B, H]) : dyT) as tf.Tensor2D[];
  // Gradients reaching the cell states from outside (zero at padding, like the outputs).
  const dcs = cells ? (tf.unstack(tf.mul(tf.slice(dyT, [0, 0, H], [T, B, H]), mAll)) as tf.Tensor2D[]) : null;
  const g4 = tf.unstack(gates) as tf.Tensor2D[];
  const cs = tf.unstack(cAll) as tf.Tensor2D[];
  const ms = tf.unstack(mAll) as tf.Tensor2D[];
  const wT = tf.transpose(w);
  const zero = tf.zeros([B, H]) as tf.Tensor2D;
  const fused = hasKernel(LSTM_STEP_GRAD);
  let dh: tf.Tensor2D = zero;
  let dc: tf.Tensor2D = zero;
  const dz: tf.Tensor2D[] = new Array(T);
  // Against the recurrence: the last step it took first.
  for (let k = T - 1; k >= 0; k--) {
    const t = reverse ? T - 1 - k : k;
    const prev = reverse ? t + 1 : t - 1;
    const m = ms[t];
    const cPrev = k > 0 ? cs[prev] : zero;
    if (dcs) dc = tf.add(dc, dcs[t]) as tf.Tensor2D;
    if (fused) {
      const [dzt, dhKeep, dcNext] = tf.engine().runKernel(LSTM_STEP_GRAD, { dh, dc, dy: dys[t], gates: g4[t], c: cs[t], cPrev, m }) as tf.Tensor2D[];
      dz[t] = dzt;
      dh = tf.add(dhKeep, tf.matMul(dzt, wT)) as tf.Tensor2D;
      dc = dcNext;
      continue;
    }
    const [i, f, g, o] = tf.split(g4[t], 4, 1) as tf.Tensor2D[];
    // out_t = h_t·m; h_t = h_prev + m·(h_new − h_prev), and likewise c_t.
    const dhT = tf.add(dh, tf.mul(dys[t], m));
    const dhNew = tf.mul(m, dhT);
    // Where m = 1, c_t is the new cell state; where m = 0 every term below is zero.
    const tc = tf.tanh(cs[t]);
    const dcNew = tf.add(tf.mul(m, dc), tf.mul(tf.mul(dhNew, o), tf.sub(1, tf.square(tc))));
    const dzi = tf.mul(tf.mul(dcNew, g), tf.mul(i, tf.sub(1, i)));
    const dzf = tf.mul(tf.mul(dcNew, cPrev), tf.mul(f, tf.sub(1, f)));
    const dzg = tf.mul(tf.mul(dcNew, i), tf.sub(1, tf.square(g)));
    const dzo = tf.mul(tf.mul(dhNew, tc), tf.mul(o, tf.sub(1, o)));
    dz[t] = tf.concat([dzi, dzf, dzg, dzo], 1) as tf.Tensor2D;
    const keep = tf.sub(1, m);
    dh = tf.add(tf.mul(keep, dhT), tf.matMul(dz[t], wT)) as tf.Tensor2D;
    dc = tf.add(tf.mul(keep, dc), tf.mul(dcNew, f)) as tf.Tensor2D;
  }
  return tf.stack(dz) as tf.Tensor3D;
}

/**
 * Kernel names of one LSTM time step (inputs xw, hw: the input and recurrent projections [B, 4H];
 * c, h: the state [B, H]; m: the mask [B, 1]; outputs the activated gates [B, 4H] and the carried
 * c, h) and of its backward step; lstmWasm.ts registers them for WASM.
 */
export const LSTM_STEP = 'StudioLstmStep';
export const LSTM_STEP_GRAD = 'StudioLstmStepGrad';

/** Whether the current backend has a kernel of that name (the studio's own are registered for WASM only). */
const hasKernel = (name: string) => getKernel(name, tf.getBackend()) !== undefined;

const timeMajor = (x: tf.Tensor3D) => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D;

/**
 * One LSTM direction as a single differentiable op: xw [B, T, 4H], mask [B, T, 1], wh [H, 4H] →
 * outputs [B, T, H] (zero at padding), or with `cells` [B, T, 2H]: the outputs, then the cell
 * states (zero at padding; a custom-gradient op has one output tensor). The gradient is
 * backpropagation through time written out (the gates' and states' derivatives step by step,
 * then one product for the recurrent weights' gradient over all steps), instead of TensorFlow.js
 * taping some 20 small ops per step and padding each step's slice gradient back to the whole
 * sequence.
 */
const lstmOps = opPer((key: string) => {
  const reverse = key.startsWith('reverse');
  const cells = key.endsWith('cells');
  return tf.customGrad(((xw: tf.Tensor3D, mask: tf.Tensor3D, wh: tf.Tensor2D, save: tf.GradSaveFunc) => {
    const masks = timeMajor(mask);
    const run = lstmScan(timeMajor(xw), masks, wh, reverse);
    save([run.gates, run.c, run.h, masks, wh]);
    const h = tf.mul(run.h, masks) as tf.Tensor3D;
    return {
      value: timeMajor(cells ? (tf.concat([h, tf.mul(run.c, masks)], 2) as tf.Tensor3D) : h),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [gates, cAll, hAll, mAll, w] = saved as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.Tensor2D];
        const [T, B, H4] = gates.shape;
        const H = H4 / 4;
        const dyT = timeMajor(dy as tf.Tensor3D);
        const dzAll = lstmKernelActive(H)
          ? // Backpropagation through time as one WGSL kernel (src/model/lstmWebgpu.ts).
            (tf.engine().runKernel(LSTM_SEQ_GRAD, { dy: dyT, gates, c: cAll, m: mAll, wh: w }, { reverse, cells }) as tf.Tensor3D)
          : lstmBptt(dyT, gates, cAll, mAll, w, reverse, cells);
        // dWh = Σ_t h_prev(t)ᵀ dz_t over every step and sequence at once; h_prev is the state one
        // step earlier in the recurrence (zero before its first step).
        const first = tf.zeros([1, B, H]);
        const hPrev =
          T === 1
            ? first
            : reverse
              ? tf.concat([tf.slice(hAll, [1, 0, 0], [T - 1, B, H]), first], 0)
              : tf.concat([first, tf.slice(hAll, [0, 0, 0], [T - 1, B, H])], 0);
        const dWh = matMulTransposed(tf.reshape(hPrev, [T * B, H]) as tf.Tensor2D, tf.reshape(dzAll, [T * B, H4]) as tf.Tensor2D, true, false);
        return [timeMajor(dzAll), tf.zerosLike(mask), dWh];
      },
    };
  }) as never) as (xw: tf.Tensor3D, mask: tf.Tensor3D, wh: tf.Tensor2D) => tf.Tensor3D;
});

/**
 * One LSTM direction on the batch-major WGSL kernels (lstmWebgpu.ts): x·Wx [B, T, 4H] without the
 * bias, the mask [B, T] → the outputs [B, T, H], 0 where the mask is. No transposes and no
 * masking ops: one program for the recurrence and one to take its outputs; backward, one for
 * backpropagation through time, one for the recurrent weights and one for the bias.
 */
function lstmFused(xw: tf.Tensor3D, mask: tf.Tensor2D, wh: tf.Tensor2D, bias: tf.Tensor1D, reverse: boolean): tf.Tensor3D {
  const [B, T, H4] = xw.shape;
  const op = tf.customGrad(((xwi: tf.Tensor3D, whi: tf.Tensor2D, bi: tf.Tensor1D, save: tf.GradSaveFunc) => {
    const packed = tf.engine().runKernel(LSTM_SEQ, { xw: xwi, m: mask, wh: whi, bias: bi }, { reverse }) as tf.Tensor3D;
    save([packed, whi]);
    return {
      // The outputs are the last H of each row's 6H (LstmSeqProgram).
      value: tf.slice(packed, [0, 0, (5 * H4) / 4], [B, T, H4 / 4]),
      gradFunc: (dy: tf.Tensor, [p, w]: tf.Tensor[]) => {
        const dz = tf.engine().runKernel(LSTM_SEQ_GRAD, { dy, p, m: mask, wh: w }, { reverse, cells: false }) as tf.Tensor3D;
        const dWh = tf.engine().runKernel(LSTM_WH_GRAD, { p, dz }, { reverse }) as tf.Tensor2D;
        return [dz, dWh, tf.sum(tf.reshape(dz, [B * T, H4]), 0)];
      },
    };
  }) as never) as (xw: tf.Tensor3D, wh: tf.Tensor2D, b: tf.Tensor1D) => tf.Tensor3D;
  return op(xw, wh, bias);
}

export const lstmOp = (reverse: boolean, cells = false) => lstmOps(`${reverse ? 'reverse' : 'forward'}${cells ? '/cells' : ''}`);

function lstmRun(
  params: Params,
  prefix: string,
  x: tf.Tensor3D,
  mask: tf.Tensor2D,
  H: number,
  reverse: boolean,
  seed: number,
  cells: boolean,
): { h: tf.Tensor3D; c: tf.Tensor3D | null } {
  const D = x.shape[2];
  const { wx, wh, b } = lstmWeights(params, prefix, D, H, seed);
  if (!cells && lstmKernelActive(H))
    return { h: lstmFused(dense(x, wx) as tf.Tensor3D, mask, wh as tf.Tensor as tf.Tensor2D, b as tf.Tensor as tf.Tensor1D, reverse), c: null };
  const xw = tf.add(dense(x, wx), b) as tf.Tensor3D;
  const m3 = tf.expandDims(mask, 2) as tf.Tensor3D;
  if (!cells) return { h: lstmOp(reverse)(xw, m3, wh as tf.Tensor as tf.Tensor2D), c: null };
  // The cell states too (bilstmInsertedStates), from the same op.
  const [h, c] = tf.split(lstmOp(reverse, true)(xw, m3, wh as tf.Tensor as tf.Tensor2D), 2, 2) as tf.Tensor3D[];
  return { h, c };
}

function lstmDirection(params: Params, prefix: string, x: tf.Tensor3D, mask: tf.Tensor2D, H: number, reverse: boolean, seed: number): tf.Tensor3D {
  return lstmRun(params, prefix, x, mask, H, reverse, seed, false).h;
}

/**
 * The BiLSTM's state at a token put in place of a region, for many regions of the same
 * sentences at once (training and inference). The forward state there depends only on the tokens left of
 * the region and the new token, the backward state only on those right of it, so one pass over
 * each sentence plus one cell update per region gives exactly what encoding each edited sentence
 * would. regions: [sentence, start, end) triples; x: [B, T, D] inputs of the unedited sentences;
 * token: [1, D] the inserted token's input. Returns [R, 2H].
 */
export function bilstmInsertedStates(
  params: Params,
  x: tf.Tensor3D,
  mask: tf.Tensor2D,
  H: number,
  seed: number,
  token: tf.Tensor2D,
  regions: readonly (readonly [number, number, number])[],
): tf.Tensor2D {
  const [B, T, D] = x.shape;
  const R = regions.length;
  const side = (prefix: string, reverse: boolean, s: number) => {
    const run = lstmRun(params, prefix, x, mask, H, reverse, s, true);
    const { wx, wh, b } = lstmWeights(params, prefix, D, H, s);
    // The state before the inserted token: after token start − 1 (forward), or after token end (backward).
    const sel = new Float32Array(R * B * T);
    regions.forEach(([sent, start, end], r) => {
      const t = reverse ? end : start - 1;
      if (t >= 0 && t < T) sel[r * B * T + sent * T + t] = 1;
    });
    const pick = tf.tensor2d(sel, [R, B * T]);
    const h0 = tf.matMul(pick, tf.reshape(run.h, [B * T, H])) as tf.Tensor2D;
    const c0 = tf.matMul(pick, tf.reshape(run.c!, [B * T, H])) as tf.Tensor2D;
    // [1, 4H], broadcast over the regions by the cell's sum (WASM's Tile is slow: bench/wasm-kernels.ts).
    const xw = tf.add(tf.matMul(token, wx), b) as tf.Tensor2D;
    return lstmCell(xw, h0, c0, wh as tf.Tensor as tf.Tensor2D).h;
  };
  return tf.concat([side('lstm/fw', false, seed), side('lstm/bw', true, seed + 7)], 1) as tf.Tensor2D;
}

export function bilstm(params: Params, x: tf.Tensor3D, mask: tf.Tensor2D, H: number, seed: number): tf.Tensor3D {
  return tf.concat([bilstmDirection(params, x, mask, H, seed, false), bilstmDirection(params, x, mask, H, seed, true)], 2) as tf.Tensor3D;
}

/** One direction of `bilstm` (the same weights): its forward or its backward states [B, T, H]. */
export function bilstmDirection(params: Params, x: tf.Tensor3D, mask: tf.Tensor2D, H: number, seed: number, reverse: boolean): tf.Tensor3D {
  return reverse
    ? programSource('LSTM, backward direction', () => lstmDirection(params, 'lstm/bw', x, mask, H, true, seed + 7))
    : programSource('LSTM, forward direction', () => lstmDirection(params, 'lstm/fw', x, mask, H, false, seed));
}

/**
 * Iterated dilated CNN (Strubell et al. 2017): a block of width-3 convolutions with dilations
 * 1, 2, 4, 1, applied `iterations` times with shared weights. Each convolution is one matrix
 * product over shifted copies with a hand-written gradient (shiftConv), since TensorFlow.js has
 * no gradient for dilated convolution on any backend.
 */
export function idcnn(
  params: Params,
  x: tf.Tensor3D,
  mask: tf.Tensor2D,
  F: number,
  iterations: number,
  dropout: number,
  training: boolean,
  seed: number,
  /** Iteration it's dropout draws its mask from dropoutSeed + it: the caller's per-step seed, so that each step drops other cells. */
  dropoutSeed = seed + 100,
): tf.Tensor3D {
  const D = x.shape[2];
  const m3 = tf.expandDims(mask, 2);
  const inW = param(params, 'idcnn/in/w', () => tf.randomUniform([3 * D, F], -Math.sqrt(6 / (3 * D + F)), Math.sqrt(6 / (3 * D + F)), 'float32', seed));
  const inB = param(params, 'idcnn/in/b', () => tf.zeros([F]));
  const conv = (h: tf.Tensor3D, w: tf.Variable, b: tf.Variable, d: number) =>
    convReluMasked(h, w as tf.Tensor as tf.Tensor2D, b as tf.Tensor as tf.Tensor1D, mask, m3, d);
  let h = conv(x, inW, inB, 1);
  const dilations = [1, 2, 4, 1];
  const outs: tf.Tensor3D[] = [];
  for (let it = 0; it < iterations; it++) {
    dilations.forEach((d, l) => {
      const w = param(params, `idcnn/l${l}/w`, () => tf.randomUniform([3 * F, F], -Math.sqrt(6 / (4 * F)), Math.sqrt(6 / (4 * F)), 'float32', seed + 10 + l));
      const b = param(params, `idcnn/l${l}/b`, () => tf.zeros([F]));
      h = conv(h, w, b, d);
    });
    outs.push(training && dropout > 0 ? (tf.dropout(h, dropout, undefined, dropoutSeed + it) as tf.Tensor3D) : h);
  }
  return outs[outs.length - 1];
}

/** Kernel names of the ID-CNN's fused layer; convWebgpu.ts registers them for webgpu. */
export const CONV_KERNELS = {
  forward: 'StudioConvRelu',
  xGrad: 'StudioConvReluXGrad',
  wGrad: 'StudioConvReluWGrad',
  bGrad: 'StudioConvReluBGrad',
};
/** Set `enabled` to false to force the generic ops (the tests compare the two on one backend). */
export const convKernelOptions = { enabled: true };

/** Whether `convReluMasked` runs as fused kernels on the active backend. */
export function convKernelActive(): boolean {
  return convKernelOptions.enabled && tf.getKernel(CONV_KERNELS.forward, tf.getBackend()) !== undefined;
}

/** The ID-CNN's layer: mask · relu(shiftConv(x)), as one fused kernel where the backend has it. */
export function convReluMasked(x: tf.Tensor3D, w: tf.Tensor2D, b: tf.Tensor1D, mask: tf.Tensor2D, m3: tf.Tensor, d: number): tf.Tensor3D {
  if (convKernelActive()) return tf.engine().runKernel(CONV_KERNELS.forward, { x, w, b, m: mask }, { dilation: d }) as tf.Tensor3D;
  return tf.mul(tf.relu(shiftConv(x, w, b, d)), m3) as tf.Tensor3D;
}

// The fused layer's gradient: one program per input asked for, each from the upstream gradient,
// the mask and the layer's output (relu's gradient is where the output is positive).
tf.registerGradient({
  kernelName: CONV_KERNELS.forward,
  inputsToSave: ['x', 'w', 'b', 'm'],
  outputsToSave: [true],
  gradFunc: (dy, saved, attrs) => {
    const [x, w, , m, y] = saved;
    const run = (name: string) => () => tf.engine().runKernel(name, { dy: dy as tf.Tensor, y, m, x, w }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor;
    return {
      x: run(CONV_KERNELS.xGrad),
      w: run(CONV_KERNELS.wGrad),
      b: run(CONV_KERNELS.bGrad),
      m: () => {
        throw new Error("the ID-CNN's fused layer does not differentiate its mask");
      },
    };
  },
});

/** Kernel names of the fused character CNN; charCnnWebgpu.ts registers them for webgpu. */
export const CHAR_CNN_KERNELS = {
  forward: 'StudioCharCnn',
  /** The gradient before tanh at every character [N, L, F], from which the rest are built. */
  preGrad: 'StudioCharCnnPreGrad',
  wGrad: 'StudioCharCnnWGrad',
  bGrad: 'StudioCharCnnBGrad',
  /** The gradient at each character's embedding [N, L, D]. */
  xGrad: 'StudioCharCnnXGrad',
  embGrad: 'StudioCharCnnEmbGrad',
};
/** Set `enabled` to false to force the generic ops (the tests compare the two on one backend). */
export const charCnnKernelOptions = { enabled: true };

/** Whether `charCnn` runs as fused kernels on the active backend. */
export function charCnnKernelActive(): boolean {
  return charCnnKernelOptions.enabled && tf.getKernel(CHAR_CNN_KERNELS.forward, tf.getBackend()) !== undefined;
}

// The fused character CNN's gradient: one program for the gradient before tanh, then one for each
// input asked for (the embedding's takes two: through each character's position, then by id).
tf.registerGradient({
  kernelName: CHAR_CNN_KERNELS.forward,
  inputsToSave: ['chars', 'emb', 'w', 'b'],
  gradFunc: (dy, saved) => {
    const [chars, emb, w, b] = saved;
    const run = (name: string, inputs: Record<string, tf.Tensor>) => tf.engine().runKernel(name, inputs) as tf.Tensor;
    const dPre = run(CHAR_CNN_KERNELS.preGrad, { chars, emb, w, b, dy: dy as tf.Tensor });
    return {
      w: () => run(CHAR_CNN_KERNELS.wGrad, { dPre, chars, emb, w }),
      b: () => run(CHAR_CNN_KERNELS.bGrad, { dPre }),
      emb: () => run(CHAR_CNN_KERNELS.embGrad, { dX: run(CHAR_CNN_KERNELS.xGrad, { dPre, w }), chars, emb }),
      chars: () => {
        throw new Error('the fused character CNN does not differentiate its character ids');
      },
    };
  },
});

/**
 * Whether a gather reads embedding rows with the one-hot product's bits (the character embeddings
 * here, the out-of-GloVe word vectors in the tagger's inputs): on WASM with the studio's
 * UnsortedSegmentSum (registerWasmKernels), a one-hot row picks one embedding row exactly and
 * XNNPACK's product sums each row's gradient rows in order, as the segment sum does. The CPU
 * backend's product sums in blocks of 48 (the last digit of a loss moved), so it keeps the
 * product, as the GPU backends do.
 */
export function gatherSameBits(): boolean {
  return tf.getBackend() === 'wasm' && tf.getKernel('UnsortedSegmentSum', 'wasm') !== undefined;
}

/**
 * Character CNN (Ma and Hovy 2016): character embeddings, a width-3 convolution, max over the
 * characters of each word. Embeddings are looked up by a gather on WASM (gatherSameBits), which
 * skips a [N·L, chars] product and its transpose each step, else by a one-hot product.
 */
export function charCnn(params: Params, chars: tf.Tensor2D, nChars: number, dim: number, filters: number, seed: number): tf.Tensor2D {
  const [N, L] = chars.shape;
  const emb = param(params, 'char/emb', () => tf.randomUniform([nChars, dim], -Math.sqrt(3 / dim), Math.sqrt(3 / dim), 'float32', seed));
  const w = param(params, 'char/conv/w', () => tf.randomUniform([3 * dim, filters], -Math.sqrt(6 / (4 * dim)), Math.sqrt(6 / (4 * dim)), 'float32', seed + 1));
  const b = param(params, 'char/conv/b', () => tf.zeros([filters]));
  if (charCnnKernelActive()) return tf.engine().runKernel(CHAR_CNN_KERNELS.forward, { chars, emb, w, b }) as tf.Tensor2D;
  const ids = tf.reshape(chars, [-1]) as tf.Tensor1D;
  const rows = gatherSameBits() ? tf.gather(emb, ids) : dense(tf.cast(tf.oneHot(ids, nChars), 'float32'), emb);
  const e = tf.reshape(rows, [N, L, dim]) as tf.Tensor3D;
  const c = tf.tanh(shiftConv(e, w as tf.Tensor as tf.Tensor2D, b as tf.Tensor as tf.Tensor1D, 1));
  // Padding characters (id 0) must not win the max.
  const pad = tf.expandDims(tf.cast(tf.equal(chars, 0), 'float32'), 2);
  return maxOver(tf.sub(c, tf.mul(pad, 10)), 1) as tf.Tensor2D;
}
