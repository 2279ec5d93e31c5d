/**
 * Bundled into a page by e2e/kernels.spec.ts: the WebGPU CRF kernels against the generic ops (on
 * WebGPU and on the CPU backend) and against brute-force enumeration; the WebGPU LSTM kernels
 * against the generic ops.
 */
import { getMethod } from '../../src/methods';
import '@tensorflow/tfjs-backend-webgpu';
import { crfKernelActive, crfKernelOptions, crfLogZ, crfNll, type CrfParams } from '../../src/model/crf';
import { registerCrfWebgpuKernels } from '../../src/model/crfWebgpu';
import {
  bilstmDirection,
  charCnn,
  charCnnKernelActive,
  charCnnKernelOptions,
  convKernelActive,
  convKernelOptions,
  convReluMasked,
  lstmOp,
} from '../../src/model/encoders';
import { registerCharCnnWebgpuKernels } from '../../src/model/charCnnWebgpu';
import { registerConvWebgpuKernels } from '../../src/model/convWebgpu';
import { lstmKernelActive, lstmKernelOptions, registerLstmWebgpuKernels } from '../../src/model/lstmWebgpu';
import { mulberry32 } from '../../src/core/random';
import { modelGrads, relativeGaps } from '../../src/model/gradCheck';
import * as tf from '../../src/model/tf';

interface Case {
  name: string;
  B: number;
  T: number;
  K: number;
  lengths: number[];
  partial: boolean;
  seed: number;
}

const uniform = mulberry32;

function inputs(c: Case) {
  const r = uniform(c.seed);
  const arr = (n: number, scale: number) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
  const allowed = Float32Array.from({ length: c.B * c.T * c.K }, () => (r() < 0.7 ? 1 : 0));
  // Keep at least one allowed tag per token.
  for (let p = 0; p < c.B * c.T; p++) allowed[p * c.K + (p % c.K)] = 1;
  const tags = Int32Array.from({ length: c.B * c.T }, () => Math.floor(r() * c.K));
  return {
    em: arr(c.B * c.T * c.K, 3),
    trans: arr(c.K * c.K, 1),
    start: arr(c.K, 1),
    end: arr(c.K, 1),
    weights: arr(c.B, 1),
    mask: Float32Array.from({ length: c.B * c.T }, (_, p) => (p % c.T < c.lengths[Math.floor(p / c.T)] ? 1 : 0)),
    allowed,
    tags,
  };
}

type Arrays = ReturnType<typeof inputs>;

/** log Z, NLL and the gradients of a weighted sum of each on the active backend. */
async function compute(c: Case, x: Arrays) {
  const em = tf.tensor3d(x.em, [c.B, c.T, c.K]);
  const mask = tf.tensor2d(x.mask, [c.B, c.T]);
  const allowed = c.partial ? tf.tensor3d(x.allowed, [c.B, c.T, c.K]) : undefined;
  const w = tf.tensor1d(x.weights);
  const [tr, st, en] = [tf.tensor2d(x.trans, [c.K, c.K]), tf.tensor1d(x.start), tf.tensor1d(x.end)];
  const p = (t: tf.Tensor, s: tf.Tensor, e: tf.Tensor): CrfParams => ({ transitions: t as tf.Tensor2D, start: s as tf.Tensor1D, end: e as tf.Tensor1D });
  const logZ = crfLogZ(em, mask, p(tr, st, en), allowed);
  const onehot = tf.cast(tf.oneHot(tf.tensor2d(x.tags, [c.B, c.T], 'int32'), c.K), 'float32') as tf.Tensor3D;
  const nll = crfNll(em, onehot, mask, p(tr, st, en));
  const grads = tf.grads((e: tf.Tensor, t: tf.Tensor, s: tf.Tensor, n: tf.Tensor) => tf.sum(tf.mul(crfLogZ(e as tf.Tensor3D, mask, p(t, s, n), allowed), w)));
  const g = grads([em, tr, st, en]);
  const nllGrads = tf.grads((e: tf.Tensor, t: tf.Tensor, s: tf.Tensor, n: tf.Tensor) => tf.sum(tf.mul(crfNll(e as tf.Tensor3D, onehot, mask, p(t, s, n)), w)));
  const gn = nllGrads([em, tr, st, en]);
  const out = {
    logZ: Array.from(await logZ.data()),
    nll: Array.from(await nll.data()),
    dEm: Array.from(await g[0].data()),
    dTrans: Array.from(await g[1].data()),
    dStart: Array.from(await g[2].data()),
    dEnd: Array.from(await g[3].data()),
    nllDEm: Array.from(await gn[0].data()),
    nllDTrans: Array.from(await gn[1].data()),
    nllDStart: Array.from(await gn[2].data()),
    nllDEnd: Array.from(await gn[3].data()),
  };
  tf.dispose([em, mask, allowed, w, tr, st, en, logZ, onehot, nll, ...g, ...gn].filter((t): t is tf.Tensor => !!t));
  return out;
}

