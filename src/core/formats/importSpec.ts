import { InputError } from '../errors';
import { parseConll } from './conll';
import { parseGazetteerTsv, parsePatternsJsonl, parseUntypedList, type ParsedGazetteer } from './gazetteer';
import { parseJsonl, parsePlainText } from './jsonl';
import { parseLines } from './lines';
import type { LayerKind, ParsedCorpus, Split, TagScheme } from '../types';

export type CorpusFormat = 'conll' | 'lines' | 'jsonl' | 'text';
export const CORPUS_FORMATS: readonly CorpusFormat[] = ['conll', 'lines', 'jsonl', 'text'];
export type GazetteerFormat = 'tsv' | 'untyped' | 'patterns';
export const GAZETTEER_FORMATS: readonly GazetteerFormat[] = ['tsv', 'untyped', 'patterns'];

export interface NamedText {
  file: string;
  text: string;
}

/** What an import asks for, whatever reads the files (the page, the worker, the CLI). */
export interface CorpusImport {
  format: CorpusFormat;
  split: Split;
  scheme: TagScheme;
  /** The main file(s): for 'text', several files make several documents. */
  files: NamedText[];
  /** For 'lines': parallel label files. */
  labels?: (NamedText & { kind: LayerKind; name: string })[];
  layer?: { kind: LayerKind; name: string };
}

export function parseCorpusImport(spec: CorpusImport): ParsedCorpus {
  const layer = spec.layer ?? { kind: 'gold' as const, name: 'gold' };
  if (!spec.files.length) throw new InputError({}, 'no file chosen');
  const parts = spec.files.map((f): ParsedCorpus => {
    switch (spec.format) {
      case 'conll':
        return parseConll(f.text, { file: f.file, scheme: spec.scheme, split: spec.split, layer });
      case 'jsonl':
        return parseJsonl(f.text, { file: f.file, split: spec.split, layer });
      case 'text':
        return parsePlainText(f.text, { file: f.file, split: spec.split });
      case 'lines':
        return parseLines(f, spec.labels ?? [], { scheme: spec.scheme, split: spec.split });
    }
  });
  if (parts.length === 1) return parts[0];
  // Several files: concatenate documents; layers line up by name, with empty annotations where absent.
  const docs = parts.flatMap((p) => p.docs);
  const names = [...new Set(parts.flatMap((p) => p.layers.map((l) => `${l.kind}\u0000${l.name}`)))];
  const layers = names.map((key) => {
    const [kind, name] = key.split('\u0000') as [LayerKind, string];
    return {
      kind,
      name,
      annotations: parts.flatMap(
        (p) =>
          p.layers.find((l) => l.kind === kind && l.name === name)?.annotations ?? p.docs.map(() => ({ spans: [], oMode: 'partial' as const, oTokens: [] })),
      ),
    };
  });
  const warnings = parts.flatMap((p) => p.warnings ?? []);
  return { docs, layers, types: [...new Set(parts.flatMap((p) => p.types))].sort(), ...(warnings.length ? { warnings } : {}) };
}

export function parseGazetteerFile(format: GazetteerFormat, f: NamedText): ParsedGazetteer {
  if (format === 'tsv') return parseGazetteerTsv(f.text, f.file);
  if (format === 'untyped') return parseUntypedList(f.text, f.file);
  return parsePatternsJsonl(f.text, f.file);
}

/** The format a file name suggests. */
export function guessCorpusFormat(file: string): CorpusFormat {
  const ext = file.toLowerCase().split('.').pop() ?? '';
  if (['conll', 'bio', 'iob', 'tsv'].includes(ext)) return 'conll';
  if (ext === 'jsonl') return 'jsonl';
  return 'lines';
}
