import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first `n` lines of a conll03-distant file, written into `dir`: real data, small enough for a test. */
export function conllHead(file: string, n: number, dir: string): string {
  const out = join(dir, file);
  writeFileSync(out, readFileSync(`../shared/data/conll03-distant/${file}`, 'utf8').split('\n').slice(0, n).join('\n') + '\n');
  return out;
}