/** log Z and its gradients by enumerating every tag path (short sequences only). */
function brute(c: Case, x: Arrays) {
  const { K, T } = c;
  const out = {
    logZ: [] as number[],
    dEm: new Array<number>(c.B * T * K).fill(0),
    dTrans: new Array<number>(K * K).fill(0),
    dStart: new Array<number>(K).fill(0),
    dEnd: new Array<number>(K).fill(0),
  };
  for (let b = 0; b < c.B; b++) {
    const n = c.lengths[b];
    const ok = (t: number, k: number) => !c.partial || x.allowed[(b * T + t) * K + k] === 1;
    const paths: { path: number[]; score: number }[] = [];
    const rec = (path: number[]) => {
      if (path.length === n) {
        let s = x.start[path[0]] + x.end[path[n - 1]];
        for (let t = 0; t < n; t++) s += x.em[(b * T + t) * K + path[t]] + (t ? x.trans[path[t - 1] * K + path[t]] : 0);
        paths.push({ path, score: s });
        return;
      }
      for (let k = 0; k < K; k++) if (ok(path.length, k)) rec([...path, k]);
    };
    rec([]);
    const m = Math.max(...paths.map((q) => q.score));
    const z = m + Math.log(paths.reduce((a, q) => a + Math.exp(q.score - m), 0));
    out.logZ.push(z);
    for (const { path, score } of paths) {
      const pr = Math.exp(score - z) * x.weights[b];
      path.forEach((k, t) => {
        out.dEm[(b * T + t) * K + k] += pr;
        if (t) out.dTrans[path[t - 1] * K + k] += pr;
      });
      out.dStart[path[0]] += pr;
      out.dEnd[path[n - 1]] += pr;
    }
  }
  return out;
}

/** The largest |a − b| / max(1, |b|) over every array the two results share. */
function gap(a: Record<string, number[]>, b: Record<string, number[]>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(b)) {
    if (!a[key]) continue;
    out[key] = a[key].reduce((m, v, i) => Math.max(m, Math.abs(v - b[key][i]) / Math.max(1, Math.abs(b[key][i]))), 0);
  }
  return out;
}

export async function runCrfCheck() {
  await tf.setBackend('webgpu');
  await tf.ready();
  registerCrfWebgpuKernels();
  const cases: Case[] = [
    { name: 'short, brute force', B: 3, T: 4, K: 3, lengths: [4, 2, 1], partial: false, seed: 1 },
    { name: 'short partial, brute force', B: 2, T: 5, K: 3, lengths: [5, 3], partial: true, seed: 2 },
    { name: 'CoNLL-sized', B: 6, T: 31, K: 9, lengths: [31, 30, 12, 5, 2, 1], partial: false, seed: 3 },
    { name: 'many tags, partial', B: 4, T: 17, K: 41, lengths: [17, 9, 16, 3], partial: true, seed: 4 },
  ];
  const results = [];
  for (const c of cases) {
    const x = inputs(c);
    crfKernelOptions.enabled = true;
    const kernelUsed = crfKernelActive(c.K);
    const kernel = await compute(c, x);
    crfKernelOptions.enabled = false;
    const generic = await compute(c, x);
    await tf.setBackend('cpu');
    const cpu = await compute(c, x);
    await tf.setBackend('webgpu');
    crfKernelOptions.enabled = true;
    const row: Record<string, unknown> = { name: c.name, kernelUsed, kernelVsGenericWebgpu: gap(kernel, generic), kernelVsCpu: gap(kernel, cpu) };
    if (c.T <= 5) {
      const bf = brute(c, x);
      row.kernelVsBrute = gap(kernel, bf);
      row.cpuVsBrute = gap(cpu, bf);
    }
    results.push(row);
  }
  return results;
}

