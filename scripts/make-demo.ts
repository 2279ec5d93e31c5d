/**
 * Builds the demo project asset, public/demo/bc5cdr-demo.json, from ../shared/data/bc5cdr:
 * the first sentences of the raw training text (unlabeled), dev and test slices with gold labels,
 * the typed dictionary (dict_core.txt, the published core dictionary), the untyped phrases of
 * dict_full_train.txt that occur in the demo's training sentences, and starter rules.
 *
 * Only the training text may choose dictionary phrases: an earlier demo took its untyped list
 * from the full untyped list's phrases found in its dev and test text too, and that list was made
 * from the test annotations (the data folder's README), so its figures measured the answers.
 * src/db/demoLeak.test.ts fails if an untyped entry does not occur in the training text.
 * The output is committed (a fresh machine has no shared/ folder); re-run after changing this.
 * `--train N --out FILE` writes a candidate demo with another number of training sentences
 * elsewhere (bench/configs/demo-train-size.json measures candidates so, before one ships).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const DATA = new URL('../../shared/data/bc5cdr/', import.meta.url);
const read = (f: string) => readFileSync(new URL(f, DATA), 'utf8');
const { values: args } = parseArgs({ options: { train: { type: 'string' }, out: { type: 'string' } } });
const TRAIN = args.train === undefined ? 600 : Number(args.train);
if (!Number.isInteger(TRAIN) || TRAIN < 1) throw new Error(`--train ${args.train}: not a positive whole number of sentences`);
const DEV = 300;
const TEST = 600;

function conllSlice(text: string, n: number): string {
  return `${text.split(/\n\n/).slice(0, n).join('\n\n').trimEnd()}\n`;
}

const train = `${read('train_raw.txt').split('\n').slice(0, TRAIN).join('\n')}\n`;
const dev = conllSlice(read('dev.conll'), DEV);
const test = conllSlice(read('test.conll'), TEST);
const trainText = ` ${train.replace(/\s+/g, ' ').toLowerCase()} `;
const untyped = `${read('dict_full_train.txt')
  .split('\n')
  .filter((p) => p.trim() && trainText.includes(` ${p.trim().toLowerCase()} `))
  .join('\n')}\n`;
const rules = JSON.parse(readFileSync(new URL('../bench/configs/bc5cdr-rules.json', import.meta.url), 'utf8'));

const demo = {
  name: 'BC5CDR demo',
  description: `${TRAIN} unlabeled training sentences, ${DEV} dev and ${TEST} test sentences with gold labels from BioCreative V CDR; its chemical and disease dictionary, and the untyped names of a larger list that occur in its training text.`,
  types: ['Chemical', 'Disease'],
  corpora: [
    { file: 'train_raw.txt', format: 'lines', split: 'train', text: train },
    { file: 'dev.conll', format: 'conll', split: 'dev', text: dev },
    { file: 'test.conll', format: 'conll', split: 'test', text: test },
  ],
  gazetteers: [
    { file: 'dict_core.txt', format: 'tsv', mode: 'insensitive', text: read('dict_core.txt') },
    { file: 'chemicals and diseases (training-text phrases).txt', format: 'untyped', mode: 'insensitive', text: untyped },
  ],
  rules,
};
const out = args.out ? path.resolve(args.out) : new URL('../public/demo/bc5cdr-demo.json', import.meta.url).pathname;
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(demo));
console.log(JSON.stringify({ ok: true, file: out, bytes: JSON.stringify(demo).length }));
