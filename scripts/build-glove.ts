/**
 * Builds the GloVe asset under public/glove/ (see src/model/gloveNode.ts) and the spelling table
 * beside it; skips what is already there (--force rebuilds both). Run by `npm run build`
 * (prebuild); the CLI builds them on first use too.
 */
import { existsSync } from 'node:fs';
import { buildGloveAsset, buildSpellingAsset } from '../src/model/gloveNode';

const out = new URL('../public/glove/', import.meta.url);
const force = process.argv.includes('--force');
const log = (s: string) => void process.stderr.write(`${s}\n`);
const glove = existsSync(new URL('meta.json', out)) && !force ? { skipped: 'public/glove exists' } : buildGloveAsset(out, log);
const spelling = existsSync(new URL('spelling.json', out)) && !force ? { skipped: 'public/glove/spelling.json exists' } : buildSpellingAsset(out, log);
console.log(JSON.stringify({ ok: true, glove, spelling }));