/**
 * The whole model's gradient for one batch (BiLSTM or ID-CNN, char CNN, CRF), on WebGPU with the
 * kernels and on the CPU backend from the same weights: per variable, |g_gpu − g_cpu| / |g_cpu|.
 */
export async function runModelGradCheck(encoder: 'bilstm' | 'idcnn', dropout = 0) {
  await tf.setBackend('webgpu');
  registerCrfWebgpuKernels();
  registerLstmWebgpuKernels();
  registerCharCnnWebgpuKernels();
  registerConvWebgpuKernels();
  const cpu = await modelGrads('cpu', encoder, undefined, 'crf', dropout);
  const gpu = await modelGrads('webgpu', encoder, cpu.weights, 'crf', dropout);
  await tf.setBackend('webgpu');
  return { kernelUsed: crfKernelActive(9), lstmKernelUsed: lstmKernelActive(16), rel: relativeGaps(gpu.grads, cpu.grads) };
}

/**
 * `run` with the kernels on WebGPU, with the generic ops there, and on the CPU backend; then the
 * kernels back on. The largest gaps of the kernels' results to the two others.
 */
async function threeWays(
  run: (backend: string, kernel: boolean) => Promise<{ used: boolean; result: Record<string, number[]> }>,
  options: { enabled: boolean },
) {
  const kernel = await run('webgpu', true);
  const generic = await run('webgpu', false);
  const cpu = await run('cpu', false);
  await tf.setBackend('webgpu');
  options.enabled = true;
  return {
    kernelUsed: kernel.used,
    genericUsedKernel: generic.used,
    kernelVsGeneric: gap(kernel.result, generic.result),
    kernelVsCpu: gap(kernel.result, cpu.result),
  };
}

/**
 * One LSTM direction (forward or reverse, with or without the cell states as outputs) on WebGPU
 * with its WGSL kernels, with the generic ops there, and on the CPU backend, from the same
 * inputs: the outputs and the gradients of the inputs and recurrent weights, as the largest
 * |a − b| / max(1, |b|). H 130 passes the kernel's workgroup: invocations take two units each.
 */
export async function runLstmCheck() {
  await tf.setBackend('webgpu');
  await tf.ready();
  registerLstmWebgpuKernels();
  const results = [];
  for (const [H, reverse, cells] of [
    [7, false, false],
    [7, true, true],
    [130, false, true],
    [130, true, false],
  ] as const) {
    const [B, T] = [4, 9];
    const lengths = [9, 6, 1, 3];
    const r = uniform(H + (reverse ? 1 : 0) + (cells ? 2 : 0));
    const arr = (n: number) => Array.from({ length: n }, () => (r() * 2 - 1) * 1.5);
    const x = { xw: arr(B * T * 4 * H), wh: arr(H * 4 * H).map((v) => v / Math.sqrt(H)), up: arr(B * T * (cells ? 2 : 1) * H) };
    const run = async (backend: string, kernel: boolean) => {
      await tf.setBackend(backend);
      lstmKernelOptions.enabled = kernel;
      const used = lstmKernelActive(H);
      const xw = tf.tensor3d(x.xw, [B, T, 4 * H]);
      const wh = tf.tensor2d(x.wh, [H, 4 * H]);
      const mask = tf.tensor3d(
        lengths.flatMap((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 : 0))),
        [B, T, 1],
      );
      const up = tf.tensor3d(x.up, [B, T, (cells ? 2 : 1) * H]);
      const op = lstmOp(reverse, cells);
      const { grads } = tf.valueAndGrads((a: tf.Tensor, w: tf.Tensor) => tf.sum(tf.mul(op(a as tf.Tensor3D, mask, w as tf.Tensor2D), up)))([xw, wh]);
      const out = op(xw, mask, wh);
      const result = { out: Array.from(await out.data()), dxw: Array.from(await grads[0].data()), dwh: Array.from(await grads[1].data()) };
      tf.dispose([xw, wh, mask, up, out, ...grads]);
      return { used, result };
    };
    const compared = await threeWays(run, lstmKernelOptions);
    results.push({ H, reverse, cells, ...compared });
  }
  return results;
}

