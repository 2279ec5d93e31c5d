/**
 * Writes the demo project's files (public/demo/bc5cdr-demo.json: its corpora, gazetteers and
 * rules) to bench/out/demo/, so that bench/configs/demo.json can run the studio's methods on
 * exactly the demo from the CLI: `npx tsx bench/demo-files.ts`, then the experiment.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const demo = JSON.parse(readFileSync(new URL('../public/demo/bc5cdr-demo.json', import.meta.url), 'utf8')) as {
  corpora: { file: string; text: string }[];
  gazetteers: { file: string; text: string }[];
  rules: unknown[];
};
const out = new URL('./out/demo/', import.meta.url);
mkdirSync(out, { recursive: true });
const safe = (f: string) => f.replace(/[^\w.-]+/g, '_');
for (const c of demo.corpora) writeFileSync(new URL(safe(c.file), out), c.text);
for (const g of demo.gazetteers) writeFileSync(new URL(safe(g.file), out), g.text);
writeFileSync(new URL('rules.json', out), JSON.stringify(demo.rules));
console.log(JSON.stringify({ ok: true, dir: out.pathname, files: [...demo.corpora, ...demo.gazetteers].map((f) => safe(f.file)) }));
