/**
 * A finished run's model labeling the documents imported after it (projectSource.predictUnseen),
 * in Node on the WASM backend with fake-indexeddb, as the training worker runs it.
 *
 * For each project size: a project of `--train` conll03-distant training sentences (their distant
 * labels as the weak layer, so the dictionary is their strings) and 500 gold dev sentences trains
 * a small WSL run (1 epoch); then `--test` gold test sentences are imported and labeled by the
 * run's model. Beside it, the same run in a project that held the test sentences from the start
 * scores them at its end. Nothing a run trains on reads the test text (its word vectors are
 * looked up by word), so the two test F1 must be the same: the check that the later labeling
 * makes the features as the run made them. The later call reads the whole project again, so its
 * time is measured at two project sizes.
 *
 *   npx tsx bench/predict-unseen.ts [--train 1000,14041] [--test 3453] [--out FILE]
 */
import 'fake-indexeddb/auto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { dataFolder } from '../src/cli/dataFolder';
import { initWasmBackend } from '../src/cli/train';
import { parseLines } from '../src/core/formats/lines';
import { scoreSpans } from '../src/core/metrics';
import { createProject, importCorpus } from '../src/db/repo';
import { layerRows } from '../src/db/layerStore';
import { StudioDB } from '../src/db/schema';
import { readGloveAsset } from '../src/model/gloveNode';
import { predictUnseen } from '../src/worker/projectSource';
import { trainOnProject } from '../src/worker/testRuns';
import type { TrainMetrics } from '../src/worker/trainJob';

const { values } = parseArgs({
  options: { train: { type: 'string', default: '1000,14041' }, test: { type: 'string', default: '3453' }, data: { type: 'string' }, out: { type: 'string' } },
});
const src = `${dataFolder(values.data)}/conll03-distant/`;
const read = (f: string, n: number) => readFileSync(`${src}${f}`, 'utf8').split('\n').slice(0, n).join('\n');
const nTest = Number(values.test);
const backend = await initWasmBackend();

/** Imports `n` sentences of a split's text with their labels as a layer of `kind`. */
async function importSplit(db: StudioDB, pid: number, text: string, labels: string, n: number, split: 'train' | 'dev' | 'test', kind: 'weak' | 'gold') {
  await importCorpus(
    db,
    pid,
    parseLines({ file: text, text: read(text, n) }, [{ file: labels, text: read(labels, n), kind, name: kind === 'weak' ? 'distant' : 'gold' }], {
      scheme: 'BIO',
      split,
    }),
  );
}

/** A project of `n` training and 500 dev sentences (and the test sentences where `withTest`), and its run. */
async function projectRun(n: number, withTest: boolean) {
  const db = new StudioDB(`predict-unseen-bench-${n}-${withTest}`);
  const pid = await createProject(db, 'bench');
  await importSplit(db, pid, 'train_text.txt', 'train_label_dist.txt', n, 'train', 'weak');
  await importSplit(db, pid, 'valid_text.txt', 'valid_label_true.txt', 500, 'dev', 'gold');
  if (withTest) await importSplit(db, pid, 'test_text.txt', 'test_label_true.txt', nTest, 'test', 'gold');
  const layers = await db.layers.where('projectId').equals(pid).toArray();
  const t0 = performance.now();
  const run = await trainOnProject(db, pid, {
    data: { kind: 'project', projectId: pid, layerId: layers.find((l) => l.kind === 'weak')!.id!, goldLayerId: layers.find((l) => l.kind === 'gold')!.id! },
    model: { hidden: 32 },
    method: { name: 'wsl' },
    train: { epochs: 1 },
    backend: 'wasm',
  });
  return { db, pid, run, trainSeconds: (performance.now() - t0) / 1000 };
}

const rows = [];
for (const n of values.train.split(',').map(Number)) {
  const whole = await projectRun(n, true);
  whole.db.close();
  const later = await projectRun(n, false);
  const { db, pid, run } = later;
  await importSplit(db, pid, 'test_text.txt', 'test_label_true.txt', nTest, 'test', 'gold');
  const stages: [number, string][] = [];
  const t1 = performance.now();
  const added = await predictUnseen({
    db,
    runId: run.runId,
    fetchGlove: async () => readGloveAsset(),
    fetchStarter: async () => {
      throw new Error('no starter model');
    },
    fetchPublic: async () => '',
    emit: (e) => e.kind === 'stage' && stages.push([(performance.now() - t1) / 1000, e.stage]),
  });
  const seconds = (performance.now() - t1) / 1000;
  const predicting = stages.find(([, s]) => s.startsWith('predicting'))?.[0] ?? 0;
  const testDocs = (await db.documents.where('projectId').equals(pid).toArray()).filter((d) => d.split === 'test').map((d) => d.id!);
  const gold = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.kind === 'gold')!;
  const [goldRows, predRows] = await Promise.all([layerRows(db, gold, testDocs), layerRows(db, run.metrics.predictedLayerId!, testDocs)]);
  const laterF1 = scoreSpans(
    goldRows.map((r) => r?.spans ?? []),
    predRows.map((r) => r!.spans),
  ).overall.f1;
  const row = {
    trainSentences: n,
    testSentences: added.documents,
    spans: added.spans,
    seconds,
    featuresSeconds: predicting,
    predictSeconds: seconds - predicting,
    trainSeconds: later.trainSeconds,
    testF1AtItsEnd: (whole.run.metrics as TrainMetrics).test!.overall.f1,
    testF1Later: laterF1,
    devF1: [(whole.run.metrics as TrainMetrics).dev!.overall.f1, (run.metrics as TrainMetrics).dev!.overall.f1],
  };
  console.error(JSON.stringify(row));
  rows.push(row);
  db.close();
}
const result = { when: new Date().toISOString(), backend, cpu: cpus()[0]?.model, cores: cpus().length, rows };
console.log(JSON.stringify(result, null, 2));
if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
