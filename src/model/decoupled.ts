/**
 * The decoupled mention / context model (paper 004, Hu et al.) on the studio's own encoders.
 *
 * A candidate region of a sentence is read twice: the mention encoder sees the region's tokens
 * alone (word, casing and character features), and its states are mean-pooled into h_m; the
 * context encoder sees the sentence with the whole region replaced by one [MASK] token, and its
 * state at that position is h_c, so no mention token reaches it. A global classifier on
 * [h_m; h_c] and two auxiliary classifiers on h_m and h_c are trained together on human labels,
 * L = L_g + α·L_m + β·L_c (Eq. 10). Before that, the mention encoder can be pre-trained on
 * dictionary entries as type classification (with O examples: words and phrases of the text that
 * no dictionary entry contains), and the context encoder on distantly labeled sentences with two
 * tasks at once: the type of the masked region (O regions sampled too) and the masked words
 * (a bag-of-words softmax over the text's most frequent words from the one [MASK] state). The
 * encoders are one shared BiLSTM (the paper shares its BERTs) or two. Pre-training heads are kept
 * apart from the unified ones, as in the paper.
 */
import { mulberry32 } from '../core/random';
import type { Span } from '../core/types';
import { param, type Params } from './encoders';
import { buildLmVocab, type LmVocab } from './lm';
import { featureDims, makeBatch, type Featurizer } from './features';
import { trainStep } from './loop';
import { dense } from './ops';
import { batchTensors, Tagger, type BatchTensors, type TaggerConfig, type Weights } from './tagger';
import { chunkByBudget, MAX_BATCH_TOKENS } from './train';
import * as tf from './tf';

export const MASK = '[MASK]';

/** A region of a sentence and its class (0 = O, k = the k-th type). */
export interface Region {
  start: number;
  end: number;
  label: number;
}

/** The context encoder's input: the sentence with [start, end) replaced by one [MASK] at `at`. */
export function maskedContext(words: readonly string[], start: number, end: number): { words: string[]; at: number } {
  if (start < 0 || end > words.length || start >= end) throw new Error(`region [${start}, ${end}) is not inside a sentence of ${words.length} tokens`);
  return { words: [...words.slice(0, start), MASK, ...words.slice(end)], at: start };
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'and',
  'or',
  'in',
  'on',
  'at',
  'to',
  'for',
  'with',
  'by',
  'from',
  'as',
  'is',
  'was',
  'are',
  'were',
  'be',
  'been',
  'that',
  'this',
  'which',
  'who',
  "'s",
  'than',
  'but',
  'not',
  'it',
  'its',
]);
const PUNCT = /^[\p{P}\p{S}]+$/u;
/** Inside a region, punctuation that names carry (hyphens, slashes, periods, apostrophes, ampersands). */
const INNER = /^[-./'&]+$/;

/** The cheap filter: no stop word or punctuation at either edge, no other punctuation inside. */
export function passesFilter(words: readonly string[], start: number, end: number): boolean {
  const edge = (w: string) => !STOP.has(w.toLowerCase()) && !PUNCT.test(w);
  if (!edge(words[start]) || !edge(words[end - 1])) return false;
  for (let t = start + 1; t < end - 1; t++) if (PUNCT.test(words[t]) && !INNER.test(words[t])) return false;
  return true;
}

/** Dictionary phrases by their lower-cased token sequence, with the longest length. */
export interface PhraseIndex {
  phrases: Map<string, number>;
  maxLength: number;
}

export function phraseIndex(entries: readonly { words: readonly string[]; label: number }[]): PhraseIndex {
  const phrases = new Map<string, number>();
  let maxLength = 0;
  for (const e of entries) {
    phrases.set(e.words.join(' ').toLowerCase(), e.label);
    maxLength = Math.max(maxLength, e.words.length);
  }
  return { phrases, maxLength };
}

/**
 * Candidate regions of a sentence: every span up to `maxLength` tokens that passes the cheap
 * filter, every dictionary match (any length up to the longest entry, 10 at most), and any
 * proposed spans (a token model's predictions, the weak layer). Sorted, without repeats.
 */
export function candidates(words: readonly string[], maxLength: number, dict?: PhraseIndex, proposals: readonly Span[] = []): [number, number][] {
  const seen = new Set<number>();
  const out: [number, number][] = [];
  const n = words.length;
  const add = (a: number, b: number) => {
    const key = a * 4096 + b;
    if (!seen.has(key)) seen.add(key), out.push([a, b]);
  };
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b <= Math.min(n, a + maxLength); b++) if (passesFilter(words, a, b)) add(a, b);
    if (dict)
      for (let b = a + 1; b <= Math.min(n, a + Math.min(dict.maxLength, 10)); b++) if (dict.phrases.has(words.slice(a, b).join(' ').toLowerCase())) add(a, b);
  }
  for (const s of proposals) if (s.start >= 0 && s.end <= n && s.start < s.end) add(s.start, s.end);
  return out.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
}