/**
 * One BiLSTM direction as training runs it (the batch-major kernels on WebGPU: input projection,
 * recurrence with the bias, outputs masked), against the generic ops on WebGPU and on the CPU
 * backend, from the same weights: the outputs and every weight's and the inputs' gradients.
 */
export async function runLstmFusedCheck() {
  await tf.setBackend('webgpu');
  await tf.ready();
  registerLstmWebgpuKernels();
  const results = [];
  for (const [H, reverse] of [
    [7, false],
    [7, true],
    [130, true],
  ] as const) {
    const [B, T, D] = [4, 9, 5];
    const lengths = [9, 6, 1, 3];
    const r = uniform(H + (reverse ? 1 : 0) + 40);
    const arr = (n: number) => Array.from({ length: n }, () => (r() * 2 - 1) * 1.2);
    const x = { x: arr(B * T * D), wx: arr(D * 4 * H), wh: arr(H * 4 * H).map((v) => v / Math.sqrt(H)), b: arr(4 * H), up: arr(B * T * H) };
    const run = async (backend: string, kernel: boolean) => {
      await tf.setBackend(backend);
      lstmKernelOptions.enabled = kernel;
      const used = lstmKernelActive(H);
      const prefix = reverse ? 'lstm/bw' : 'lstm/fw';
      const params = Object.assign(new Map<string, tf.Variable>(), { prefix: `fused${backend}${kernel}${H}${reverse}/` });
      const vars = [
        [`${prefix}/wx`, tf.tensor2d(x.wx, [D, 4 * H])],
        [`${prefix}/wh`, tf.tensor2d(x.wh, [H, 4 * H])],
        [`${prefix}/b`, tf.tensor1d(x.b)],
      ].map(([k, t]) => {
        const v = tf.variable(t as tf.Tensor);
        params.set(k as string, v);
        return v;
      });
      const input = tf.variable(tf.tensor3d(x.x, [B, T, D]));
      const mask = tf.tensor2d(
        lengths.flatMap((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 : 0))),
        [B, T],
      );
      const up = tf.tensor3d(x.up, [B, T, H]);
      const f = () => bilstmDirection(params, input, mask, H, 1, reverse);
      const { grads } = tf.variableGrads(() => tf.sum(tf.mul(f(), up)) as tf.Scalar, [...vars, input]);
      const out = f();
      const result: Record<string, number[]> = { out: Array.from(await out.data()) };
      for (const [k, v] of [
        ['dwx', vars[0]],
        ['dwh', vars[1]],
        ['db', vars[2]],
        ['dx', input],
      ] as const)
        result[k] = Array.from(await grads[v.name].data());
      tf.dispose([input, mask, up, out, ...Object.values(grads), ...vars]);
      return { used, result };
    };
    const compared = await threeWays(run, lstmKernelOptions);
    results.push({ H, reverse, ...compared });
  }
  return results;
}

/**
 * The ID-CNN's layer, mask · relu(dilated convolution), on WebGPU with its WGSL kernels, with the
 * generic ops there, and on the CPU backend: the output and the gradients of the input, the
 * filters and the bias, at each dilation the encoder uses (4 reaches past short sentences).
 */
