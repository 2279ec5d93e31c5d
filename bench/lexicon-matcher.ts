/**
 * Dictionary features' matching speed (core/lexicon.ts lexiconMatcher, the model's input, not the
 * weak labeler's matcher): CoNLL-2003's distant dictionary (the strings its distant labels matched
 * in the training text) matched over every training sentence, with each entry's reliability and
 * without, and split into two sources. `--src DIR` reads lexicon.ts from another checkout (a worktree at an older commit) to
 * compare side by side in one run. The data folder as for the CLI.
 *   npx tsx bench/lexicon-matcher.ts [--src DIR] [--rounds 5]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';

const { values } = parseArgs({ options: { src: { type: 'string', default: '.' }, rounds: { type: 'string', default: '5' } } });
const lex = (await import(resolve(values.src, 'src/core/lexicon.ts'))) as typeof import('../src/core/lexicon');
const d = `${dataFolder()}/conll03-distant/`;
const lines = (f: string) =>
  readFileSync(d + f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(' ').filter(Boolean));
const tags = lines('train_label_dist.txt');
const sentences = lines('train_text.txt').map((words, k) => {
  const t = tags[k];
  const spans: { start: number; end: number; label: string }[] = [];
  for (let i = 0; i < t.length; ) {
    if (!t[i].startsWith('B-')) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < t.length && t[j] === `I-${t[i].slice(2)}`) j++;
    spans.push({ start: i, end: j, label: t[i].slice(2) });
    i = j;
  }
  return { words, spans };
});
const entries = lex.lexiconFromSpans(sentences);
const variants: [string, readonly { words: readonly string[]; type: string | null }[]][] = [['plain', entries]];
if ('entryReliability' in lex) variants.push(['with reliability', lex.entryReliability(entries, sentences)]);
const tokens = sentences.reduce((a, s) => a + s.words.length, 0);
// The same entries as two sources (a match either gives is one feature): the path of a project of several gazetteers.
const half = Math.ceil(entries.length / 2);
const sources = (es: (typeof variants)[number][1]) =>
  name.endsWith('two sources')
    ? [
        { mode: 'sensitive' as const, entries: es.slice(0, half) },
        { mode: 'sensitive' as const, entries: es.slice(half) },
      ]
    : [{ mode: 'sensitive' as const, entries: es }];
let name = '';
for (const [variant, es] of [...variants, ['plain, as two sources', entries] as const]) {
  name = variant;
  const match = lex.lexiconMatcher(lex.makeLexicon(sources(es)));
  let best = Infinity;
  let found = 0;
  for (let r = 0; r < Number(values.rounds); r++) {
    const t0 = performance.now();
    found = 0;
    for (const s of sentences) found += match(s.words).length;
    best = Math.min(best, performance.now() - t0);
  }
  console.log(
    JSON.stringify({
      src: values.src,
      variant,
      entries: es.length,
      sentences: sentences.length,
      tokens,
      matches: found,
      bestMs: +best.toFixed(1),
      tokensPerSecond: Math.round(tokens / (best / 1000)),
    }),
  );
}
