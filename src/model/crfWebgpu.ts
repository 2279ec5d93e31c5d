/**
 * The CRF's forward algorithm and its gradient (forward-backward marginals) as WGSL kernels,
 * registered for the webgpu backend under CRF_FORWARD and CRF_BACKWARD; `crfLogZ` in crf.ts uses
 * them when the active backend has them, and the generic TensorFlow.js ops everywhere else.
 *
 * One workgroup per sequence, one invocation per tag (K ≤ 64); the time loop runs inside the
 * kernel with the previous step's scores in workgroup memory, so a batch costs two dispatches
 * instead of the generic version's dozens of small ops per time step.
 */
import { CRF_BACKWARD, CRF_FORWARD, CRF_NLL, CRF_NLL_GRAD, CRF_PARAM_GRAD, MAX_KERNEL_TAGS } from './crf';
import { FlatProgram, PerSentenceProgram, registerProgramKernel } from './webgpuProgram';

const WG = MAX_KERNEL_TAGS;

/** Shared by both kernels: the sequence length n (at least 1) from the mask, a prefix of ones. */
const lengthSnippet = `
  let T = uniforms.emShape.y;
  let K = uniforms.emShape.z;
  let b = i32(workgroupId.x);
  let j = i32(localId.x);
  var n = 1;
  for (var t = 0; t < T; t++) {
    if (Mask[b * T + t] > 0.5) { n = t + 1; }
  }
`;

/**
 * Tags are read through f32(): a one-hot cast from int32 keeps its int32 buffer on webgpu.
 *
 * Tag j's share of the path score, as crfPathScore computes it: its emission on real tokens, its
 * start, its end on each row's last real token, and the transitions into it.
 */
const pathScoreSnippet = `
  var score = 0.0;
  if (j < K) {
    score = f32(Tags[(b * T) * K + j]) * Start[j];
    for (var t = 0; t < T; t++) {
      let mt = Mask[b * T + t];
      let next = select(0.0, Mask[b * T + t + 1], t + 1 < T);
      let y = f32(Tags[(b * T + t) * K + j]);
      score = score + Em[(b * T + t) * K + j] * y * mt + y * (mt - next) * End[j];
      if (t >= 1) {
        var into = 0.0;
        for (var i = 0; i < K; i++) { into = into + f32(Tags[(b * T + t - 1) * K + i]) * Trans[i * K + j]; }
        score = score + into * y * mt;
      }
    }
  }
`;

/** The forward algorithm's steps 1..T-1 for tag j in \`a\` (carried past the end), then \`store\`. */
function forwardLoopSnippet(store: string): string {
  return `
    for (var t = 1; t < T; t++) {
      prev[j] = a;
      workgroupBarrier();
      if (j < K && t < n) {
        var m = -1e30;
        for (var i = 0; i < K; i++) { m = max(m, prev[i] + Trans[i * K + j]); }
        var s = 0.0;
        for (var i = 0; i < K; i++) { s = s + exp(prev[i] + Trans[i * K + j] - m); }
        a = m + log(s) + Em[(b * T + t) * K + j];
      }
      workgroupBarrier();
      ${store}
    }
  `;
}

/**
 * One step of the backward algorithm for tag j as tag i of step t − 1: beta_{t-1}[j] from `next`
 * (em_t + beta_t in workgroup memory) and the pairwise marginals P(y_{t-1} = j, y_t = k) added to
 * acc[k], given alpha_{t-1}[j].
 */
function backwardStepSnippet(next: string, alphaPrev: string): string {
  return `
    if (j < K && t >= 1 && t < n) {
      let ai = ${alphaPrev};
      var m = -1e30;
      for (var k = 0; k < K; k++) { m = max(m, Trans[j * K + k] + ${next}[k]); }
      var s = 0.0;
      for (var k = 0; k < K; k++) {
        let x = Trans[j * K + k] + ${next}[k];
        s = s + exp(x - m);
        acc[k] = acc[k] + exp(ai + x - logZ);
      }
      beta = m + log(s);
    }
  `;
}