export async function runConvCheck() {
  await tf.setBackend('webgpu');
  await tf.ready();
  registerConvWebgpuKernels();
  const [B, T, D, F] = [3, 7, 5, 6];
  const lengths = [7, 4, 1];
  const results = [];
  for (const d of [1, 2, 4]) {
    const r = uniform(50 + d);
    const arr = (n: number) => Array.from({ length: n }, () => (r() * 2 - 1) * 1.2);
    const x = { x: arr(B * T * D), w: arr(3 * D * F), b: arr(F), up: arr(B * T * F) };
    const run = async (backend: string, kernel: boolean) => {
      await tf.setBackend(backend);
      convKernelOptions.enabled = kernel;
      const used = convKernelActive();
      const vars = [tf.variable(tf.tensor3d(x.x, [B, T, D])), tf.variable(tf.tensor2d(x.w, [3 * D, F])), tf.variable(tf.tensor1d(x.b))];
      const mask = tf.tensor2d(
        lengths.flatMap((n) => Array.from({ length: T }, (_, t) => (t < n ? 1 : 0))),
        [B, T],
      );
      const m3 = tf.expandDims(mask, 2);
      const up = tf.tensor3d(x.up, [B, T, F]);
      const f = () =>
        convReluMasked(vars[0] as tf.Tensor as tf.Tensor3D, vars[1] as tf.Tensor as tf.Tensor2D, vars[2] as tf.Tensor as tf.Tensor1D, mask, m3, d);
      const { grads } = tf.variableGrads(() => tf.sum(tf.mul(f(), up)) as tf.Scalar, vars);
      const out = f();
      const result = {
        out: Array.from(await out.data()),
        dx: Array.from(await grads[vars[0].name].data()),
        dw: Array.from(await grads[vars[1].name].data()),
        db: Array.from(await grads[vars[2].name].data()),
      };
      tf.dispose([mask, m3, up, out, ...Object.values(grads), ...vars]);
      return { used, result };
    };
    const compared = await threeWays(run, convKernelOptions);
    results.push({ dilation: d, ...compared });
  }
  return results;
}

/**
 * The character CNN on WebGPU with its WGSL kernels, with the generic ops there, and on the CPU
 * backend, from the same weights: the output and the gradients of the character embeddings, the
 * filters and the bias. Words repeat a trigram (a tie for the max), are one character long, or
 * are all padding; some ids fall outside the table.
 */
export async function runCharCnnCheck() {
  await tf.setBackend('webgpu');
  await tf.ready();
  registerCharCnnWebgpuKernels();
  registerConvWebgpuKernels();
  const [N, L, V, D, F] = [7, 16, 23, 5, 6];
  const r = uniform(11);
  const arr = (n: number) => Array.from({ length: n }, () => (r() * 2 - 1) * 1.2);
  const words = [[3, 4, 5, 3, 4, 5, 3, 4, 5], [7], [], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], [22, 22, 22, 22], [9, 30, 2], [5, 1]];
  const ids = words.flatMap((w) => Array.from({ length: L }, (_, l) => w[l] ?? 0));
  const x = { emb: arr(V * D), w: arr(3 * D * F), b: arr(F), up: arr(N * F) };
  const run = async (backend: string, kernel: boolean) => {
    await tf.setBackend(backend);
    charCnnKernelOptions.enabled = kernel;
    const used = charCnnKernelActive();
    const params = Object.assign(new Map<string, tf.Variable>(), { prefix: `check${backend}${kernel}/` });
    params.set('char/emb', tf.variable(tf.tensor2d(x.emb, [V, D])));
    params.set('char/conv/w', tf.variable(tf.tensor2d(x.w, [3 * D, F])));
    params.set('char/conv/b', tf.variable(tf.tensor1d(x.b)));
    const chars = tf.tensor2d(ids, [N, L], 'int32');
    const up = tf.tensor2d(x.up, [N, F]);
    const vars = ['char/emb', 'char/conv/w', 'char/conv/b'].map((k) => params.get(k)!);
    const { grads } = tf.variableGrads(() => tf.sum(tf.mul(charCnn(params, chars, V, D, F, 1), up)) as tf.Scalar, vars);
    const out = charCnn(params, chars, V, D, F, 1);
    const result = {
      out: Array.from(await out.data()),
      dEmb: Array.from(await grads[vars[0].name].data()),
      dW: Array.from(await grads[vars[1].name].data()),
      dB: Array.from(await grads[vars[2].name].data()),
    };
    tf.dispose([chars, up, out, ...Object.values(grads), ...vars]);
    return { used, result };
  };
  return threeWays(run, charCnnKernelOptions);
}

