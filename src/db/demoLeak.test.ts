/**
 * The demo's dictionaries may come only from what a user would have before labeling dev or test:
 * its training text, or the published core dictionary. An earlier demo took its untyped list from
 * phrases of bc5cdr's full untyped list found in its dev and test text, and that list was made from
 * the test annotations (the data folder's README says so), so its weak labels and its model scored
 * the answers. This test reads only the committed demo asset.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DemoAsset } from './demo';

const demo = JSON.parse(readFileSync(new URL('../../public/demo/bc5cdr-demo.json', import.meta.url), 'utf8')) as DemoAsset;
/** sha256 of bc5cdr's dict_core.txt as published in the AutoNER repository's data folder. */
const DICT_CORE_SHA256 = 'f4bd86f3a708ff289f03172d57e8d4bcd0627fe544f9659de0793b0445466f54';

/** A split's text as " tok tok ... " lower-cased, sentences joined, so " phrase " finds whole-token matches. */
function splitText(split: string): string {
  const texts = demo.corpora.filter((c) => c.split === split).map((c) => (c.format === 'conll' ? c.text.replace(/\t\S+/g, '') : c.text));
  return ` ${texts.join(' ').replace(/\s+/g, ' ').toLowerCase()} `;
}
const phrases = (text: string, typed: boolean) =>
  text
    .split('\n')
    .map((l) => (typed ? l.split('\t')[1] : l)?.trim().toLowerCase())
    .filter((p): p is string => !!p);

describe('the demo project', () => {
  const train = splitText('train');
  const heldOut = `${splitText('dev')}${splitText('test')}`;

  it('takes every untyped dictionary entry from its training text', () => {
    const untyped = demo.gazetteers.filter((g) => g.format === 'untyped');
    expect(untyped.length).toBeGreaterThan(0);
    for (const g of untyped) {
      const leaked = phrases(g.text, false).filter((p) => !train.includes(` ${p} `));
      expect(leaked, `${g.file}: entries not in the training text`).toEqual([]);
    }
  });

  it('has no dictionary entry that occurs only in dev or test text, except the published core dictionary', () => {
    for (const g of demo.gazetteers) {
      const onlyHeldOut = phrases(g.text, g.format === 'tsv').filter((p) => heldOut.includes(` ${p} `) && !train.includes(` ${p} `));
      if (!onlyHeldOut.length) continue;
      // A real dictionary names things the training text does not; only the published one may.
      expect(createHash('sha256').update(g.text).digest('hex'), `${g.file}: ${onlyHeldOut.length} entries only in dev or test text`).toBe(DICT_CORE_SHA256);
    }
  });
});