/**
 * Inputs Em [B, T, K], Mask [B, T], Trans [K, K], Start [K], End [K]. Output [B, T + 1, K]: rows
 * 0..T-1 the forward scores alpha (carried unchanged past the sequence end), row T holds log Z in
 * its first cell.
 */
class CrfForwardProgram extends PerSentenceProgram {
  variableNames = ['Em', 'Mask', 'Trans', 'Start', 'End'];
  shaderKey = 'studio_crf_forward';

  constructor(B: number, T: number, K: number) {
    super([B, T + 1, K], B, WG);
  }

  getUserCode(): string {
    return `
      var<workgroup> prev: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        var a = -1e30;
        if (j < K) {
          a = Start[j] + Em[(b * T) * K + j];
          setOutputAtIndex((b * (T + 1)) * K + j, a);
        }
        ${forwardLoopSnippet('if (j < K) { setOutputAtIndex((b * (T + 1) + t) * K + j, a); }')}
        prev[j] = select(-1e30, a + End[min(j, K - 1)], j < K);
        workgroupBarrier();
        if (j == 0) {
          var m = -1e30;
          for (var i = 0; i < K; i++) { m = max(m, prev[i]); }
          var s = 0.0;
          for (var i = 0; i < K; i++) { s = s + exp(prev[i] - m); }
          setOutputAtIndex((b * (T + 1) + T) * K, m + log(s));
        } else if (j < K) {
          setOutputAtIndex((b * (T + 1) + T) * K + j, 0.0);
        }
      }
    `;
  }
}

/**
 * Inputs Em, Mask, Trans, End, Alpha (the forward output) and Dy [B], the upstream gradient of
 * log Z. Output [B, T*K + K*K]: dy times the marginals P(y_t = k) (0 past the end), then dy times
 * the pairwise marginals summed over time, sum_t P(y_t = i, y_t+1 = j).
 */
class CrfBackwardProgram extends PerSentenceProgram {
  variableNames = ['Em', 'Mask', 'Trans', 'End', 'Alpha', 'Dy'];
  shaderKey = 'studio_crf_backward';

  constructor(B: number, T: number, K: number) {
    super([B, T * K + K * K], B, WG);
  }

  getUserCode(): string {
    return `
      var<workgroup> next: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        let row = b * (T * K + K * K);
        let logZ = Alpha[(b * (T + 1) + T) * K];
        let dy = Dy[b];
        var acc: array<f32, ${WG}>;
        for (var k = 0; k < ${WG}; k++) { acc[k] = 0.0; }
        var beta = 0.0;
        for (var t = T - 1; t >= 0; t--) {
          if (j < K) {
            if (t == n - 1) { beta = End[j]; }
            if (t < n) {
              setOutputAtIndex(row + t * K + j, dy * exp(Alpha[(b * (T + 1) + t) * K + j] + beta - logZ));
            } else {
              setOutputAtIndex(row + t * K + j, 0.0);
            }
          }
          // em_t[j] + beta_t[j], which every tag i of step t - 1 needs.
          next[j] = select(-1e30, beta + Em[(b * T + t) * K + min(j, K - 1)], j < K && t < n);
          workgroupBarrier();
          ${backwardStepSnippet('next', 'Alpha[(b * (T + 1) + t - 1) * K + j]')}
          workgroupBarrier();
        }
        if (j < K) {
          for (var k = 0; k < K; k++) { setOutputAtIndex(row + T * K + j * K + k, dy * acc[k]); }
        }
      }
    `;
  }
}

/**
 * The sequence NLL, log Z − score(tags), in one program: inputs Em [B, T, K], Tags [B, T, K] (one-hot
 * or soft, as crfPathScore takes them), Mask [B, T], Trans, Start, End; output [B]. Invocation j runs
 * the forward algorithm for tag j and sums tag j's share of the path score (its emission, start and
 * end terms and the transitions into it), and the first invocation adds up the workgroup.
 */
