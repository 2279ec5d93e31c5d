/**
 * The weak labeler's gazetteer matching with short entries keeping their case (caseUpTo) and
 * without, side by side with another checkout's matcher (`--src DIR`, a worktree at an older
 * commit) on the same index: bc5cdr's training text (repeated to `--tokens`) against dict_core and
 * dict_full_train.txt, case-insensitive. Best of `--rounds`, alternated. The data folder as for the CLI.
 *   npx tsx bench/matcher-case.ts [--src DIR] [--rounds 5] [--tokens 1000000]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';
import { GazetteerMatcher } from '../src/core/weak/gazetteerMatcher';
import { TokenIndex } from '../src/core/weak/tokenIndex';

const { values } = parseArgs({
  options: { src: { type: 'string' }, rounds: { type: 'string', default: '5' }, tokens: { type: 'string', default: '1000000' } },
});
const other = values.src
  ? ((await import(resolve(values.src, 'src/core/weak/gazetteerMatcher.ts'))) as typeof import('../src/core/weak/gazetteerMatcher')).GazetteerMatcher
  : null;
const d = `${dataFolder()}/bc5cdr/`;
const text = readFileSync(`${d}train_raw.txt`, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => l.split(' ').filter(Boolean));
const docs: { tokens: string[]; sentenceStarts: number[] }[] = [];
for (let n = 0, k = 0; n < Number(values.tokens); k++) {
  const tokens = text[k % text.length];
  docs.push({ tokens, sentenceStarts: [0] });
  n += tokens.length;
}
const entries = [
  ...readFileSync(`${d}dict_core.txt`, 'utf8')
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => ({ phrase: l.split('\t')[1].trim(), type: l.split('\t')[0] })),
  ...readFileSync(`${d}dict_full_train.txt`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((phrase) => ({ phrase: phrase.trim(), type: null })),
];
const [ix, exact] = [TokenIndex.build('insensitive', docs), TokenIndex.build('sensitive', docs)];
const tokens = ix.ids.length;
const spec = { name: 'g', mode: 'insensitive' as const, priority: 0, entries };
const arms: [string, () => number][] = [
  ['HEAD', () => new GazetteerMatcher(spec, ix).match(['Chemical', 'Disease']).flat().length],
  ['HEAD, caseUpTo 2', () => new GazetteerMatcher({ ...spec, caseUpTo: 2 }, ix, exact).match(['Chemical', 'Disease']).flat().length],
  ...(other ? ([[values.src!, () => new other(spec, ix).match(['Chemical', 'Disease']).flat().length]] as [string, () => number][]) : []),
];
const best = new Map<string, number>();
const matches = new Map<string, number>();
for (let r = 0; r < Number(values.rounds); r++)
  for (const [name, fn] of arms) {
    const t0 = performance.now();
    matches.set(name, fn());
    const ms = performance.now() - t0;
    best.set(name, Math.min(best.get(name) ?? Infinity, ms));
  }
for (const [name] of arms)
  console.log(
    JSON.stringify({
      arm: name,
      tokens,
      entries: entries.length,
      matches: matches.get(name),
      bestMs: Math.round(best.get(name)!),
      tokensPerSecond: Math.round(tokens / (best.get(name)! / 1000)),
    }),
  );