/**
 * Training steps of the shared loop (Adam, clipping, dropout) on the CPU backend and on WebGPU
 * with the kernels, from the same seed: per step, the relative gap between the two losses.
 */
export async function runTrainDrift(steps: number) {
  await import('../../src/methods');
  const { parseRunConfig } = await import('../../src/core/runConfig');
  const { bioTags } = await import('../../src/model/data');
  const { buildFeaturizer } = await import('../../src/model/features');
  const { trainTagger } = await import('../../src/model/train');
  registerCrfWebgpuKernels();
  registerLstmWebgpuKernels();
  registerCharCnnWebgpuKernels();
  registerConvWebgpuKernels();
  const tags = bioTags(['LOC', 'PER']);
  const r = uniform(3);
  const names = ['Paris', 'Rome', 'Smith', 'Jones'];
  const sentences = Array.from({ length: 8 * steps }, (_, k) => {
    const words: string[] = [];
    const t: number[] = [];
    while (words.length < 4 + (k % 6)) {
      const x = r();
      if (x < 0.3) words.push('in', names[Math.floor(r() * 2)]), t.push(0, 1);
      else if (x < 0.6) words.push('mr', names[2 + Math.floor(r() * 2)]), t.push(0, 3);
      else words.push(x < 0.8 ? 'the' : 'Zorg'), t.push(0);
    }
    return { words, tags: t, doc: k, offset: 0 };
  });
  const vocab = ['in', 'mr', 'the', 'paris', 'rome', 'smith', 'jones'];
  const glove = { dims: 4, index: new Map(vocab.map((w, k) => [w, k])), vectors: Float32Array.from({ length: vocab.length * 4 }, (_, i) => Math.sin(i)) };
  const feat = buildFeaturizer(
    glove,
    sentences.map((s) => s.words),
    tags,
  );
  const cfg = parseRunConfig({
    data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
    model: { hidden: 8, charDim: 4, charFilters: 4, dropout: 0.5 },
    // With a weight average (average.ts), which the final model reads: on WebGPU it steps in the fused Adam's kernel.
    train: { epochs: 1, batchSize: 8, lr: 0.002, patience: 10, seed: 3, average: 0.9 },
  });
  const losses: Record<string, number[]> = {};
  const finals: Record<string, Float32Array[]> = {};
  for (const b of ['cpu', 'webgpu']) {
    await tf.setBackend(b);
    losses[b] = [];
    const res = await trainTagger(
      getMethod(cfg.method.name),
      cfg,
      feat,
      { train: sentences, dev: sentences.slice(0, 8) },
      { onStep: (e) => void losses[b].push(e.loss) },
    );
    finals[b] = Object.values(await res.tagger.getWeights()).map((w) => w.data);
    res.tagger.dispose();
  }
  const averageGap = Math.max(...finals.cpu.map((x, k) => Math.max(...x.map((v, i) => Math.abs(v - finals.webgpu[k][i])))));
  return { cpu: losses.cpu, webgpu: losses.webgpu, gaps: losses.cpu.map((v, i) => Math.abs(losses.webgpu[i] - v) / v), averageGap };
}

