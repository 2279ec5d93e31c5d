/**
 * A project's pre-trained encoder: the tagger's own character-aware BiLSTM trained as a
 * bidirectional language model on the project's unlabeled text (NEEDLE's Stage I made a prior of
 * its own, for every method), built once and kept as a project asset; a method's model starts
 * from it instead of from random weights.
 *
 * What carries over: the character CNN, the trainable vectors of words GloVe lacks and the BiLSTM
 * (every weight whose name and shape the method's model shares); the model's head, and inputs the
 * language model never saw (dictionary features), start fresh.
 */
import type { ModelConfig } from '../core/runConfig';
import { featureDims, type Featurizer } from './features';
import { LmStopped, newLanguageModel } from './lm';
import type { Weights } from './tagger';

/** The weights that carry over into a method's model: everything but a head. */
const HEAD = /^(out|crf|span)\//;

export interface EncoderPretraining {
  epochs: number;
  vocab: number;
  batchSize: number;
  lr: number;
  clip: number;
  seed: number;
}

export interface PretrainedEncoder {
  /** What makes an encoder fit a model: see encoderKey. */
  key: string;
  weights: Weights;
  /** Mean language-model loss of each epoch. */
  losses: number[];
  sentences: number;
  tokens: number;
  seconds: number;
  /**
   * The language model's word heads and vocabulary: a method that needs a bidirectional language
   * model (RoSTER's augmentation) uses this one instead of training its own. Absent from encoders
   * kept before it was.
   */
  lm?: EncoderLm;
}

/** A pre-trained encoder's language-model part: the next- and previous-word heads over `words`. */
export interface EncoderLm {
  words: string[];
  heads: Weights;
}

/**
 * A run's pre-training settings: its model's epochs and vocabulary, its batch size, rate and
 * clipping, and seed 1 whatever the run's seed (one encoder serves every seed and method).
 */
export function encoderPretraining(cfg: { model: ModelConfig; train: { batchSize: number; lr: number; clip: number } }): EncoderPretraining {
  return { epochs: cfg.model.pretrain, vocab: cfg.model.pretrainVocab, batchSize: cfg.train.batchSize, lr: cfg.train.lr, clip: cfg.train.clip, seed: 1 };
}

/**
 * The encoder's identity: the model's shape (the encoder's settings and the featurizer's sizes),
 * the pre-training settings and the text's fingerprint. A method's model can start from an
 * encoder with the same key; any other needs a new one.
 */
export function encoderKey(model: ModelConfig, feat: Featurizer, o: EncoderPretraining, textFingerprint: string): string {
  const d = featureDims(feat);
  return JSON.stringify({
    encoder: model.encoder,
    hidden: model.hidden,
    charDim: model.charDim,
    charFilters: model.charFilters,
    dims: [d.word, d.chars, d.oov, d.lex],
    spelling: feat.spelling === true,
    pretrain: [o.epochs, o.vocab, o.batchSize, o.lr, o.clip, o.seed],
    text: textFingerprint,
  });
}

/** A cheap fingerprint of a list of sentences (FNV-1a over the words, and the counts). */
export function textFingerprint(sentences: readonly { words: readonly string[] }[]): string {
  let h = 0x811c9dc5;
  let tokens = 0;
  for (const s of sentences) {
    for (const w of s.words) {
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ 32, 0x01000193);
      tokens++;
    }
    h = Math.imul(h ^ 10, 0x01000193);
  }
  return `${sentences.length}:${tokens}:${(h >>> 0).toString(16)}`;
}

/**
 * Trains the encoder as a language model. `shouldStop` is asked before every batch: true ends the
 * pre-training with no encoder (null).
 */
export async function pretrainEncoder(
  model: ModelConfig,
  feat: Featurizer,
  text: readonly { words: readonly string[] }[],
  o: EncoderPretraining,
  hooks: {
    onEpoch?: (epoch: number, loss: number) => void;
    onProgress?: (epoch: number, batch: number, batches: number, loss: number) => void;
    /** Seconds between progress calls (10 by default). */
    progressSeconds?: number;
    shouldStop?: () => boolean | Promise<boolean>;
  } = {},
): Promise<PretrainedEncoder | null> {
  if (model.encoder !== 'bilstm') throw new Error(`encoder pre-training needs the BiLSTM encoder, not ${model.encoder} (it sees both sides of every word)`);
  const t0 = performance.now();
  // The head does not matter to the language model; a span head's MLP would only cost memory.
  const lm = newLanguageModel({ ...model, head: 'softmax' }, feat, text, o.vocab, o.seed);
  const tagger = lm.tagger;
  try {
    const losses = await lm.pretrain(text, {
      epochs: o.epochs,
      batchSize: o.batchSize,
      lr: o.lr,
      clip: o.clip,
      seed: o.seed,
      onEpoch: hooks.onEpoch,
      onProgress: hooks.onProgress,
      progressSeconds: hooks.progressSeconds,
      shouldStop: hooks.shouldStop,
    });
    const all = await tagger.getWeights();
    const weights = Object.fromEntries(Object.entries(all).filter(([k]) => !HEAD.test(k)));
    return {
      lm: { words: [...lm.vocab.words], heads: await lm.getHeads() },
      key: encoderKey(model, feat, o, textFingerprint(text)),
      weights,
      losses,
      sentences: text.length,
      tokens: text.reduce((a, s) => a + s.words.length, 0),
      seconds: (performance.now() - t0) / 1000,
    };
  } catch (e) {
    if (e instanceof LmStopped) return null;
    throw e;
  } finally {
    lm.dispose();
    tagger.dispose();
  }
}
