import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseConll } from '../core/formats/conll';
import { parseGazetteerTsv, parsePatternsJsonl, parseUntypedList, type ParsedGazetteer } from '../core/formats/gazetteer';
import { parseJsonl, parsePlainText } from '../core/formats/jsonl';
import { parseLines } from '../core/formats/lines';
import type { LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';

export type CorpusFormat = 'conll' | 'lines' | 'jsonl' | 'text';
export type GazetteerFormat = 'tsv' | 'untyped' | 'patterns';

/** The format a file's name suggests. */
export function guessCorpusFormat(file: string): CorpusFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.conll' || ext === '.bio' || ext === '.iob') return 'conll';
  if (ext === '.jsonl') return 'jsonl';
  return 'lines';
}

export function readCorpus(
  file: string,
  opt: { format?: CorpusFormat; labels?: { file: string; kind: LayerKind; name: string }[]; scheme?: TagScheme; split?: Split; layer?: { kind: LayerKind; name: string } },
): ParsedCorpus {
  const text = readFileSync(file, 'utf8');
  const name = basename(file);
  const scheme = opt.scheme ?? 'BIO';
  const split = opt.split ?? 'train';
  const layer = opt.layer ?? { kind: 'gold', name: 'gold' };
  switch (opt.format ?? guessCorpusFormat(file)) {
    case 'conll':
      return parseConll(text, { file: name, scheme, split, layer });
    case 'jsonl':
      return parseJsonl(text, { file: name, split, layer });
    case 'text':
      return parsePlainText(text, { file: name, split });
    case 'lines':
      return parseLines(
        { file: name, text },
        (opt.labels ?? []).map((l) => ({ ...l, file: basename(l.file), text: readFileSync(l.file, 'utf8') })),
        { scheme, split },
      );
  }
}

export function readGazetteer(file: string, format: GazetteerFormat): ParsedGazetteer {
  const text = readFileSync(file, 'utf8');
  const name = basename(file);
  if (format === 'tsv') return parseGazetteerTsv(text, name);
  if (format === 'untyped') return parseUntypedList(text, name);
  return parsePatternsJsonl(text, name);
}
