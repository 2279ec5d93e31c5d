/**
 * Builds the GloVe asset under public/glove/ (see src/model/gloveNode.ts); skips the work when it
 * is already there (--force rebuilds). Run by `npm run build` (prebuild); the CLI builds it on
 * first use too.
 */
import { existsSync } from 'node:fs';
import { buildGloveAsset } from '../src/model/gloveNode';

const out = new URL('../public/glove/', import.meta.url);
if (existsSync(new URL('meta.json', out)) && !process.argv.includes('--force')) {
  console.log(JSON.stringify({ ok: true, skipped: 'public/glove exists' }));
} else {
  console.log(JSON.stringify({ ok: true, ...buildGloveAsset(out, (s) => void process.stderr.write(`${s}\n`)) }));
}