/** Keeps the most probable non-O regions that do not overlap, best first. */
export function decodeRegions(
  scored: readonly { start: number; end: number; label: number; p: number }[],
): { start: number; end: number; label: number; p: number }[] {
  const taken: { start: number; end: number; label: number; p: number }[] = [];
  for (const r of [...scored].filter((x) => x.label > 0).sort((x, y) => y.p - x.p || x.start - y.start)) {
    if (taken.every((t) => r.end <= t.start || t.end <= r.start)) taken.push(r);
  }
  return taken.sort((x, y) => x.start - y.start);
}

export interface DecoupledOptions {
  /** Weights of the mention and context classifiers' losses (Eq. 10). */
  alpha: number;
  beta: number;
  /** One encoder for mentions and contexts (the paper's choice) or two. */
  shared: boolean;
  /** Size of the masked-word vocabulary of context pre-training. */
  vocab: number;
}

export interface RegionExample {
  words: readonly string[];
  start: number;
  end: number;
  label: number;
}

let models = 0;

export class DecoupledModel {
  readonly params: Params = Object.assign(new Map<string, tf.Variable>(), { prefix: `decoupled${++models}/` });
  readonly mention: Tagger;
  readonly context: Tagger;
  lmVocab: LmVocab | null = null;

  constructor(
    readonly cfg: TaggerConfig,
    readonly feat: Featurizer,
    /** 'O' then the entity types. */
    readonly classes: string[],
    readonly opts: DecoupledOptions,
    readonly seed: number,
  ) {
    if (!feat.oov.has(MASK.toLowerCase())) throw new Error(`the featurizer needs a trainable vector for ${MASK}: build it with decoupledFeaturizerWords`);
    const tc = { ...cfg, head: 'softmax' as const, angle: false };
    const dims = { ...featureDims(feat), tags: 2 };
    this.mention = new Tagger(tc, dims, seed);
    this.context = opts.shared ? this.mention : new Tagger(tc, dims, seed + 101);
  }

  /** Encoder variables (each encoder's own output layer is unused here and left out). */
  encoderVars(which: 'mention' | 'context' | 'both'): tf.Variable[] {
    const of = (t: Tagger) => [...t.params].filter(([k]) => !k.startsWith('out/') && !k.startsWith('crf/')).map(([, v]) => v);
    const ts = which === 'both' || this.opts.shared ? [this.mention, this.context] : [which === 'mention' ? this.mention : this.context];
    return [...new Set(ts.flatMap(of))];
  }

