/**
 * What `studio predict` costs with a model downloaded from a run's page: making the features the
 * model reads on new text (the weak labels from the file's recipe, the dictionary's matches) beside
 * decoding, for a model that reads them and one that reads words only, side by side in one run.
 * The models train on the built-in demo project in Node (fake IndexedDB, the worker's own code);
 * the text is bc5cdr's test.conll from the data folder (NER_STUDIO_DATA, default ../shared/data),
 * or the demo's own text where there is none.
 *   npx tsx bench/predict-file.ts [--rounds 3] [--epochs 2] [--out bench/results/predict-file.jsonl]
 */
import 'fake-indexeddb/auto';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';
import { initWasmBackend, predictCorpus } from '../src/cli/train';
import { tokenTexts } from '../src/core/types';
import { loadDemo } from '../src/db/demo';
import { StudioDB } from '../src/db/schema';
import { readGloveAsset } from '../src/model/gloveNode';
import { exportModel } from '../src/worker/projectSource';
import { trainOnProject } from '../src/worker/testRuns';
import { runWeakLabeling } from '../src/worker/weakJob';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    epochs: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/results/predict-file.jsonl' },
  },
});
const backend = await initWasmBackend();
const dir = 'bench/out/predict-file';
mkdirSync(dir, { recursive: true });

// The demo project, its weak labels by the HMM, and two runs of the suite's model size: the page's features, and words only.
const db = new StudioDB('predict-file');
const pid = await loadDemo(db, JSON.parse(readFileSync('public/demo/bc5cdr-demo.json', 'utf8')));
await runWeakLabeling(db, pid, { method: 'hmm', typeUntyped: true });
const layers = await db.layers.where('projectId').equals(pid).toArray();
const data = {
  kind: 'project',
  projectId: pid,
  layerId: layers.find((l) => l.role === 'aggregate')!.id!,
  goldLayerId: layers.find((l) => l.kind === 'gold')!.id!,
};
const assets = {
  fetchGlove: async () => readGloveAsset(),
  fetchStarter: async () => {
    throw new Error('no starter model here');
  },
  fetchPublic: async (path: string) => readFileSync(new URL(`../public/${path}`, import.meta.url), 'utf8'),
};
const models: Record<string, string> = {};
for (const [name, model] of [
  ['dictionary and weak labels', {}],
  ['words only', { dictionary: false, weakFeatures: false }],
] as const) {
  const run = await trainOnProject(db, pid, {
    data,
    model: { ...model, dictionaryDropout: 0.5 },
    method: { name: 'wsl' },
    train: { epochs: Number(values.epochs) },
    backend: 'wasm',
  });
  const file = join(dir, `${name.replace(/\W+/g, '-')}.model.json`);
  writeFileSync(file, JSON.stringify(await exportModel({ db, runId: run.runId, ...assets, emit: () => {} })));
  models[name] = file;
  console.error(
    `${name}: run ${run.runId}, test F1 ${(100 * run.metrics.test!.overall.f1).toFixed(2)}, file ${(readFileSync(file).length / 1e6).toFixed(1)} MB`,
  );
}

// The text to label.
const test = join(dataFolder(), 'bc5cdr', 'test.conll');
let corpus = test;
if (!existsSync(test)) {
  corpus = join(dir, 'demo.txt');
  const docs = await db.documents.where('projectId').equals(pid).toArray();
  writeFileSync(corpus, `${docs.map((d) => tokenTexts(d).join(' ')).join('\n')}\n`);
}
const machine = {
  cpu: execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim(),
  cores: Number(execFileSync('nproc').toString()),
};
for (let round = 1; round <= Number(values.rounds); round++)
  for (const [name, file] of Object.entries(models)) {
    const t0 = performance.now();
    const r = await predictCorpus(file, corpus, join(dir, 'out.conll'), corpus.endsWith('.txt') ? 'lines' : undefined);
    const total = (performance.now() - t0) / 1000;
    const decode = r.wallSeconds as number;
    const row = {
      bench: 'predict-file',
      at: new Date().toISOString(),
      round,
      model: name,
      corpus,
      sentences: r.sentences,
      tokens: r.tokens,
      backend,
      machine,
      // The whole verb: reading the file and the text, GloVe rows, the features, decoding, writing.
      totalSeconds: +total.toFixed(2),
      // The features the model reads beyond words, made on the text: the weak labels from the file's recipe and the dictionary's matches.
      featureSeconds: (r.featureSeconds as number | undefined) ?? 0,
      decodeSeconds: decode,
      tokensPerSecond: Math.round((r.tokens as number) / total),
    };
    appendFileSync(values.out!, `${JSON.stringify(row)}\n`);
    console.log(JSON.stringify(row));
  }