class CrfNllProgram extends PerSentenceProgram {
  variableNames = ['Em', 'Tags', 'Mask', 'Trans', 'Start', 'End'];
  shaderKey = 'studio_crf_nll';

  constructor(B: number) {
    super([B], B, WG);
  }

  getUserCode(): string {
    return `
      var<workgroup> prev: array<f32, ${WG}>;
      var<workgroup> part: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        ${pathScoreSnippet}
        var a = -1e30;
        if (j < K) { a = Start[j] + Em[(b * T) * K + j]; }
        ${forwardLoopSnippet('')}
        prev[j] = select(-1e30, a + End[min(j, K - 1)], j < K);
        part[j] = score;
        workgroupBarrier();
        if (j == 0) {
          var m = -1e30;
          for (var i = 0; i < K; i++) { m = max(m, prev[i]); }
          var s = 0.0;
          var total = 0.0;
          for (var i = 0; i < K; i++) { s = s + exp(prev[i] - m); total = total + part[i]; }
          setOutputAtIndex(b, m + log(s) - total);
        }
      }
    `;
  }
}

/**
 * The NLL's gradient for each sequence: inputs as CrfNllProgram's and Dy [B]; output [B, T*K + K*K
 * + 2K]: dy (P(y_t = k) − tags·mask) for the emissions, then dy (pairwise marginals − the tags'
 * transitions) for the transitions, then the start's and the end's. The forward scores alpha are
 * computed first into the emissions' part of the output, which the backward pass overwrites step
 * by step (each invocation reads and writes only its own tag's cells), so nothing is saved from
 * the forward program.
 */
class CrfNllGradProgram extends PerSentenceProgram {
  variableNames = ['Em', 'Tags', 'Mask', 'Trans', 'Start', 'End', 'Dy'];
  shaderKey = 'studio_crf_nll_grad';

  constructor(B: number, T: number, K: number) {
    super([B, T * K + K * K + 2 * K], B, WG);
  }

  getUserCode(): string {
    return `
      var<workgroup> prev: array<f32, ${WG}>;
      fn main(index : i32) {
        ${lengthSnippet}
        let row = b * (T * K + K * K + 2 * K);
        let dy = Dy[b];
        var a = -1e30;
        if (j < K) { a = Start[j] + Em[(b * T) * K + j]; result[row + j] = a; }
        ${forwardLoopSnippet('if (j < K && t < n) { result[row + t * K + j] = a; }')}
        prev[j] = select(-1e30, a + End[min(j, K - 1)], j < K);
        workgroupBarrier();
        var mz = -1e30;
        for (var i = 0; i < K; i++) { mz = max(mz, prev[i]); }
        var sz = 0.0;
        for (var i = 0; i < K; i++) { sz = sz + exp(prev[i] - mz); }
        let logZ = mz + log(sz);
        workgroupBarrier();
        var acc: array<f32, ${WG}>;
        for (var k = 0; k < ${WG}; k++) { acc[k] = 0.0; }
        var beta = 0.0;
        var first = 0.0;
        var last = 0.0;
        for (var t = T - 1; t >= 0; t--) {
          if (j < K) {
            if (t == n - 1) { beta = End[j]; }
            var marginal = 0.0;
            if (t < n) { marginal = exp(result[row + t * K + j] + beta - logZ); }
            if (t == 0) { first = marginal; }
            if (t == n - 1) { last = marginal; }
            result[row + t * K + j] = dy * (marginal - f32(Tags[(b * T + t) * K + j]) * Mask[b * T + t]);
          }
          // em_t[j] + beta_t[j], which every tag i of step t - 1 needs.
          prev[j] = select(-1e30, beta + Em[(b * T + t) * K + min(j, K - 1)], j < K && t < n);
          workgroupBarrier();
          // alpha_{t-1}[j]: this invocation's own cell, not yet overwritten.
          ${backwardStepSnippet('prev', 'result[row + (t - 1) * K + j]')}
          workgroupBarrier();
        }
        if (j < K) {
          for (var k = 0; k < K; k++) {
            var seen = 0.0;
            for (var t = 1; t < T; t++) {
              seen = seen + Mask[b * T + t] * f32(Tags[(b * T + t - 1) * K + j]) * f32(Tags[(b * T + t) * K + k]);
            }
            result[row + T * K + j * K + k] = dy * (acc[k] - seen);
          }
          var ends = 0.0;
          for (var t = 0; t < T; t++) {
            let next = select(0.0, Mask[b * T + t + 1], t + 1 < T);
            ends = ends + f32(Tags[(b * T + t) * K + j]) * (Mask[b * T + t] - next);
          }
          result[row + T * K + K * K + j] = dy * (first - f32(Tags[(b * T) * K + j]));
          result[row + T * K + K * K + K + j] = dy * (last - ends);
        }
      }
    `;
  }
}

