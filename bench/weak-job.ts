/**
 * The Weak labels page's whole job (worker/weakJob.ts runWeakLabeling: read the project's sources,
 * label, aggregate, store the layers and the run) on a project in fake IndexedDB, side by side with
 * another checkout's job (`--src DIR`, a worktree at an older commit), alternated, each on a fresh
 * project of its own: bc5cdr's train_raw.txt (the first `--docs` lines) against dict_core and
 * dict_full_train.txt, case-insensitive, the HMM. The data folder as for the CLI.
 *   npx tsx bench/weak-job.ts [--src DIR] [--rounds 3] [--docs 5000]
 */
import 'fake-indexeddb/auto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';

const { values } = parseArgs({
  options: { src: { type: 'string' }, rounds: { type: 'string', default: '3' }, docs: { type: 'string', default: '5000' } },
});
const d = `${dataFolder()}/bc5cdr/`;
const text = readFileSync(`${d}train_raw.txt`, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .slice(0, Number(values.docs))
  .join('\n');
const typed = readFileSync(`${d}dict_core.txt`, 'utf8')
  .split('\n')
  .filter((l) => l.includes('\t'))
  .map((l) => ({ phrase: l.split('\t')[1].trim(), type: l.split('\t')[0] }));
const untyped = readFileSync(`${d}dict_full_train.txt`, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((phrase) => ({ phrase: phrase.trim(), type: null }));

/** One checkout's job on a fresh project: its wall milliseconds and what it stored. */
async function timed(root: string, round: number) {
  const at = (p: string) => import(resolve(root, p));
  const { StudioDB } = await at('src/db/schema.ts');
  const { createProject, importCorpus, importGazetteer } = await at('src/db/repo.ts');
  const { parseLines } = await at('src/core/formats/lines.ts');
  const { runWeakLabeling } = await at('src/worker/weakJob.ts');
  const db = new StudioDB(`weak-job-${root.replace(/\W/g, '')}-${round}`);
  const pid = await createProject(db, 'bc5cdr');
  await importCorpus(db, pid, parseLines({ file: 'train_raw.txt', text }, [], { scheme: 'BIO', split: 'train' }));
  await importGazetteer(db, pid, 'dict_core', 'insensitive', { entries: typed, patterns: [] });
  await importGazetteer(db, pid, 'dict_full_train', 'insensitive', { entries: untyped, patterns: [] });
  const t0 = performance.now();
  const summary = await runWeakLabeling(db, pid, { method: 'hmm', typeUntyped: true });
  const ms = performance.now() - t0;
  db.close();
  return { ms, spans: summary.sources.reduce((n: number, s: { spans: number }) => n + s.spans, 0), tokens: summary.tokens };
}

const roots = [['HEAD', resolve('.')], ...(values.src ? [[values.src, resolve(values.src)]] : [])];
const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
const best: Record<string, number> = {};
for (let round = 1; round <= Number(values.rounds); round++)
  for (const [name, root] of round % 2 ? roots : [...roots].reverse()) {
    const r = await timed(root, round);
    best[name] = Math.min(best[name] ?? Infinity, r.ms);
    console.log(
      JSON.stringify({ bench: 'weak-job', round, code: name, docs: Number(values.docs), tokens: r.tokens, sourceSpans: r.spans, ms: Math.round(r.ms), cpu }),
    );
  }
console.log(JSON.stringify({ best: Object.fromEntries(Object.entries(best).map(([k, v]) => [k, Math.round(v)])) }));
