/**
 * The initial JavaScript a first visit downloads, gzipped: the scripts and styles that
 * dist/index.html loads, and their static imports. Workers and lazily loaded chunks are listed
 * apart. Run after `npm run build`: `npx tsx bench/bundle-size.ts`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url);
const html = readFileSync(new URL('index.html', dist), 'utf8');
const entry = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const seen = new Set<string>();
const queue = [...entry];
while (queue.length) {
  const f = queue.pop()!;
  if (seen.has(f)) continue;
  seen.add(f);
  if (!f.endsWith('.js')) continue;
  const src = readFileSync(new URL(f, dist), 'utf8');
  // Static imports only: import{…}from"./x.js" or import"./x.js"; dynamic import() is lazy.
  for (const m of src.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w*{},\s$]+from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(`assets/${m[1]}`);
}
const size = (f: string) => {
  const buf = readFileSync(new URL(f, dist));
  return { file: f, bytes: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
};
const initial = [...seen].map(size);
const lazy = readdirSync(new URL('assets/', dist))
  .map((f) => `assets/${f}`)
  .filter((f) => !seen.has(f) && (f.endsWith('.js') || f.endsWith('.wasm')))
  .map(size);
const total = initial.reduce((a, f) => a + f.gzip, 0);
console.log(JSON.stringify({ initialGzipBytes: total, initialGzipKB: +(total / 1024).toFixed(1), initial, lazy }));
