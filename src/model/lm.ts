/**
 * A bidirectional language model on the tagger's own encoder, for NEEDLE's Stage I (continual
 * pre-training on the project's unlabeled text) and RoSTER's augmentation (words proposed by a
 * language model from both sides of a position).
 *
 * The BiLSTM's forward states predict the next word and its backward states the previous word
 * (ELMo-style), over a vocabulary of the most frequent lower-cased words of the text. A position
 * t is never predicted from a state that has read it, so nothing leaks. ID-CNN states see both
 * sides and cannot be trained this way.
 */
import { mulberry32 } from '../core/random';
import { param, type Params } from './encoders';
import type { ModelConfig } from '../core/runConfig';
import { batchTensors, Tagger, type Weights } from './tagger';
import { featureDims, makeBatch, type Featurizer } from './features';
import { trainLoop, trainStep } from './loop';
import { dense } from './ops';
import * as tf from './tf';
import { chunkByBudget, MAX_BATCH_TOKENS } from './train';

/** The language model's words: id 0 stands for every other word. */
export interface LmVocab {
  words: string[];
  index: Map<string, number>;
}

export function buildLmVocab(sentences: readonly (readonly string[])[], size: number): LmVocab {
  const counts = new Map<string, number>();
  for (const s of sentences) for (const w of s) counts.set(w.toLowerCase(), (counts.get(w.toLowerCase()) ?? 0) + 1);
  const words = [
    '<other>',
    ...[...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, size - 1)
      .map(([w]) => w),
  ];
  return { words, index: new Map(words.map((w, k) => [w, k])) };
}

let lms = 0;

/**
 * Elements of one [B, T, V] tensor a language-model batch may make. The word heads' log
 * probabilities over the vocabulary, with their one-hot targets and gradients, outgrow the
 * encoder's tape: bc5cdr's longest sentences, 32 to a batch (about 4,800 padded tokens), ran at
 * 5,000 words and aborted the WASM heap at 10,000 (NEEDLE's Stage I default).
 */
export const LM_BATCH_ELEMENTS = 16_000_000;

/** Padded tokens (sentences × longest) a language-model batch may hold over a vocabulary of `v` words. */
export function lmBatchTokens(v: number): number {
  return Math.max(64, Math.min(MAX_BATCH_TOKENS, Math.floor(LM_BATCH_ELEMENTS / v)));
}

/** A language model on a fresh tagger of `model` (seeded), its vocabulary the `vocab` most frequent words of `text`. */
export function newLanguageModel(
  model: ModelConfig,
  feat: Featurizer,
  text: readonly { words: readonly string[] }[],
  vocab: number,
  seed: number,
): LanguageModel {
  return new LanguageModel(
    new Tagger(model, featureDims(feat), seed),
    feat,
    buildLmVocab(
      text.map((s) => s.words),
      vocab,
    ),
  );
}

/**
 * A project's pre-trained encoder as the language model it was trained as: its encoder weights on
 * a fresh tagger of `model` and its word heads over its vocabulary. Throws when the encoder does
 * not fit the model (a weight it has that the model lacks, or of another shape).
 */
export function encoderLanguageModel(
  model: ModelConfig,
  feat: Featurizer,
  encoder: Weights,
  lm: { words: readonly string[]; heads: Weights },
  seed: number,
): LanguageModel {
  const tagger = new Tagger({ ...model, head: 'softmax' }, featureDims(feat), seed);
  const taken = tagger.loadEncoder(encoder);
  if (taken !== Object.keys(encoder).length) {
    tagger.dispose();
    throw new Error(`the pre-trained encoder does not fit this model (${taken} of its ${Object.keys(encoder).length} weights match): pre-train it again`);
  }
  const words = [...lm.words];
  const m = new LanguageModel(tagger, feat, { words, index: new Map(words.map((w, k) => [w, k])) });
  m.setHeads(lm.heads);
  return m;
}

export class LanguageModel {
  readonly params: Params = Object.assign(new Map<string, tf.Variable>(), { prefix: `lm${++lms}/` });

  constructor(
    readonly tagger: Tagger,
    readonly feat: Featurizer,
    readonly vocab: LmVocab,
  ) {
    if (tagger.cfg.encoder !== 'bilstm')
      throw new Error(`the language model needs the BiLSTM encoder (an ${tagger.cfg.encoder} sees both sides of every word)`);
  }

