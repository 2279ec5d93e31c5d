/**
 * Matcher throughput: 1M tokens of real text (CoNLL-2003 and BC5CDR sentences, repeated) against
 * a 100,000-entry gazetteer of GloVe words, in Node and in a worker in headless Chromium, side by
 * side with the Aho-Corasick packages on npm. Needs public/glove (npm run build) and the data folder (NER_STUDIO_DATA, default ../shared/data).
 *   npx tsx bench/matcher.ts [--browser]
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { runMatcherBench, type MatcherBenchInput } from './matcher-core';
import { withStudio } from './browser';
import { dataFolder } from '../src/cli/dataFolder';

const DATA = new URL(`file://${dataFolder()}/`);
const lines = (f: string) =>
  readFileSync(new URL(f, DATA), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '));
const input: MatcherBenchInput = {
  vocab: readFileSync(new URL('../public/glove/vocab.txt', import.meta.url), 'utf8').split('\n'),
  sentences: [...lines('conll03-distant/train_text.txt'), ...lines('bc5cdr/train_raw.txt'), ...lines('conll03-distant/valid_text.txt')],
  tokens: 1_000_000,
  entries: 100_000,
  seed: 1,
};

const node = runMatcherBench(input);
console.log(JSON.stringify({ where: `node ${process.version}`, ...node }));

if (process.argv.includes('--browser')) {
  const bundle = await build({
    entryPoints: [new URL('./matcher-core.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    globalName: 'bench',
    write: false,
    platform: 'browser',
  });
  const code = `${bundle.outputFiles[0].text}\nself.onmessage = (e) => postMessage(bench.runMatcherBench(e.data));`;
  const browser = await withStudio(async (b, url) => {
    const page = await b.newPage();
    await page.goto(url);
    const version = b.version();
    const result = await page.evaluate(
      ({ code, input }) =>
        new Promise((resolve, reject) => {
          const w = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
          w.onmessage = (e) => resolve(e.data);
          w.onerror = (e) => reject(new Error(e.message));
          w.postMessage(input);
        }),
      { code, input },
    );
    return { where: `chromium ${version} worker`, ...(result as object) };
  }, 4176);
  console.log(JSON.stringify(browser));
}
