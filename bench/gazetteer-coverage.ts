/**
 * How much of a distant corpus's dev gold a public gazetteer list covers, and what else it
 * matches: each gold mention of the list's type whose exact string is a list entry (as the studio
 * matches public lists, case-sensitively; and, for comparison, ignoring case and a leading "#"),
 * and the list's case-sensitive matches of 1-3 tokens that are no gold mention of any type.
 * Issue 45: what the brands list can do for twitter's company mentions.
 *
 *   npx tsx bench/gazetteer-coverage.ts [--list brands] [--data DIR]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';
import { publicGazetteerPath, publicPhrases } from '../src/core/publicGazetteers';

const { values } = parseArgs({ options: { list: { type: 'string', default: 'brands' }, data: { type: 'string' } } });
const list = values.list as Parameters<typeof publicGazetteerPath>[0];
const phrases = publicPhrases(readFileSync(new URL(`../public/${publicGazetteerPath(list)}`, import.meta.url), 'utf8')).map((p) => p.join(' '));
const exact = new Set(phrases);
const folded = new Set(phrases.map((p) => p.toLowerCase()));
const fold = (s: string) => s.toLowerCase().replace(/^#(?=\p{L})/u, '');

// The corpora with a type a list of organizations maps onto (core/publicGazetteers.ts suggestedType).
const corpora = [
  { name: 'twitter', dir: 'twitter-distant', type: 'company' },
  { name: 'conll03', dir: 'conll03-distant', type: 'ORG' },
  { name: 'webpage', dir: 'webpage-distant', type: 'ORG' },
];
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim());

const rows: string[] = [];
for (const c of corpora) {
  const dir = join(dataFolder(values.data), c.dir);
  const words = lines(join(dir, 'valid_text.txt')).map((l) => l.split(/\s+/));
  const tags = lines(join(dir, 'valid_label_true.txt')).map((l) => l.split(/\s+/));
  let mentions = 0;
  let hit = 0;
  let hitFolded = 0;
  const other = new Map<string, number>();
  words.forEach((w, k) => {
    const gold = new Map<string, string>();
    for (let i = 0; i < w.length; i++) {
      if (!tags[k][i].startsWith('B-')) continue;
      const type = tags[k][i].slice(2);
      let j = i + 1;
      while (j < w.length && tags[k][j] === `I-${type}`) j++;
      gold.set(`${i}:${j}`, type);
      if (type !== c.type) continue;
      const s = w.slice(i, j).join(' ');
      mentions++;
      if (exact.has(s)) hit++;
      if (folded.has(fold(s))) hitFolded++;
    }
    for (let i = 0; i < w.length; i++)
      for (let n = 1; n <= 3 && i + n <= w.length; n++) {
        const s = w.slice(i, i + n).join(' ');
        if (exact.has(s) && !gold.has(`${i}:${i + n}`)) other.set(s, (other.get(s) ?? 0) + 1);
      }
  });
  const others = [...other.values()].reduce((a, b) => a + b, 0);
  const top = [...other.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  rows.push(`| ${c.name} | ${c.type} | ${mentions} | ${hit} | ${hitFolded} | ${others} (${top}) |`);
}
console.log(`list: ${list} (${phrases.length} entries), dev gold\n`);
console.log(
  '| corpus | type | dev mentions of the type | in the list, case-sensitive | ignoring case and a leading # | other matches, 1-3 tokens (most frequent) |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
