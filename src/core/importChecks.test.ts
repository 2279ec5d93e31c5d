import { describe, expect, it } from 'vitest';
import { parseConll } from './formats/conll';
import { parsePlainText } from './formats/jsonl';
import { importChecks } from './importChecks';

const layer = { kind: 'gold' as const, name: 'gold' };

describe('checks before an import is stored', () => {
  it('name the types a project does not have', () => {
    const c = parseConll('John B-PER\nfoo B-FOO\n', { file: 'a.conll', scheme: 'BIO', split: 'train', layer });
    expect(importChecks(c, ['PER', 'LOC'])).toEqual(['type "FOO" is not among this project\'s types (PER, LOC): importing adds it']);
    // A project with no types yet takes the file's without asking.
    expect(importChecks(c, [])).toEqual([]);
  });

  it('flag a huge token and undecodable bytes, saying where', () => {
    const line = parsePlainText('x'.repeat(8000), { file: 'one-line.txt', split: 'train' });
    expect(importChecks(line, [])).toEqual([
      '1 token is longer than 64 characters (the longest, 8,000 characters, in one-line.txt): is the text tokenized, or is this file text at all?',
    ]);
    const junk = parsePlainText('ok \uFFFD\uFFFD and \uFFFD', { file: 'junk.bin', split: 'train' });
    expect(importChecks(junk, [])).toEqual([
      '3 characters are \uFFFD, the mark a converter leaves where text failed to decode (first in junk.bin): was the text intact when it was saved?',
    ]);
  });
});
