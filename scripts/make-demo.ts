/**
 * Builds the demo project asset, public/demo/bc5cdr-demo.json, from ../shared/data/bc5cdr:
 * the first sentences of the raw training text (unlabeled), dev and test slices with gold labels,
 * the typed dictionary, the untyped phrases that occur in those sentences, and starter rules.
 * The output is committed (a fresh machine has no shared/ folder); re-run after changing this.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const DATA = new URL('../../shared/data/bc5cdr/', import.meta.url);
const read = (f: string) => readFileSync(new URL(f, DATA), 'utf8');
const TRAIN = 300;
const DEV = 150;
const TEST = 150;

function conllSlice(text: string, n: number): string {
  return `${text.split(/\n\n/).slice(0, n).join('\n\n').trimEnd()}\n`;
}

const train = `${read('train_raw.txt').split('\n').slice(0, TRAIN).join('\n')}\n`;
const dev = conllSlice(read('dev.conll'), DEV);
const test = conllSlice(read('test.conll'), TEST);
const demoText = ` ${[train, dev, test].join(' ').replace(/\t\S+/g, '').replace(/\s+/g, ' ').toLowerCase()} `;
const untyped = `${read('dict_full.txt')
  .split('\n')
  .filter((p) => p.trim() && demoText.includes(` ${p.trim().toLowerCase()} `))
  .join('\n')}\n`;
const rules = JSON.parse(readFileSync(new URL('../bench/configs/bc5cdr-rules.json', import.meta.url), 'utf8'));

const demo = {
  name: 'BC5CDR demo',
  description: `${TRAIN} unlabeled training sentences, ${DEV} dev and ${TEST} test sentences with gold labels from BioCreative V CDR; its chemical and disease dictionary.`,
  types: ['Chemical', 'Disease'],
  corpora: [
    { file: 'train_raw.txt', format: 'lines', split: 'train', text: train },
    { file: 'dev.conll', format: 'conll', split: 'dev', text: dev },
    { file: 'test.conll', format: 'conll', split: 'test', text: test },
  ],
  gazetteers: [
    { file: 'dict_core.txt', format: 'tsv', mode: 'insensitive', text: read('dict_core.txt') },
    { file: 'dict_full (demo phrases).txt', format: 'untyped', mode: 'insensitive', text: untyped },
  ],
  rules,
};
mkdirSync(new URL('../public/demo/', import.meta.url), { recursive: true });
const out = new URL('../public/demo/bc5cdr-demo.json', import.meta.url);
writeFileSync(out, JSON.stringify(demo));
console.log(JSON.stringify({ ok: true, file: out.pathname, bytes: JSON.stringify(demo).length }));
