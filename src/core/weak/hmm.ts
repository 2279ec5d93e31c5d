import { sourceTags, type AggregateInput } from './sources';
import { UNKNOWN_TYPE } from '../types';

/**
 * A hidden Markov model over the sources' votes, fitted without gold labels by EM (Baum-Welch),
 * as skweak does. Hidden states are BIO tags (O, B-t, I-t); each source emits its own tag at each
 * token (O where it does not fire, B-? / I-? for its untyped or ambiguous spans) through a
 * per-source confusion matrix, so the model learns each source's accuracy and recall.
 * Transitions that BIO forbids (O to I-t, t to I-u) start at zero and so stay zero.
 */

interface Sentence {
  /** obs[s * n + t]: observation symbol of source s at token t. */
  obs: Uint16Array;
  n: number;
  /** Where the sentences with these observations are: document and first token. */
  at: { doc: number; from: number }[];
}

export interface HmmResult {
  tags: string[];
  confidence: number[];
}

export interface HmmOptions {
  iterations?: number;
  /** Pseudo-count weight of the initial emission matrices (a Dirichlet prior). */
  prior?: number;
}

/** A fitted HMM: what decodes another corpus labeled by the same sources (hmmLabel's `fixed`). */
export interface HmmParams {
  types: string[];
  sources: string[];
  pi: Float64Array;
  A: Float64Array;
  E: Float64Array;
  /**
   * How EM ended, where these parameters were fitted: the iterations it ran, and whether its
   * log-likelihood settled (a relative change under 1e-5) before the cap. On a small project the
   * cap can stop it first, and the weak labels then still move with more text (BENCHMARKS.md, the
   * demo's gold splits).
   */
  fit?: EmFit;
}

/** How EM ended: the iterations it ran, its cap, and whether it settled first. */
export interface EmFit {
  iterations: number;
  cap: number;
  converged: boolean;
}

/** EM's iteration cap. */
export const HMM_ITERATIONS = 15;

export function fitHmm(input: AggregateInput, opt: HmmOptions = {}): HmmResult[] {
  return hmmLabel(input, opt).results;
}

/** The HMM's shape: K hidden BIO states over T types, M observation symbols (K and B-? / I-?), S sources. */
interface Space {
  T: number;
  K: number;
  M: number;
  S: number;
  isI: (j: number) => boolean;
  allowed: (i: number, j: number) => boolean;
}

interface Params {
  pi: Float64Array;
  A: Float64Array;
  E: Float64Array;
}

/**
 * Fits the HMM to the input's votes by EM and decodes it; with `fixed`, the parameters an earlier
 * fit learned (on the training text) decode this input as they are, with no fitting: dev and test
 * text get weak labels without the model reading them.
 */
export function hmmLabel(input: AggregateInput, opt: HmmOptions = {}, fixed?: HmmParams): { results: HmmResult[]; params: HmmParams } {
  if (fixed && (fixed.types.join('\u0000') !== input.types.join('\u0000') || fixed.sources.join('\u0000') !== input.sources.map((s) => s.name).join('\u0000')))
    throw new Error(
      `the fitted HMM is for types ${fixed.types.join(', ')} and sources ${fixed.sources.join(', ')}; this corpus has ${input.types.join(', ')} and ${input.sources.map((s) => s.name).join(', ')}`,
    );
  const T = input.types.length;
  const K = 1 + 2 * T;
  const isI = (j: number) => j > 0 && j % 2 === 0;
  const typeOf = (j: number) => (j - 1) >> 1;
  const sp: Space = { T, K, M: K + 2, S: input.sources.length, isI, allowed: (i, j) => !isI(j) || (i > 0 && typeOf(i) === typeOf(j)) };
  const sentences = uniqueSentences(input, sp);
  const p = initialParams(sp);
  const E0 = p.E.slice();
  const lattice = new Lattice(
    sp,
    p,
    sentences.reduce((m, s) => Math.max(m, s.n), 0),
  );
  if (fixed) {
    p.pi.set(fixed.pi);
    p.A.set(fixed.A);
    p.E.set(fixed.E);
  }
  const cap = fixed ? 0 : (opt.iterations ?? HMM_ITERATIONS);
  let lastLl = -Infinity;
  let ran = 0;
  let converged = false;
  for (let it = 0; it < cap; it++) {
    const ll = emStep(sp, p, lattice, sentences, E0, opt.prior ?? 2);
    ran++;
    if (Math.abs(ll - lastLl) < 1e-5 * Math.abs(ll)) {
      converged = true;
      break;
    }
    lastLl = ll;
  }
  const results = decode(input, sp, p, lattice, sentences);
  const fit = fixed ? fixed.fit : { iterations: ran, cap, converged };
  return { results, params: { types: [...input.types], sources: input.sources.map((s) => s.name), ...p, ...(fit ? { fit } : {}) } };
}