  /** Next-word (forward) and previous-word (backward) log probabilities, each [B, T, V]. */
  logProbs(b: ReturnType<typeof batchTensors>, training: boolean, step: number): { fw: tf.Tensor3D; bw: tf.Tensor3D } {
    const h = this.tagger.encode(b, training, step);
    const [B, T, H2] = h.shape;
    const H = H2 / 2;
    const V = this.vocab.words.length;
    const head = (name: string, x: tf.Tensor3D, seed: number) => {
      const w = param(this.params, `${name}/w`, () => tf.randomUniform([H, V], -Math.sqrt(6 / (H + V)), Math.sqrt(6 / (H + V)), 'float32', seed));
      const bias = param(this.params, `${name}/b`, () => tf.zeros([V]));
      return tf.logSoftmax(dense(x, w, bias)) as tf.Tensor3D;
    };
    return { fw: head('fw', tf.slice(h, [0, 0, 0], [B, T, H]), 31), bw: head('bw', tf.slice(h, [0, 0, H], [B, T, H]), 37) };
  }

  ids(words: readonly string[]): number[] {
    return words.map((w) => this.vocab.index.get(w.toLowerCase()) ?? 0);
  }

  /** The encoder's and the two word heads' weights (a run's store keeps a trained model). */
  async getWeights(): Promise<{ encoder: Weights; heads: Weights }> {
    return { encoder: await this.tagger.getWeights(), heads: await this.getHeads() };
  }

  setWeights(w: { encoder: Weights; heads: Weights }): void {
    this.tagger.setWeights(w.encoder);
    this.setHeads(w.heads);
  }

  /** The two word heads' weights alone (what a pre-trained encoder keeps besides the encoder). */
  async getHeads(): Promise<Weights> {
    const heads = await Promise.all([...this.params].map(async ([k, v]) => [k, { shape: v.shape, data: new Float32Array(await v.data()) }] as const));
    return Object.fromEntries(heads);
  }

  setHeads(heads: Weights): void {
    for (const [k, v] of Object.entries(heads)) {
      const existing = this.params.get(k);
      if (existing) tf.tidy(() => existing.assign(tf.tensor(v.data, v.shape)));
      else param(this.params, k, () => tf.tensor(v.data, v.shape));
    }
  }

  /** Consecutive runs of `order` of at most `size` sentences and lmBatchTokens(V) padded tokens. */
  batches(order: readonly number[], sentences: readonly { words: readonly string[] }[], size: number): number[][] {
    return chunkByBudget(order, (k) => sentences[k].words.length, size, lmBatchTokens(this.vocab.words.length));
  }

  /** Mean negative log-likelihood of the next and previous words over a batch (of sentences of two words or more, as `pretrain` gives it). */
  loss(sentences: readonly { words: readonly string[] }[], training: boolean, step: number): tf.Scalar {
    const batch = makeBatch(this.feat, sentences);
    const { B, T } = batch;
    const V = this.vocab.words.length;
    const tensors = batchTensors(batch, this.tagger.dims);
    const { fw, bw } = this.logProbs(tensors, training, step);
    const ids = new Int32Array(B * T);
    sentences.forEach((s, b) => this.ids(s.words).forEach((id, t) => (ids[b * T + t] = id)));
    const target = tf.oneHot(tf.tensor2d(ids, [B, T], 'int32'), V);
    const pairMask = tf.slice(tensors.mask, [0, 1], [B, T - 1]);
    // Forward state at t predicts word t + 1; backward state at t + 1 predicts word t.
    const fwLl = tf.sum(tf.mul(tf.slice(fw, [0, 0, 0], [B, T - 1, V]), tf.cast(tf.slice(target, [0, 1, 0], [B, T - 1, V]), 'float32')), 2);
    const bwLl = tf.sum(tf.mul(tf.slice(bw, [0, 1, 0], [B, T - 1, V]), tf.cast(tf.slice(target, [0, 0, 0], [B, T - 1, V]), 'float32')), 2);
    const n = tf.maximum(tf.sum(pairMask), 1);
    return tf.neg(tf.div(tf.sum(tf.mul(tf.add(fwLl, bwLl), pairMask)), tf.mul(n, 2))) as tf.Scalar;
  }

