/**
 * Checks on the reference data that run twice: on the committed fixtures in `npm test`, and on
 * the whole files in `npm run test:data`. Each takes the folder and the counts it must find there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseConll, writeConll } from '../core/formats/conll';
import { parseGazetteerTsv, parseUntypedList, writeGazetteerTsv } from '../core/formats/gazetteer';
import { parseLines, writeLinesLabels, writeLinesText } from '../core/formats/lines';
import { scoreSpans } from '../core/metrics';

const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
const layer = { kind: 'gold' as const, name: 'gold' };

/** bc5cdr dev.conll parses and writes back exactly, text and structure. */
export function conllRoundTrip(dir: string, sentences: number): void {
  const text = read(dir, 'bc5cdr/dev.conll');
  const c = parseConll(text, { file: 'dev.conll', scheme: 'BIO', split: 'dev', layer });
  expect(c.docs).toHaveLength(sentences);
  expect(c.types).toEqual(['Chemical', 'Disease']);
  const out = writeConll(c.docs, c.layers[0].annotations, 'BIO');
  expect(out.trimEnd()).toBe(text.trimEnd());
  const again = parseConll(out, { file: 'x', scheme: 'BIO', split: 'dev', layer });
  expect(again.layers[0].annotations).toEqual(c.layers[0].annotations);
  expect(again.docs.map((d) => d.text)).toEqual(c.docs.map((d) => d.text));
}

/** conll03 train text with its gold and distant label files round-trips through the line format. */
export function linesRoundTrip(dir: string, sentences: number): void {
  const text = read(dir, 'conll03-distant/train_text.txt');
  const labels = [
    { file: 'train_label_true.txt', text: read(dir, 'conll03-distant/train_label_true.txt'), kind: 'gold' as const, name: 'gold' },
    { file: 'train_label_dist.txt', text: read(dir, 'conll03-distant/train_label_dist.txt'), kind: 'weak' as const, name: 'distant' },
  ];
  const c = parseLines({ file: 'train_text.txt', text }, labels, { scheme: 'BIO', split: 'train' });
  expect(c.docs).toHaveLength(sentences);
  expect(c.types).toEqual(['LOC', 'MISC', 'ORG', 'PER']);
  const again = parseLines(
    { file: 't', text: writeLinesText(c.docs) },
    c.layers.map((l) => ({ file: l.name, text: writeLinesLabels(c.docs, l.annotations, 'BIO'), kind: l.kind, name: l.name })),
    { scheme: 'BIO', split: 'train' },
  );
  expect(again.docs).toEqual(c.docs.map((d) => ({ ...d, name: d.name.replace('train_text.txt', 't') })));
  expect(again.layers).toEqual(c.layers);
  // The gold file is canonical BIO, so its export equals it line for line.
  expect(
    writeLinesLabels(c.docs, c.layers[0].annotations, 'BIO')
      .split('\n')
      .map((l) => l.trim()),
  ).toEqual(labels[0].text.split('\n').map((l) => l.trim()));
}

/** bc5cdr's typed and untyped dictionaries read, and the typed one writes back as TSV. */
export function gazetteers(dir: string, core: number, full: number): void {
  const c = parseGazetteerTsv(read(dir, 'bc5cdr/dict_core.txt'), 'dict_core.txt');
  expect(c.entries).toHaveLength(core);
  expect(new Set(c.entries.map((e) => e.type))).toEqual(new Set(['Chemical', 'Disease']));
  expect(parseGazetteerTsv(writeGazetteerTsv(c.entries), 'x').entries).toEqual(c.entries);
  expect(parseUntypedList(read(dir, 'bc5cdr/dict_full_train.txt'), 'dict_full_train.txt').entries).toHaveLength(full);
}

/**
 * The span metric on conll03's distant labels against its gold labels (train), against counts
 * from conlleval: [tp, fp, fn] and P / R / F1 to two places.
 */
export function conllevalAgreement(dir: string, sentences: number, counts: [number, number, number], prf: [string, string, string]): void {
  const corpus = parseLines(
    { file: 'train_text.txt', text: read(dir, 'conll03-distant/train_text.txt') },
    [
      { file: 'train_label_true.txt', text: read(dir, 'conll03-distant/train_label_true.txt'), kind: 'gold', name: 'gold' },
      { file: 'train_label_dist.txt', text: read(dir, 'conll03-distant/train_label_dist.txt'), kind: 'weak', name: 'distant' },
    ],
    { scheme: 'BIO', split: 'train' },
  );
  expect(corpus.docs).toHaveLength(sentences);
  const [gold, dist] = corpus.layers.map((l) => l.annotations.map((a) => a.spans));
  const s = scoreSpans(gold, dist).overall;
  expect([s.tp, s.fp, s.fn]).toEqual(counts);
  expect([s.precision, s.recall, s.f1].map((x) => (100 * x).toFixed(2))).toEqual(prf);
}
