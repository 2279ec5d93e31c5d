/**
 * Data for bench/configs/gold-ceiling.json: what the suite's model reaches when its training labels
 * are gold instead of weak, on about as many sentences as the weak setting trains on. twitter and
 * bc5cdr have no gold training labels, so their gold-labelled dev sets are split: the first part
 * trains, the rest selects (early stopping, the O shift); test stays test. Written under
 * bench/out/ceiling/ (ignored), from the data folder.
 *
 *   npx tsx bench/ceiling-data.ts [--data DIR]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFolder } from '../src/cli/dataFolder';

const args = process.argv.slice(2);
const at = args.indexOf('--data');
const data = dataFolder(at >= 0 ? args[at + 1] : undefined);
const out = new URL('./out/ceiling/', import.meta.url).pathname;

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim());

/** One corpus's split: its first `cut` sentences (text and BIO tags) train, the rest select. */
function writeSplit(dir: string, text: readonly string[], labels: readonly string[], cut: number) {
  if (text.length !== labels.length) throw new Error(`${dir} dev: text and labels differ in length`);
  mkdirSync(join(out, dir), { recursive: true });
  const put = (name: string, rows: readonly string[]) => writeFileSync(join(out, dir, name), `${rows.join('\n')}\n`);
  put('train_text.txt', text.slice(0, cut));
  put('train_label.txt', labels.slice(0, cut));
  put('dev_text.txt', text.slice(cut));
  put('dev_label.txt', labels.slice(cut));
}

/** twitter: 999 dev tweets; the first 700 train, the last 299 select. */
writeSplit('twitter', lines(join(data, 'twitter-distant/valid_text.txt')), lines(join(data, 'twitter-distant/valid_label_true.txt')), 700);

/** bc5cdr: dev.conll's 6,653 sentences (abstracts kept together); the first 5,000 train, the rest select. */
{
  const sentences: { words: string[]; tags: string[] }[] = [];
  let cur = { words: [] as string[], tags: [] as string[] };
  for (const line of readFileSync(join(data, 'bc5cdr/dev.conll'), 'utf8').split('\n')) {
    if (!line.trim()) {
      if (cur.words.length) sentences.push(cur);
      cur = { words: [], tags: [] };
      continue;
    }
    const [w, t] = line.split('\t');
    cur.words.push(w);
    cur.tags.push(t);
  }
  if (cur.words.length) sentences.push(cur);
  writeSplit(
    'bc5cdr',
    sentences.map((s) => s.words.join(' ')),
    sentences.map((s) => s.tags.join(' ')),
    5000,
  );
}
console.log(JSON.stringify({ ok: true, out }));