  /**
   * Trains the encoder (and the two word heads) on raw sentences of two words or more: Adam with
   * global-norm clipping, length-bucketed batches. Returns the mean loss of each epoch.
   */
  async pretrain(
    all: readonly { words: readonly string[] }[],
    o: {
      epochs: number;
      batchSize: number;
      lr: number;
      clip: number;
      seed: number;
      onEpoch?: (epoch: number, loss: number) => void;
      /** Within an epoch, at most every `progressSeconds` (10 by default): the batch done and the running mean loss. */
      onProgress?: (epoch: number, batch: number, batches: number, loss: number) => void;
      progressSeconds?: number;
      /** Asked before every batch: true stops the training with LmStopped. */
      shouldStop?: () => boolean | Promise<boolean>;
    },
  ): Promise<number[]> {
    // A one-word sentence has no word pair to predict; batched by length, enough of them (CoNLL's
    // one-token lines) made a batch with no loss at all.
    const sentences = all.filter((s) => s.words.length >= 2);
    if (!sentences.length) throw new Error('language model: no sentence of two words or more to learn from');
    const vars = [...this.tagger.params.values()];
    tf.tidy(() => this.loss(sentences.slice(0, 1), false, 0)).dispose(); // creates the heads' variables
    vars.push(...this.params.values());
    let lastProgress = performance.now();
    // The one training loop, with no dev score: every epoch runs.
    const loop = await trainLoop<{ epoch: number; loss: number }>({
      epochs: o.epochs,
      lr: o.lr,
      vars,
      getWeights: async () => ({}),
      setWeights: () => {},
      epoch: async (epoch, first, optimizer) => {
        const rand = mulberry32(o.seed * 1_000_003 + epoch);
        const order = sentences
          .map((s, k) => [s.words.length + 2 * rand(), k] as const)
          .sort((a, b) => a[0] - b[0])
          .map(([, k]) => k);
        const batches = this.batches(order, sentences, o.batchSize);
        let sum = 0;
        let seen = 0;
        let done = 0;
        let step = first;
        for (const idx of batches) {
          if (o.shouldStop && (await o.shouldStop())) return { loss: 0, steps: step - first, stopped: 'stopped' };
          const at = step;
          const value = await trainStep(optimizer, vars, o.clip, () =>
            this.loss(
              idx.map((k) => sentences[k]),
              true,
              at,
            ),
          );
          sum += value * idx.length;
          seen += idx.length;
          step++;
          if (o.onProgress && performance.now() - lastProgress > (o.progressSeconds ?? 10) * 1000) {
            lastProgress = performance.now();
            o.onProgress(epoch, ++done, batches.length, sum / seen);
          } else done++;
          await new Promise<void>((r) => setTimeout(r, 0));
        }
        return { loss: sum / sentences.length, steps: step - first };
      },
      record: async (epoch, loss) => ({ record: { epoch, loss } }),
      onEpoch: (h) => o.onEpoch?.(h.epoch, h.loss),
    });
    if (loop.stopped === 'stopped') throw new LmStopped();
    return loop.history.map((h) => h.loss);
  }

  /**
   * RoSTER's augmentation (Eq. 7) with this model in place of a masked LM: a share of the words of
   * each sentence replaced by one of the 5 words the two directions score highest for that slot
   * (log p(w | left) + log p(w | right)), never the word itself or the catch-all; the replacement
   * takes the original's capitalization. Labels stay as they were.
   */
  async augment<S extends { words: string[] }>(sentences: readonly S[], rate: number, seed: number, topK = 5): Promise<S[]> {
    const rand = mulberry32(seed);
    const out: S[] = [];
    for (const idx of this.batches(
      sentences.map((_, k) => k),
      sentences,
      32,
    )) {
      const part = idx.map((k) => sentences[k]);
      const batch = makeBatch(this.feat, part);
      const { B, T } = batch;
      const V = this.vocab.words.length;
      const scores = tf.tidy(() => {
        const { fw, bw } = this.logProbs(batchTensors(batch, this.tagger.dims), false, 0);
        // Slot t: the forward state at t − 1 and the backward state at t + 1.
        const left = tf.concat([tf.fill([B, 1, V], 0), tf.slice(fw, [0, 0, 0], [B, T - 1, V])], 1);
        const right = tf.concat([tf.slice(bw, [0, 1, 0], [B, T - 1, V]), tf.fill([B, 1, V], 0)], 1);
        return tf.add(left, right);
      });
      const data = (await scores.data()) as Float32Array;
      scores.dispose();
      part.forEach((s, b) => {
        const words = [...s.words];
        const own = this.ids(words);
        for (let t = 0; t < words.length; t++) {
          if (rand() >= rate) continue;
          const row = data.subarray((b * T + t) * V, (b * T + t + 1) * V);
          const best: number[] = [];
          for (let v = 1; v < V; v++) {
            if (v === own[t]) continue;
            if (best.length < topK) best.push(v);
            else if (row[v] > row[best[best.length - 1]]) best[best.length - 1] = v;
            else continue;
            best.sort((x, y) => row[y] - row[x]);
          }
          if (!best.length) continue;
          words[t] = matchCase(this.vocab.words[best[Math.floor(rand() * best.length)]], words[t]);
        }
        out.push({ ...s, words });
      });
    }
    return out;
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
  }
}

/** The language model's training was stopped (its `shouldStop` said so). */
export class LmStopped extends Error {
  constructor() {
    super('language model training stopped');
  }
}

/** A lower-case word with the capitalization pattern of another: ALL CAPS, Initial, or lower. */
export function matchCase(word: string, like: string): string {
  if (like.length > 1 && like === like.toUpperCase() && like !== like.toLowerCase()) return word.toUpperCase();
  if (like[0] && like[0] !== like[0].toLowerCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}
