/**
 * A trained token tagger as one file: what `train --out` writes and a run's page downloads, and
 * what `predict` and `eval` read. Beside the weights and vocabularies it carries how to make the
 * token features its model reads beyond words (`inputs`): the dictionary, the recipe of the weak
 * labels, the starter model's groups. So a model trained in the browser labels new text on the
 * command line as it labeled the project's documents.
 */
import type { Lexicon } from './lexicon';
import { parseRunConfig, type RunConfig } from './runConfig';
import type { AbbreviationOptions } from './weak/abbreviations';
import type { AggregateMethod } from './weak/aggregate';
import type { WeakGazetteer } from './weak/pipeline';
import type { Rule } from './weak/rules';

export const MODEL_FORMAT = 'ner-studio-model/1';

/** One variable's values: as numbers (`train --out`) or float32 little-endian base64 (a download from the studio). */
export type FileWeight = { shape: number[]; data: number[] } | { shape: number[]; base64: string };

export interface ModelFile {
  format: typeof MODEL_FORMAT;
  config: RunConfig;
  tags: string[];
  chars: [string, number][];
  oov: [string, number][];
  /** The O shift the model decodes with (absent in files written before it existed: 0). */
  oShift?: number;
  /** The shift per entity type the model decodes with (train.typeShifts; absent: none). */
  typeShifts?: Record<string, number>;
  weights: Record<string, FileWeight>;
  /** An ensemble's members, decoded as one (the first member's weights are also `weights`); absent: one model. */
  members?: { weights: Record<string, FileWeight>; oShift: number }[];
  /** The token features beyond words the model reads, and how to make them on new text; absent: words only. */
  inputs?: ModelInputs;
  /** Where a downloaded model came from: the project, the run, when. */
  provenance?: Record<string, string>;
}

/**
 * The model's feature groups (Featurizer.lexicon) and how to make each on new text: the
 * dictionary's matches, then the weak labels' spans, then the starter model's spans.
 */
export interface ModelInputs {
  groups: string[];
  /** The dictionary the first groups read (its types are those groups). */
  lexicon?: Lexicon;
  /** The weak labels the next groups read, made on new text from the project's sources. */
  weak?: WeakRecipe;
  /** The starter model's types, whose spans the last groups read (the studio's asset, public/models/). */
  starter?: string[];
}

/** How a project made its weak labels: its sources and label model, as the Weak labels page ran them last. */
export interface WeakRecipe {
  /** The types the weak-label groups read, in their order (the run's). */
  types: string[];
  /** The project's types, which the label model labels. */
  labelTypes: string[];
  gazetteers: WeakGazetteer[];
  rules: { rule: Rule; priority: number }[];
  stop?: string[];
  method: AggregateMethod;
  typeUntyped: boolean;
  /** The weak labels' own abbreviations option (the Weak labels page's). */
  abbreviations?: AbbreviationOptions;
  /** The run's model.abbreviations, read into the weak labels after them. */
  readAbbreviations?: AbbreviationOptions;
  /** The HMM as fitted on the project's text; absent: it is fitted on the text being labeled. */
  hmm?: { types: string[]; sources: string[]; pi: number[]; A: number[]; E: number[] };
}

/** A model file's JSON, checked: a clear error names the file and what is wrong. */
export function checkModelFile(raw: unknown, where: string): ModelFile {
  const m = raw as ModelFile;
  if (m?.format !== MODEL_FORMAT)
    throw new Error(`${where}: not a model file written by "train --out" or downloaded from a run's page (format ${String(m?.format)})`);
  for (const [k, w] of Object.entries(m.weights ?? {})) {
    const n = w.shape.reduce((x, y) => x * y, 1);
    const have = 'base64' in w ? (Math.floor((w.base64.length * 3) / 4) - (w.base64.match(/=*$/)?.[0].length ?? 0)) / 4 : w.data.length;
    if (have !== n) throw new Error(`${where}: weight ${k} holds ${have} values for shape [${w.shape.join(', ')}] (${n} expected)`);
  }
  // Its config is a run config (its model's shape), and its tags a tag scheme's, before anything is stored or built from them.
  parseRunConfig(m.config, `${where}: config`);
  if (!Array.isArray(m.tags) || !m.tags.includes('O') || m.tags.some((t) => t !== 'O' && !/^[BI]-./.test(t)))
    throw new Error(`${where}: tags must be O and B-/I- tags, not ${JSON.stringify(m.tags)}`);
  const groups = m.inputs?.groups ?? [];
  const made = (m.inputs?.lexicon?.types.length ?? 0) + (m.inputs?.weak?.types.length ?? 0) + (m.inputs?.starter?.length ?? 0);
  if (made !== groups.length) throw new Error(`${where}: the model reads ${groups.length} feature groups, and the file says how to make ${made} of them`);
  return m;
}

/** Float32 values from little-endian base64 (in the browser and in Node alike). */
export function decodeFloat32(base64: string): Float32Array {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

/** A file's weights as a tagger takes them: float32 values per variable. */
export function fileWeights(w: Record<string, FileWeight>): Record<string, { shape: number[]; data: Float32Array }> {
  return Object.fromEntries(
    Object.entries(w).map(([k, v]) => [k, { shape: v.shape, data: 'base64' in v ? decodeFloat32(v.base64) : Float32Array.from(v.data) }]),
  );
}

/** Float32 values as little-endian base64 (in the browser and in Node alike). */
export function encodeFloat32(f: Float32Array): string {
  const bytes = new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}