/**
 * The fused Adam (adamWebgpu.ts) against TensorFlow.js's Adam through applyClipped on the same
 * backend, and against the CPU backend: variables of several sizes (one larger than a
 * workgroup's stride, gradients over and under the clipping norm), a few steps, then every
 * variable and moment compared. Also the state it leaves (accBeta1/accBeta2, the moments' names).
 */
export async function runAdamCheck(steps: number) {
  const { FusedAdam } = await import('../../src/model/adamWebgpu');
  const { WeightAverage } = await import('../../src/model/average');
  const { applyClipped } = await import('../../src/model/ops');
  const shapes: number[][] = [[3], [17, 5], [300, 41], [1], [64, 64, 3], [7], [2, 2], [129]];
  const rand = mulberry32(5);
  const init = shapes.map((s) => Float32Array.from({ length: s.reduce((a, b) => a * b, 1) }, () => rand() * 2 - 1));
  const grads = Array.from({ length: steps }, (_, t) =>
    shapes.map((s) => Float32Array.from({ length: s.reduce((a, b) => a * b, 1) }, () => (rand() * 2 - 1) * (t % 2 ? 0.01 : 3))),
  );
  async function run(backend: string, fused: boolean) {
    await tf.setBackend(backend);
    const vars = shapes.map((s, k) => tf.variable(tf.tensor(init[k], s), true, `adamcheck/${backend}/${fused}/${k}`));
    const opt = new FusedAdam(0.01);
    // A weight average's shadows (average.ts) on all but one variable, updated in the fused kernel or as average.ts does it.
    const shadows = vars.map((v, k) => (k === 3 ? null : tf.variable(tf.mul(v, 0.5), false)));
    for (let t = 0; t < steps; t++) {
      const g = Object.fromEntries(vars.map((v, k) => [v.name, tf.tensor(grads[t][k], shapes[k])]));
      const decay = WeightAverage.decayAt(0.9, t + 1);
      if (fused) await opt.applyClipped(vars, g, 5, { shadows, decay });
      else {
        applyClipped(opt, vars, g, 5);
        tf.tidy(() => shadows.forEach((a, k) => a?.assign(tf.add(tf.mul(a, decay), tf.mul(vars[k], 1 - decay)))));
      }
      tf.dispose(Object.values(g));
    }
    const weights = await opt.getWeights();
    const out = {
      shadows: await Promise.all(shadows.flatMap((a) => (a ? [a.data().then((d) => Array.from(d))] : []))),
      vars: await Promise.all(vars.map(async (v) => Array.from(await v.data()))),
      moments: await Promise.all(weights.slice(1).map(async (w) => ({ name: w.name, data: Array.from(await w.tensor.data()) }))),
      acc: [(await (opt as unknown as { accBeta1: tf.Variable }).accBeta1.data())[0], (await (opt as unknown as { accBeta2: tf.Variable }).accBeta2.data())[0]],
    };
    opt.dispose();
    tf.dispose([...vars, ...shadows.filter((a) => a !== null)]);
    return out;
  }
  const gap = (a: number[][], b: number[][]) => Math.max(...a.map((x, k) => Math.max(...x.map((v, i) => Math.abs(v - b[k][i])))));
  const fused = await run('webgpu', true);
  const generic = await run('webgpu', false);
  const cpu = await run('cpu', false);
  await tf.setBackend('webgpu');
  return {
    vars: { fusedVsGeneric: gap(fused.vars, generic.vars), fusedVsCpu: gap(fused.vars, cpu.vars) },
    shadows: { fusedVsGeneric: gap(fused.shadows, generic.shadows), fusedVsCpu: gap(fused.shadows, cpu.shadows), count: fused.shadows.length },
    moments: {
      fusedVsGeneric: gap(
        fused.moments.map((m) => m.data),
        generic.moments.map((m) => m.data),
      ),
    },
    names: { fused: fused.moments.map((m) => m.name.replace('/true/', '/')), generic: generic.moments.map((m) => m.name.replace('/false/', '/')) },
    acc: { fused: fused.acc, generic: generic.acc },
    moved: gap(
      fused.vars,
      init.map((x) => Array.from(x)),
    ),
  };
}