/**
 * The input's sentences as observation rows. Sentences with the same observations (every sentence
 * no source fires in, of one length; repeated text) have the same posteriors: each is fitted and
 * decoded once, its expected counts weighted by how often it occurs. Symbols are small numbers,
 * so the UTF-16 key is exact.
 */
function uniqueSentences(input: AggregateInput, sp: Space): Sentence[] {
  const { K, S } = sp;
  const typeIdx = new Map(input.types.map((t, k) => [t, k]));
  const symbol = (tag: string): number => {
    if (tag === 'O') return 0;
    const type = tag.slice(2);
    const b = tag[0] === 'B' ? 0 : 1;
    if (type === UNKNOWN_TYPE) return K + b;
    const k = typeIdx.get(type);
    return k === undefined ? K + b : 1 + 2 * k + b;
  };
  const sentences: Sentence[] = [];
  const seen = new Map<string, Sentence>();
  const key = new TextDecoder('utf-16le');
  input.sentences.forEach((sents, d) => {
    const n = sents.length ? sents[sents.length - 1][1] : 0;
    const tags = input.sources.map((src) => sourceTags(src.spans[d], n));
    for (const [a, b] of sents) {
      const len = b - a;
      const obs = new Uint16Array(S * len);
      for (let s = 0; s < S; s++) for (let t = 0; t < len; t++) obs[s * len + t] = symbol(tags[s][a + t]);
      const k = `${len}:${key.decode(obs)}`;
      const same = seen.get(k);
      if (same) same.at.push({ doc: d, from: a });
      else {
        const sent = { obs, n: len, at: [{ doc: d, from: a }] };
        seen.set(k, sent);
        sentences.push(sent);
      }
    }
  });
  return sentences;
}

/** Initial parameters: sources are precise and miss much (the usual shape of dictionaries). */
function initialParams(sp: Space): Params {
  const { T, K, M, S, isI, allowed } = sp;
  const pi = new Float64Array(K);
  const A = new Float64Array(K * K);
  const E = new Float64Array(S * K * M);
  for (let j = 0; j < K; j++) pi[j] = j === 0 ? 0.9 : isI(j) ? 0 : 0.1 / T;
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < K; j++) {
      if (!allowed(i, j)) continue;
      if (i === 0) A[i * K + j] = j === 0 ? 0.9 : 0.1 / T;
      else A[i * K + j] = j === 0 ? 0.4 : isI(j) ? 0.5 : 0.1 / T;
    }
    normalize(A, i * K, K);
  }
  for (let s = 0; s < S; s++) {
    for (let j = 0; j < K; j++) {
      const row = (s * K + j) * M;
      for (let m = 0; m < M; m++) E[row + m] = 0.01 / M;
      if (j === 0) E[row] += 0.98;
      else {
        E[row + j] += 0.6;
        E[row] += 0.3;
        E[row + K + (isI(j) ? 1 : 0)] += 0.08;
      }
      normalize(E, row, M);
    }
  }
  return { pi, A, E };
}

/** One sentence's emission probabilities and scaled forward-backward passes, in buffers sized for the longest sentence. */
class Lattice {
  readonly alpha: Float64Array;
  readonly beta: Float64Array;
  readonly bprob: Float64Array;
  readonly scale: Float64Array;
  constructor(
    private readonly sp: Space,
    private readonly p: Params,
    maxN: number,
  ) {
    const { K } = sp;
    this.alpha = new Float64Array(maxN * K);
    this.beta = new Float64Array(maxN * K);
    this.bprob = new Float64Array(maxN * K);
    this.scale = new Float64Array(maxN);
  }

  emissions(sent: Sentence): void {
    const { K, M, S } = this.sp;
    const { E } = this.p;
    const { obs, n } = sent;
    for (let t = 0; t < n; t++) {
      for (let j = 0; j < K; j++) {
        let p = 1;
        for (let s = 0; s < S; s++) p *= E[(s * K + j) * M + obs[s * n + t]];
        this.bprob[t * K + j] = p;
      }
    }
  }

  /** The forward and backward passes over the last `emissions`; the log-likelihood. */
  forwardBackward(n: number): number {
    const { K } = this.sp;
    const { pi, A } = this.p;
    const { alpha, beta, bprob, scale } = this;
    let ll = 0;
    for (let t = 0; t < n; t++) {
      let z = 0;
      for (let j = 0; j < K; j++) {
        let a = 0;
        if (t === 0) a = pi[j];
        else for (let i = 0; i < K; i++) a += alpha[(t - 1) * K + i] * A[i * K + j];
        a *= bprob[t * K + j];
        alpha[t * K + j] = a;
        z += a;
      }
      z = z || 1e-300;
      scale[t] = z;
      for (let j = 0; j < K; j++) alpha[t * K + j] /= z;
      ll += Math.log(z);
    }
    for (let j = 0; j < K; j++) beta[(n - 1) * K + j] = 1;
    for (let t = n - 2; t >= 0; t--) {
      for (let i = 0; i < K; i++) {
        let b = 0;
        for (let j = 0; j < K; j++) b += A[i * K + j] * bprob[(t + 1) * K + j] * beta[(t + 1) * K + j];
        beta[t * K + i] = b / scale[t + 1];
      }
    }
    return ll;
  }
}

