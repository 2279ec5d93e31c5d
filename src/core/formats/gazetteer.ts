import { z } from 'zod';
import { InputError } from '../errors';
import type { TokenPattern } from '../weak/tokenPattern';
import { compileTokenPattern, tokenPatternSchema } from '../weak/tokenPattern';
import { jsonLines, lines } from './build';

/** A gazetteer entry: a phrase (tokens separated by spaces) and its type, or null when untyped. */
export interface GazetteerEntry {
  phrase: string;
  type: string | null;
}

export interface ParsedGazetteer {
  entries: GazetteerEntry[];
  /** Token patterns found in a pattern JSONL file; they become rules, not entries. */
  patterns: { label: string; pattern: TokenPattern; line: number }[];
}

function normalizePhrase(p: string): string {
  return p.trim().split(/\s+/).join(' ');
}

/** TSV, type<TAB>phrase a line. */
export function parseGazetteerTsv(text: string, file: string): ParsedGazetteer {
  const entries: GazetteerEntry[] = [];
  lines(text).forEach((raw, i) => {
    if (!raw.trim()) return;
    const tab = raw.indexOf('\t');
    if (tab < 0) throw new InputError({ file, line: i + 1 }, 'no type: expected type<TAB>phrase');
    const type = raw.slice(0, tab).trim();
    const phrase = normalizePhrase(raw.slice(tab + 1));
    if (!type) throw new InputError({ file, line: i + 1 }, 'empty type before the tab');
    if (!phrase) throw new InputError({ file, line: i + 1 }, 'empty phrase after the tab');
    entries.push({ phrase, type });
  });
  if (!entries.length) throw new InputError({ file }, 'no entries found');
  return { entries, patterns: [] };
}

/** An untyped list, one phrase a line: "entity of unknown type" (AutoNER's unknown spans). */
export function parseUntypedList(text: string, file: string): ParsedGazetteer {
  const entries: GazetteerEntry[] = [];
  lines(text).forEach((raw) => {
    const phrase = normalizePhrase(raw);
    if (phrase) entries.push({ phrase, type: null });
  });
  if (!entries.length) throw new InputError({ file }, 'no entries found');
  return { entries, patterns: [] };
}

const patternLine = z.object({ label: z.string().min(1), pattern: z.union([z.string(), tokenPatternSchema]), id: z.string().optional() });

/** spaCy / Prodigy patterns: {"label", "pattern": "phrase"} or {"label", "pattern": [{"lower": ...}]}. */
export function parsePatternsJsonl(text: string, file: string): ParsedGazetteer {
  const entries: GazetteerEntry[] = [];
  const patterns: ParsedGazetteer['patterns'] = [];
  for (const { record, line } of jsonLines(text, file, patternLine)) {
    if (typeof record.pattern === 'string') {
      const phrase = normalizePhrase(record.pattern);
      if (!phrase) throw new InputError({ file, line }, 'empty phrase');
      entries.push({ phrase, type: record.label });
    } else {
      // A token pattern becomes a rule: refused here, with its line, if it would be refused there.
      try {
        compileTokenPattern(record.pattern);
      } catch (e) {
        throw new InputError({ file, line }, (e as Error).message);
      }
      patterns.push({ label: record.label, pattern: record.pattern, line });
    }
  }
  if (!entries.length && !patterns.length) throw new InputError({ file }, 'no patterns found');
  return { entries, patterns };
}

export function writeGazetteerTsv(entries: readonly GazetteerEntry[]): string {
  return `${entries.map((e) => (e.type === null ? e.phrase : `${e.type}\t${e.phrase}`)).join('\n')}\n`;
}
