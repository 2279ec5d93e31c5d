import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './data';

/** The first `n` lines of a conll03-distant fixture file, written into `dir`: real data, small enough for a test. */
export function conllHead(file: string, n: number, dir: string): string {
  const lines = readFileSync(join(FIXTURES, 'conll03-distant', file), 'utf8').split('\n');
  if (n > lines.length) throw new Error(`conllHead: ${file} has ${lines.length} lines in the fixtures, ${n} asked`);
  const out = join(dir, file);
  writeFileSync(out, `${lines.slice(0, n).join('\n')}\n`);
  return out;
}
