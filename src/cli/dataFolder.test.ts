import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_FOLDER, dataFolder, missingFilesError, resolveDataPaths } from './dataFolder';

describe('the data folder setting', () => {
  const saved = process.env.NER_STUDIO_DATA;
  afterEach(() => {
    if (saved === undefined) delete process.env.NER_STUDIO_DATA;
    else process.env.NER_STUDIO_DATA = saved;
  });

  // Only the setting's precedence, as paths: nothing here reads the data folder, which a fresh
  // clone does not have.
  it('is --data, else NER_STUDIO_DATA, else a data folder beside the project', () => {
    process.env.NER_STUDIO_DATA = '/tmp/from-env';
    expect(dataFolder('/tmp/from-flag')).toBe('/tmp/from-flag');
    expect(dataFolder()).toBe('/tmp/from-env');
    delete process.env.NER_STUDIO_DATA;
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(dataFolder()).toBe(resolve(root, '..', DEFAULT_DATA_FOLDER));
  });

  it('resolves $data/ paths in the data folder and the others from the config folder, and lists the missing', () => {
    const root = mkdtempSync(join(tmpdir(), 'studio-paths-'));
    mkdirSync(join(root, 'data', 'c'), { recursive: true });
    mkdirSync(join(root, 'configs'));
    writeFileSync(join(root, 'data', 'c', 'train.txt'), 'a\n');
    writeFileSync(join(root, 'configs', 'rules.json'), '[]');
    const missing: { written: string; path: string }[] = [];
    const out = resolveDataPaths(
      [{ name: 'x', kind: 'dictionary', corpus: '$data/c/train.txt', rules: 'rules.json', gazetteers: ['$data/c/nope.tsv'], dev: { conll: '/abs/dev.conll' } }],
      join(root, 'configs'),
      join(root, 'data'),
      missing,
    );
    expect(out[0]).toEqual({
      name: 'x',
      kind: 'dictionary',
      corpus: join(root, 'data/c/train.txt'),
      rules: join(root, 'configs/rules.json'),
      gazetteers: [join(root, 'data/c/nope.tsv')],
      dev: { conll: '/abs/dev.conll' },
    });
    expect(missing.map((m) => m.written)).toEqual(['$data/c/nope.tsv', '/abs/dev.conll']);
    const err = missingFilesError('exp.json', missing, join(root, 'data'));
    expect(err.message).toContain(`exp.json: 2 files not found: ${join(root, 'data/c/nope.tsv')} (written "$data/c/nope.tsv")`);
    expect(err.message).toContain('give --data DIR or set NER_STUDIO_DATA');
  });
});
