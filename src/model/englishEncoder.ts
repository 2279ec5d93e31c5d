/**
 * An encoder pre-trained once on general English text (issue 45's "prior that travels"): the
 * tagger's character-aware BiLSTM trained as a bidirectional language model on the Brown corpus
 * (scripts/build-english-encoder.ts), shipped as an asset any project can start from.
 *
 * A project's model differs from the asset's in what depends on the project: its character table
 * (the characters its text uses), the rows of the BiLSTM's input weights that read dictionary
 * features, and the trainable vectors of words GloVe lacks. `adaptEncoder` carries over what the
 * two share: the character vectors of the characters both know, the character CNN, the BiLSTM's
 * recurrent weights and biases, and the input weights' rows for the word vector and the character
 * CNN (the inputs are concatenated in that order, dictionary features last: Tagger.inputs); the
 * rest starts fresh, drawn as the model draws it.
 */
import { mulberry32 } from '../core/random';
import type { ModelConfig } from '../core/runConfig';
import { checkPacked, decodeFloat32, type PackedWeights } from './packedWeights';
import { type Featurizer, featureDims } from './features';
import type { Weights } from './tagger';

export const ENCODER_FORMAT = 'ner-studio-encoder/1';

export interface EncoderAsset {
  format: typeof ENCODER_FORMAT;
  provenance: Record<string, string>;
  /**
   * The model shape it was trained with: a project's model must share the sizes. `spelling` says
   * whether words GloVe lacks read spelled vectors then; a model that spells them (the training
   * page's default) still starts from it, those words' inputs being new to it as a project's
   * dictionary features are.
   */
  model: Pick<ModelConfig, 'encoder' | 'hidden' | 'charDim' | 'charFilters' | 'spelling'>;
  /** The word input's width (GloVe, casing, absent-from-GloVe flag). */
  wordDims: number;
  /** Its character table: [character, row] (rows 0 and 1: padding and unknown). */
  chars: [string, number][];
  /** Float32, little-endian, base64 per variable; no head, no trainable word vectors. */
  weights: PackedWeights;
}

/** The asset as read, checked: a clear error names what is wrong. */
export function parseEncoderAsset(raw: unknown, where: string): EncoderAsset {
  const a = raw as Partial<EncoderAsset> | null;
  if (!a || a.format !== ENCODER_FORMAT) throw new Error(`${where}: not an encoder asset (format ${String(a?.format)}, expected ${ENCODER_FORMAT})`);
  if (!a.model || !a.chars || !a.weights || typeof a.wordDims !== 'number')
    throw new Error(`${where}: an encoder asset needs model, wordDims, chars and weights`);
  checkPacked(a.weights, where);
  return a as EncoderAsset;
}

/** Why a project's model cannot start from the asset, or null when it can. */
export function encoderMismatch(a: EncoderAsset, model: ModelConfig, feat: Featurizer): string | null {
  const want = a.model;
  for (const k of ['encoder', 'hidden', 'charDim', 'charFilters'] as const)
    if (model[k] !== want[k]) return `the model's ${k} is ${String(model[k])}, the encoder's ${String(want[k])}`;
  const dims = featureDims(feat);
  if (dims.word !== a.wordDims) return `the word vectors are ${dims.word} wide, the encoder's ${a.wordDims}`;
  return null;
}

/** A seeded uniform draw in [-r, r]: the fresh part of an adapted weight. */
function uniform(n: number, r: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  return Float32Array.from({ length: n }, () => (2 * rand() - 1) * r);
}

/**
 * The asset's weights shaped for a project's model: what both share carried over (see the file's
 * note), the rest drawn fresh with `seed`. Throws when the shapes cannot meet (encoderMismatch).
 */
export function adaptEncoder(a: EncoderAsset, model: ModelConfig, feat: Featurizer, seed: number): { weights: Weights; chars: number; inputRows: number } {
  const why = encoderMismatch(a, model, feat);
  if (why) throw new Error(`the English encoder does not fit this model: ${why}`);
  const dims = featureDims(feat);
  const out: Weights = {};
  let charsKnown = 0;
  let inputRows = 0;
  for (const [name, v] of Object.entries(a.weights)) {
    const data = decodeFloat32(v.base64);
    if (name === 'char/emb') {
      // Rows by character: padding and unknown, then each character both tables hold.
      const dim = v.shape[1];
      const table = uniform(dims.chars * dim, Math.sqrt(3 / dim), seed);
      const from = new Map(a.chars);
      table.set(data.subarray(0, 2 * dim));
      for (const [ch, row] of feat.chars) {
        const src = from.get(ch);
        if (src === undefined) continue;
        table.set(data.subarray(src * dim, (src + 1) * dim), row * dim);
        charsKnown++;
      }
      out[name] = { shape: [dims.chars, dim], data: table };
    } else if (name === 'lstm/fw/wx' || name === 'lstm/bw/wx') {
      // Input rows: the word vector and the character CNN's, as trained; dictionary features' rows fresh.
      const [rows, cols] = v.shape;
      const D = rows + dims.lex;
      const w = uniform(D * cols, Math.sqrt(6 / (D + cols)), seed + (name === 'lstm/fw/wx' ? 1 : 2));
      w.set(data);
      out[name] = { shape: [D, cols], data: w };
      inputRows = rows;
    } else out[name] = { shape: v.shape, data };
  }
  return { weights: out, chars: charsKnown, inputRows };
}
