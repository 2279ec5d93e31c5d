import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ParsedGazetteer } from '../core/formats/gazetteer';
import { decodeText } from '../core/formats/text';
import { guessCorpusFormat, parseCorpusImport, parseGazetteerFile, type CorpusFormat, type GazetteerFormat } from '../core/formats/importSpec';
import type { LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';

export type { CorpusFormat, GazetteerFormat };

/**
 * A user's text file, as the page reads one (decodeText): UTF-8 without the byte-order mark a
 * Windows editor writes, which would otherwise join the first token, tag or type; any other
 * encoding an error that names the file and line.
 */
export function readText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: no such file (paths are relative to the working directory, ${process.cwd()})`);
    if (code === 'EISDIR') throw new Error(`${file}: a folder, not a file`);
    throw e;
  }
  return decodeText(bytes, file);
}

/** A user's JSON file, parsed; an error names the file. */
export function readJson(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: invalid JSON (${(e as Error).message})`);
  }
}

const named = (file: string) => ({ file: basename(file), text: readText(file) });

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