/** One EM (Baum-Welch) iteration: expected counts over every sentence, then the parameters re-estimated in place; the log-likelihood. */
function emStep(sp: Space, p: Params, lattice: Lattice, sentences: readonly Sentence[], E0: Float64Array, prior: number): number {
  const { K, M, S, allowed } = sp;
  const { pi, A, E } = p;
  const { alpha, beta, bprob, scale } = lattice;
  const cPi = new Float64Array(K);
  const cA = new Float64Array(K * K);
  const cE = new Float64Array(S * K * M);
  for (let k = 0; k < cE.length; k++) cE[k] = prior * E0[k];
  let ll = 0;
  for (const sent of sentences) {
    const { n, obs } = sent;
    if (!n) continue;
    const w = sent.at.length;
    lattice.emissions(sent);
    ll += w * lattice.forwardBackward(n);
    for (let t = 0; t < n; t++) {
      for (let j = 0; j < K; j++) {
        const g = w * alpha[t * K + j] * beta[t * K + j];
        if (t === 0) cPi[j] += g;
        for (let s = 0; s < S; s++) cE[(s * K + j) * M + obs[s * n + t]] += g;
      }
      if (t === 0) continue;
      for (let i = 0; i < K; i++) {
        const a = w * alpha[(t - 1) * K + i];
        if (!a) continue;
        for (let j = 0; j < K; j++) {
          if (!A[i * K + j]) continue;
          cA[i * K + j] += (a * A[i * K + j] * bprob[t * K + j] * beta[t * K + j]) / scale[t];
        }
      }
    }
  }
  pi.set(cPi);
  normalize(pi, 0, K);
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < K; j++) A[i * K + j] = allowed(i, j) ? cA[i * K + j] + 1e-6 : 0;
    normalize(A, i * K, K);
  }
  for (let r = 0; r < S * K; r++) normalize(cE, r * M, M);
  E.set(cE);
  return ll;
}

/** Viterbi decoding, with the posterior confidence of each chosen state. */
function decode(input: AggregateInput, sp: Space, p: Params, lattice: Lattice, sentences: readonly Sentence[]): HmmResult[] {
  const { K } = sp;
  const { pi, A } = p;
  const { alpha, beta, bprob } = lattice;
  const labels = ['O', ...input.types.flatMap((t) => [`B-${t}`, `I-${t}`])];
  const results: HmmResult[] = input.sentences.map((sents) => {
    const n = sents.length ? sents[sents.length - 1][1] : 0;
    return { tags: new Array<string>(n).fill('O'), confidence: new Array<number>(n).fill(1) };
  });
  const maxN = sentences.reduce((m, s) => Math.max(m, s.n), 0);
  const delta = new Float64Array(maxN * K);
  const back = new Int32Array(maxN * K);
  const logA = A.map((x) => Math.log(x));
  for (const sent of sentences) {
    const { n } = sent;
    if (!n) continue;
    lattice.emissions(sent);
    lattice.forwardBackward(n);
    for (let t = 0; t < n; t++) {
      for (let j = 0; j < K; j++) {
        const lb = Math.log(bprob[t * K + j] || 1e-300);
        if (t === 0) {
          delta[j] = Math.log(pi[j]) + lb;
          continue;
        }
        let best = -Infinity;
        let arg = 0;
        for (let i = 0; i < K; i++) {
          const v = delta[(t - 1) * K + i] + logA[i * K + j];
          if (v > best) {
            best = v;
            arg = i;
          }
        }
        delta[t * K + j] = best + lb;
        back[t * K + j] = arg;
      }
    }
    let j = 0;
    for (let k = 1; k < K; k++) if (delta[(n - 1) * K + k] > delta[(n - 1) * K + j]) j = k;
    for (let t = n - 1; t >= 0; t--) {
      for (const { doc, from } of sent.at) {
        results[doc].tags[from + t] = labels[j];
        results[doc].confidence[from + t] = alpha[t * K + j] * beta[t * K + j];
      }
      if (t > 0) j = back[t * K + j];
    }
  }
  return results;
}

function normalize(a: Float64Array, from: number, len: number): void {
  let z = 0;
  for (let k = from; k < from + len; k++) z += a[k];
  if (!z) return;
  for (let k = from; k < from + len; k++) a[k] /= z;
}
