import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ParsedGazetteer } from '../core/formats/gazetteer';
import { guessCorpusFormat, parseCorpusImport, parseGazetteerFile, type CorpusFormat, type GazetteerFormat } from '../core/formats/importSpec';
import type { LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';

export type { CorpusFormat, GazetteerFormat };

const named = (file: string) => ({ file: basename(file), text: readFileSync(file, 'utf8') });

export function readCorpus(
  file: string,
  opt: { format?: CorpusFormat; labels?: { file: string; kind: LayerKind; name: string }[]; scheme?: TagScheme; split?: Split },
): ParsedCorpus {
  return parseCorpusImport({
    format: opt.format ?? guessCorpusFormat(file),
    split: opt.split ?? 'train',
    scheme: opt.scheme ?? 'BIO',
    files: [named(file)],
    labels: (opt.labels ?? []).map((l) => ({ ...l, ...named(l.file) })),
  });
}

export function readGazetteer(file: string, format: GazetteerFormat): ParsedGazetteer {
  return parseGazetteerFile(format, named(file));
}
