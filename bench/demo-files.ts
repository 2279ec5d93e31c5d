/**
 * Writes the demo project's files (public/demo/bc5cdr-demo.json: its corpora, gazetteers and
 * rules) to bench/out/demo/, so that bench/configs/demo.json can run the studio's methods on
 * exactly the demo from the CLI: `npx tsx bench/demo-files.ts`, then the experiment.
 * `--dev N` keeps the first N dev sentences only, `--out DIR` writes elsewhere
 * (bench/configs/demo-larger-splits.json reads the demo with its old 150 dev sentences so), and
 * `--from FILE` reads a candidate demo that scripts/make-demo.ts wrote with `--out`.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const { values: args } = parseArgs({ options: { dev: { type: 'string' }, out: { type: 'string' }, from: { type: 'string' } } });
const demo = JSON.parse(readFileSync(args.from ? path.resolve(args.from) : new URL('../public/demo/bc5cdr-demo.json', import.meta.url), 'utf8')) as {
  corpora: { file: string; text: string }[];
  gazetteers: { file: string; text: string }[];
  rules: unknown[];
};
const out = args.out ? new URL(`file://${path.resolve(args.out)}/`) : new URL('./out/demo/', import.meta.url);
const devSentences = args.dev === undefined ? Infinity : Number(args.dev);
if (args.dev !== undefined && (!Number.isInteger(devSentences) || devSentences < 1))
  throw new Error(`--dev ${args.dev}: not a positive whole number of sentences`);
const sliced = (c: { file: string; text: string }) =>
  c.file === 'dev.conll' && devSentences < Infinity ? `${c.text.split(/\n\n/).slice(0, devSentences).join('\n\n').trimEnd()}\n` : c.text;
mkdirSync(out, { recursive: true });
const safe = (f: string) => f.replace(/[^\w.-]+/g, '_');
for (const c of demo.corpora) writeFileSync(new URL(safe(c.file), out), sliced(c));
for (const g of demo.gazetteers) writeFileSync(new URL(safe(g.file), out), g.text);
writeFileSync(new URL('rules.json', out), JSON.stringify(demo.rules));
console.log(JSON.stringify({ ok: true, dir: out.pathname, files: [...demo.corpora, ...demo.gazetteers].map((f) => safe(f.file)) }));