  /** The unified training's heads (global, mention, context), in the order they were made. */
  unifiedHeadVars(): tf.Variable[] {
    return [...this.params].filter(([k]) => /^(global|mention|context)\//.test(k)).map(([, v]) => v);
  }

  private head(name: string, x: tf.Tensor2D, out: number, seed: number): tf.Tensor2D {
    const H = x.shape[1];
    const w = param(this.params, `${name}/w`, () =>
      tf.randomUniform([H, out], -Math.sqrt(6 / (H + out)), Math.sqrt(6 / (H + out)), 'float32', this.seed * 31 + seed),
    );
    const b = param(this.params, `${name}/b`, () => tf.zeros([out]));
    return dense(x, w, b) as tf.Tensor2D;
  }

  /** h_m [N, H]: the mention encoder's states over the region's tokens alone, mean-pooled. */
  mentionVectors(regions: readonly RegionExample[], training: boolean, step: number): tf.Tensor2D {
    const batch = makeBatch(
      this.feat,
      regions.map((r) => ({ words: r.words.slice(r.start, r.end) })),
    );
    const t = batchTensors(batch, this.mention.dims);
    const h = this.mention.encode(t, training, step);
    const m = tf.expandDims(t.mask, 2);
    return tf.div(tf.sum(tf.mul(h, m), 1), tf.sum(m, 1)) as tf.Tensor2D;
  }

  /** h_c [N, H]: the context encoder's state at the one [MASK] that replaces the region. */
  contextVectors(regions: readonly RegionExample[], training: boolean, step: number): tf.Tensor2D {
    const ctx = regions.map((r) => maskedContext(r.words, r.start, r.end));
    const batch = makeBatch(this.feat, ctx);
    const t = batchTensors(batch, this.context.dims);
    const h = this.context.encode(t, training, step);
    const at = new Float32Array(batch.B * batch.T);
    ctx.forEach((c, b) => (at[b * batch.T + c.at] = 1));
    return tf.sum(tf.mul(h, tf.expandDims(tf.tensor2d(at, [batch.B, batch.T]), 2)), 1) as tf.Tensor2D;
  }

  /**
   * The same h_c as contextVectors, at inference, from one encoder pass per distinct sentence
   * plus one LSTM step per region (the BiLSTM's state at the [MASK] depends on the left tokens
   * forward and the right tokens backward only); other encoders fall back to contextVectors.
   */
  contextVectorsFast(regions: readonly RegionExample[], training = false, step = 0): tf.Tensor2D {
    if (this.cfg.encoder !== 'bilstm') return this.contextVectors(regions, training, step);
    const { batch, triples } = this.sentenceBatch(regions);
    return this.context.insertedStates(batch, this.maskToken(), triples, training, step);
  }

  /** The distinct sentences of the regions as one batch, and each region as [sentence, start, end). */
  private sentenceBatch(regions: readonly RegionExample[]): {
    sentences: (readonly string[])[];
    batch: BatchTensors;
    triples: (readonly [number, number, number])[];
  } {
    const sentences: (readonly string[])[] = [];
    const index = new Map<readonly string[], number>();
    const triples = regions.map((r) => {
      let k = index.get(r.words);
      if (k === undefined) index.set(r.words, (k = sentences.push(r.words) - 1));
      return [k, r.start, r.end] as const;
    });
    return {
      sentences,
      batch: batchTensors(
        makeBatch(
          this.feat,
          sentences.map((words) => ({ words })),
        ),
        this.context.dims,
      ),
      triples,
    };
  }

  private maskToken(): BatchTensors {
    return batchTensors(makeBatch(this.feat, [{ words: [MASK] }]), this.context.dims);
  }

  /**
   * h_m and h_c at inference from one input pass per distinct sentence: a token's inputs (word
   * vector, casing, characters) do not depend on its neighbours. And the mention encoder runs once
   * per region start forward and once per region end backward, not once per region: its forward
   * state at a token of [a, b) depends on the tokens from a on only, its backward state on those up
   * to b − 1 only, so one forward run from a serves every region starting at a (by prefix sums of
   * its states) and one backward run ending at b every region ending at b. Equal to mentionVectors
   * and contextVectorsFast without dropout (BiLSTM encoders).
   */
  private inferenceVectors(regions: readonly RegionExample[]): { hm: tf.Tensor2D; hc: tf.Tensor2D } {
    const { sentences, batch, triples } = this.sentenceBatch(regions);
    const [B, T] = batch.mask.shape;
    const xc = this.context.inputs(batch, false, 0);
    const xm = this.opts.shared ? xc : this.mention.inputs(batch, false, 0);
    const L = Math.max(1, ...regions.map((r) => r.end - r.start));
    const D = xm.shape[2];
    const flat = tf.reshape(xm, [B * T, D]);
    // Rows of at most L tokens: from each region start on (forward), up to each region end (backward).
    const side = (reverse: boolean) => {
      const rows = new Map<number, number>();
      const rowOf = triples.map(([k, a, b]) => {
        const key = k * (T + 1) + (reverse ? b : a);
        if (!rows.has(key)) rows.set(key, rows.size);
        return rows.get(key)!;
      });
      const R = rows.size;
      const idx = new Int32Array(R * L);
      const mask = new Float32Array(R * L);
      const first = new Int32Array(R);
      for (const [key, row] of rows) {
        const k = Math.floor(key / (T + 1));
        const at = key % (T + 1);
        const from = reverse ? Math.max(0, at - L) : at;
        const to = reverse ? at : Math.min(sentences[k].length, at + L);
        first[row] = from;
        for (let t = from; t < to; t++) (idx[row * L + t - from] = k * T + t), (mask[row * L + t - from] = 1);
      }
      const x = tf.reshape(tf.gather(flat, tf.tensor1d(idx, 'int32')), [R, L, D]) as tf.Tensor3D;
      const h = this.mention.directionStates(x, tf.tensor2d(mask, [R, L]), reverse);
      // Prefix sums of the states from the run's start: from the left forward, from the right backward.
      const sums = tf.reshape(tf.cumsum(h, 1, false, reverse), [R * L, -1]);
      const pick = new Int32Array(triples.length);
      triples.forEach(([, a, b], r) => (pick[r] = rowOf[r] * L + (reverse ? a - first[rowOf[r]] : b - 1 - a)));
      return tf.gather(sums, tf.tensor1d(pick, 'int32')) as tf.Tensor2D;
    };
    const n = tf.tensor2d(
      triples.map(([, a, b]) => b - a),
      [triples.length, 1],
    );
    const hm = tf.div(tf.concat([side(false), side(true)], 1), n) as tf.Tensor2D;
    const hc = this.context.insertedStates(batch, this.maskToken(), triples, false, 0, xc);
    return { hm, hc };
  }

  private ce(logits: tf.Tensor2D, labels: readonly number[]): tf.Scalar {
    const target = tf.oneHot(tf.tensor1d(labels as number[], 'int32'), logits.shape[1]);
    return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), target), 1))) as tf.Scalar;
  }

  /** Unified training (Eq. 5–10): L_g + α·L_m + β·L_c, each a cross entropy over the classes. */
  unifiedLosses(regions: readonly RegionExample[], training: boolean, step: number): { total: tf.Scalar; g: tf.Scalar; m: tf.Scalar; c: tf.Scalar } {
    const C = this.classes.length;
    const hm = this.mentionVectors(regions, training, step);
    const hc = this.contextVectorsFast(regions, training, step);
    const labels = regions.map((r) => r.label);
    const g = this.ce(this.head('global', tf.concat([hm, hc], 1) as tf.Tensor2D, C, 1), labels);
    const m = this.ce(this.head('mention', hm, C, 2), labels);
    const c = this.ce(this.head('context', hc, C, 3), labels);
    return { total: tf.addN([g, tf.mul(m, this.opts.alpha), tf.mul(c, this.opts.beta)]) as tf.Scalar, g, m, c };
  }

  /** Mention pre-training: the type of a dictionary phrase (or O) from the phrase alone. */
  mentionPretrainLoss(regions: readonly RegionExample[], step: number): tf.Scalar {
    return this.ce(
      this.head('mention-pre', this.mentionVectors(regions, true, step), this.classes.length, 4),
      regions.map((r) => r.label),
    );
  }

  /**
   * Context pre-training on distant labels: the type of the masked region (O regions included)
   * and its words, as a bag-of-words softmax from the one [MASK] state (mean NLL of its words).
   */
  contextPretrainLoss(regions: readonly RegionExample[], step: number): tf.Scalar {
    if (!this.lmVocab) throw new Error('context pre-training needs a vocabulary: call setVocab first');
    const hc = this.contextVectorsFast(regions, true, step);
    const type = this.ce(
      this.head('context-pre', hc, this.classes.length, 5),
      regions.map((r) => r.label),
    );
    const V = this.lmVocab.words.length;
    const bag = new Float32Array(regions.length * V);
    regions.forEach((r, i) => {
      const n = r.end - r.start;
      for (let t = r.start; t < r.end; t++) bag[i * V + (this.lmVocab!.index.get(r.words[t].toLowerCase()) ?? 0)] += 1 / n;
    });
    const words = tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(this.head('mlm', hc, V, 6)), tf.tensor2d(bag, [regions.length, V])), 1)));
    return tf.add(type, words) as tf.Scalar;
  }

  setVocab(sentences: readonly (readonly string[])[]): void {
    this.lmVocab = buildLmVocab(sentences, this.opts.vocab);
  }

  /** Class probabilities [N, C] of the global classifier. */
  async classify(regions: readonly RegionExample[]): Promise<Float32Array> {
    const p = tf.tidy(() => {
      const { hm, hc } =
        this.cfg.encoder === 'bilstm'
          ? this.inferenceVectors(regions)
          : { hm: this.mentionVectors(regions, false, 0), hc: this.contextVectors(regions, false, 0) };
      return tf.softmax(this.head('global', tf.concat([hm, hc], 1) as tf.Tensor2D, this.classes.length, 1));
    });
    const data = (await p.data()) as Float32Array;
    p.dispose();
    return data;
  }

  /** Spans per sentence: every candidate classified, the best non-overlapping entities kept. */
  async predict(
    sentences: readonly { words: readonly string[] }[],
    cands: readonly (readonly [number, number][])[],
    oShift = 0,
    batchSize = 256,
    onProgress?: (done: number) => void,
  ): Promise<Span[][]> {
    return this.decode(await this.candidateProbs(sentences, cands, batchSize, onProgress), cands, oShift);
  }

  /** Each sentence's candidates' class probabilities, [candidates × classes] row-major. */
  async candidateProbs(
    sentences: readonly { words: readonly string[] }[],
    cands: readonly (readonly [number, number][])[],
    batchSize = 256,
    onProgress?: (done: number) => void,
  ): Promise<Float32Array[]> {
    const C = this.classes.length;
    const flat: (RegionExample & { s: number; k: number })[] = [];
    sentences.forEach((x, s) => cands[s].forEach(([start, end], k) => flat.push({ words: x.words, start, end, label: 0, s, k })));
    // Batches of similar sentence length pad less; a sentence's regions stay together (one encoder pass each).
    flat.sort((a, b) => a.words.length - b.words.length || a.s - b.s || a.end - a.start - (b.end - b.start));
    const out = cands.map((c) => new Float32Array(c.length * C));
    for (let i = 0; i < flat.length; i += batchSize) {
      const part = flat.slice(i, i + batchSize);
      const p = await this.classify(part);
      part.forEach((r, j) => out[r.s].set(p.subarray(j * C, (j + 1) * C), r.k * C));
      onProgress?.(Math.min(flat.length, i + batchSize) / Math.max(1, flat.length));
      await new Promise<void>((r) => setTimeout(r, 0));
    }
    return out;
  }

  /**
   * Spans from candidate probabilities with O's log-probability shifted by oShift (renormalized):
   * each candidate's most probable class, the best non-overlapping entities kept.
   */
  decode(probs: readonly Float32Array[], cands: readonly (readonly [number, number][])[], oShift = 0): Span[][] {
    const C = this.classes.length;
    const w = Math.exp(oShift);
    return probs.map((p, s) => {
      const scored = cands[s].map(([start, end], j) => {
        const o = p[j * C] * w;
        let best = 0;
        let top = o;
        for (let k = 1; k < C; k++) if (p[j * C + k] > top) (best = k), (top = p[j * C + k]);
        return { start, end, label: best, p: top / (o + 1 - p[j * C]) };
      });
      return decodeRegions(scored).map((r) => ({ start: r.start, end: r.end, label: this.classes[r.label] }));
    });
  }

  /**
   * One optimization pass over examples in length-bucketed batches: Adam with global-norm clipping
   * on the given variables (the heads the loss creates are added after its first call).
   */
  async fit(
    examples: readonly RegionExample[],
    loss: (batch: readonly RegionExample[], step: number) => tf.Scalar,
    vars: tf.Variable[],
    o: { optimizer: tf.Optimizer; batchSize: number; clip: number; seed: number; step: number; control?: () => 'go' | 'stop' | 'cancel' },
  ): Promise<{ loss: number; steps: number; tokens: number; stopped: boolean }> {
    const rand = mulberry32(o.seed);
    // Regions of one sentence share a batch where they can (one encoder pass reads them all).
    const jitter = new Map<readonly string[], number>();
    const key = (e: RegionExample) => jitter.get(e.words) ?? (jitter.set(e.words, e.words.length + 3 * rand()), jitter.get(e.words)!);
    const order = examples
      .map((e, k) => [key(e), k] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, k]) => k);
    const batches = chunkByBudget(order, (k) => examples[k].words.length, o.batchSize, MAX_BATCH_TOKENS);
    for (let i = batches.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [batches[i], batches[j]] = [batches[j], batches[i]];
    }
    let sum = 0;
    let tokens = 0;
    let step = o.step;
    const headNames = new Set(this.params.keys());
    for (const idx of batches) {
      if (o.control && o.control() !== 'go') return { loss: sum / Math.max(1, examples.length), steps: step - o.step, tokens, stopped: true };
      const batch = idx.map((k) => examples[k]);
      if (this.params.size > headNames.size || step === o.step) {
        // The loss's heads exist after its first call: make them, then train them too.
        tf.tidy(() => loss(batch.slice(0, 1), step)).dispose();
        for (const [k, v] of this.params) if (!headNames.has(k)) headNames.add(k), vars.includes(v) || vars.push(v);
      }
      const at = step;
      sum += (await trainStep(o.optimizer, vars, o.clip, () => loss(batch, at))) * batch.length;
      tokens += batch.reduce((a, r) => a + r.words.length + (r.end - r.start), 0);
      step++;
      await new Promise<void>((r) => setTimeout(r, 0));
    }
    return { loss: sum / Math.max(1, examples.length), steps: step - o.step, tokens, stopped: false };
  }

  async getWeights(): Promise<Weights> {
    const all: (readonly [string, tf.Variable])[] = [...this.params].map(([k, v]) => [`head:${k}`, v] as const);
    all.push(...[...this.mention.params].map(([k, v]) => [`mention:${k}`, v] as const));
    if (!this.opts.shared) all.push(...[...this.context.params].map(([k, v]) => [`context:${k}`, v] as const));
    const entries = await Promise.all(all.map(async ([k, v]) => [k, { shape: v.shape, data: new Float32Array(await v.data()) }] as const));
    return Object.fromEntries(entries);
  }

  setWeights(w: Weights): void {
    const set = (prefix: string, params: Params) => {
      for (const [k, v] of params) {
        const src = w[`${prefix}:${k}`];
        if (src) tf.tidy(() => v.assign(tf.tensor(src.data, src.shape)));
      }
    };
    // Heads are made at first use: a model restored from a checkpoint makes them from it, in order.
    for (const [k, v] of Object.entries(w))
      if (k.startsWith('head:') && !this.params.has(k.slice(5))) param(this.params, k.slice(5), () => tf.tensor(v.data, v.shape));
    set('head', this.params);
    set('mention', this.mention.params);
    if (!this.opts.shared) set('context', this.context.params);
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
    this.mention.dispose();
    if (!this.opts.shared) this.context.dispose();
  }
}

/** Words to build the featurizer from, so that [MASK] gets a trainable vector of its own. */
export function decoupledFeaturizerWords(sentences: readonly (readonly string[])[]): (readonly string[])[] {
  return [...sentences, [MASK, MASK]];
}