/** Which parameter's gradient CrfParamGradProgram sums: the transitions [K, K], start [K], end [K]. */
export type CrfParamPart = 0 | 1 | 2;

/**
 * One CRF parameter's gradient, CrfNllGradProgram's per-sequence rows summed over the batch: input
 * G [B, T*K + K*K + 2K], output [K*K] or [K]; one invocation per output cell.
 */
class CrfParamGradProgram extends FlatProgram {
  variableNames = ['G'];
  shaderKey: string;
  private readonly offset: string;

  constructor(K: number, part: CrfParamPart) {
    super([part === 0 ? K * K : K]);
    this.shaderKey = `studio_crf_param_grad_${K}_${part}`;
    // From the end of a row: T varies from batch to batch, K does not.
    this.offset = String([K * K + 2 * K, 2 * K, K][part]);
  }

  getUserCode(): string {
    return `
      fn main(index : i32) {
        let B = uniforms.gShape.x;
        let P = uniforms.gShape.y;
        if (index < uniforms.size) {
          var s = 0.0;
          for (var b = 0; b < B; b++) { s = s + G[b * P + P - ${this.offset} + index]; }
          setOutputAtIndex(index, s);
        }
      }
    `;
  }
}

let registered = false;

/** Registers the CRF's kernels for the webgpu backend (once; safe to call again). */
export function registerCrfWebgpuKernels(): void {
  if (registered) return;
  registered = true;
  registerProgramKernel(CRF_FORWARD, ({ emissions, mask, transitions, start, end }) => {
    const [B, T, K] = emissions.shape;
    return [new CrfForwardProgram(B, T, K), [emissions, mask, transitions, start, end]];
  });
  registerProgramKernel(CRF_BACKWARD, ({ emissions, mask, transitions, end, alpha, dy }) => {
    const [B, T, K] = emissions.shape;
    return [new CrfBackwardProgram(B, T, K), [emissions, mask, transitions, end, alpha, dy]];
  });
  registerProgramKernel(CRF_NLL, ({ emissions, tags, mask, transitions, start, end }) => [
    new CrfNllProgram(emissions.shape[0]),
    [emissions, tags, mask, transitions, start, end],
  ]);
  registerProgramKernel(CRF_NLL_GRAD, ({ emissions, tags, mask, transitions, start, end, dy }) => {
    const [B, T, K] = emissions.shape;
    return [new CrfNllGradProgram(B, T, K), [emissions, tags, mask, transitions, start, end, dy]];
  });
  registerProgramKernel(CRF_PARAM_GRAD, ({ g }, attrs) => {
    const { K, part } = attrs as unknown as { K: number; part: CrfParamPart };
    return [new CrfParamGradProgram(K, part), [g]];
  });
}
