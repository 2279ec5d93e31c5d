import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { remakeWeakLabels } from '../core/modelInputs';
import { weakDoc } from '../core/weak/pipeline';
import { readCorpus } from '../cli/readCorpus';
import { initWasmBackend, predictCorpus, readModelFile } from '../cli/train';
import { parseConll } from '../core/formats/conll';
import { checkModelFile, type ModelFile } from '../core/modelFile';
import { tokenTexts } from '../core/types';
import { addRule, createProject, importCorpus, importGazetteer } from '../db/repo';
import { layerRows } from '../db/layerStore';
import { StudioDB } from '../db/schema';
import { readGloveAsset } from '../model/gloveNode';
import { exportModel, predictUnseen } from './projectSource';
import { openModelFile } from '../db/runs';
import { parseLines } from '../core/formats/lines';
import type { TrainMetrics } from './trainJob';
import { projectData, TINY_MODEL, trainOnProject } from './testRuns';
import { runWeakLabeling, type WeakSummary } from './weakJob';

const names = ['Mary', 'John', 'Anna', 'Peter', 'Clara', 'Hugo', 'Lucy', 'Mark', 'Emma', 'Paul', 'Rita', 'Oscar', 'Nina', 'Felix', 'Ida', 'Victor'];
const places = ['Paris', 'Rome', 'Oslo', 'Lima', 'Bern', 'Kyiv', 'Riga', 'Cairo'];
const conll = (k0: number, n: number) =>
  Array.from({ length: n }, (_, i) => `${names[(k0 + i) % names.length]} B-PER\nvisited O\n${places[(k0 + i) % places.length]} B-LOC\n.\tO\n`).join('\n');

const assets = {
  fetchGlove: async () => readGloveAsset(),
  fetchStarter: async () => {
    throw new Error('no starter model here');
  },
  fetchPublic: async (path: string) => readFileSync(new URL(`../../public/${path}`, import.meta.url), 'utf8'),
};

const dir = mkdtempSync(join(tmpdir(), 'export-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A project of two gazetteers (every other person listed) and a rule, its weak labels made by the
 * HMM, and an ensemble of two trained on them, reading the dictionary and the weak labels as features.
 */
async function trainedProject() {
  const db = new StudioDB(`export-model-${Math.random()}`);
  const pid = await createProject(db, 'people and places');
  const gold = { kind: 'gold' as const, name: 'gold' };
  await importCorpus(db, pid, parseConll(conll(0, 16), { file: 't.conll', scheme: 'BIO', split: 'train', layer: gold }));
  await importCorpus(db, pid, parseConll(conll(3, 6), { file: 'd.conll', scheme: 'BIO', split: 'dev', layer: gold }));
  await importGazetteer(db, pid, 'places', 'sensitive', { entries: places.slice(0, 6).map((phrase) => ({ phrase, type: 'LOC' })), patterns: [] });
  await importGazetteer(db, pid, 'people', 'insensitive', {
    entries: names.filter((_, k) => k % 2 === 0).map((phrase) => ({ phrase, type: 'PER' })),
    patterns: [],
  });
  await addRule(db, pid, { kind: 'regex', name: 'Riga or Cairo', label: 'LOC', pattern: 'Riga|Cairo', ignoreCase: false });
  const weak = await runWeakLabeling(db, pid, { method: 'hmm', typeUntyped: true });
  const run = await trainOnProject(db, pid, {
    ...(await readingFeatures(db, pid)),
    train: { epochs: 12, batchSize: 2, lr: 0.02, patience: 12, members: 2, oShift: 'dev', typeShifts: true },
  });
  return { db, pid, weak, run };
}

/**
 * A WSL run on the project's weak aggregate that reads the features: words dropped often and
 * dictionary matches never, so that the model learns to read them, which the tests then need.
 */
const readingFeatures = async (db: StudioDB, pid: number) => ({
  data: await projectData(db, pid),
  model: { ...TINY_MODEL, wordDropout: 0.5, dictionaryDropout: 0 },
  method: { name: 'wsl' },
  backend: 'wasm',
});

/** The model file of a run, written where `predict` reads it. */
async function download(db: StudioDB, runId: number, file: string): Promise<{ path: string; model: ModelFile; stages: string[] }> {
  const stages: string[] = [];
  const model = await exportModel({ db, runId, ...assets, emit: (e) => e.kind === 'stage' && stages.push(e.stage) });
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(model));
  return { path, model, stages };
}

/** `predict` on the project's documents, as one CoNLL file: each document's spans. */
async function predictOnCli(model: string, db: StudioDB, pid: number, name: string) {
  const docs = await db.documents.where('projectId').equals(pid).sortBy('id');
  const corpus = join(dir, `${name}.txt`);
  writeFileSync(corpus, `${docs.map((d) => tokenTexts(d).join(' ')).join('\n')}\n`);
  const out = join(dir, `${name}.conll`);
  const summary = await predictCorpus(model, corpus, out, 'lines');
  const parsed = parseConll(readFileSync(out, 'utf8'), { file: out, scheme: 'BIO', split: 'test', layer: { kind: 'weak', name: 'predicted' } });
  return { docs, summary, spans: parsed.layers[0].annotations.map((a) => a.spans) };
}

describe("a run's model downloaded as one file", () => {
  it("labels text on the command line as the studio labeled it: the dictionary and the weak labels made again from the file's recipe, the HMM as fitted on the project", async () => {
    await initWasmBackend();
    const { db, pid, weak, run } = await trainedProject();
    expect((await db.runs.get(run.runId))!.status).toBe('done');
    expect(weak.hmm?.sources).toEqual(['places', 'people', 'Riga or Cairo']);
    const { path, model } = await download(db, run.runId, 'model.json');
    // What the file holds: both members, the shifts, and how to make each of the model's feature groups.
    expect(model.members).toHaveLength(2);
    expect(model.inputs!.groups).toEqual(['LOC', 'PER', 'weak label: LOC', 'weak label: PER']);
    expect(model.inputs!.lexicon!.types).toEqual(['LOC', 'PER']);
    expect(model.inputs!.weak).toMatchObject({ types: ['LOC', 'PER'], method: 'hmm', rules: [{ rule: { name: 'Riga or Cairo' } }] });
    expect(model.inputs!.weak!.hmm!.E).toEqual(Array.from(weak.hmm!.E));
    expect(model.provenance).toMatchObject({ project: 'people and places', run: String(run.runId) });
    expect(checkModelFile(JSON.parse(readFileSync(path, 'utf8')), path).tags).toEqual(model.tags);
    // The same text, the same spans, document by document: the run's predictions of its own project.
    const predicted = await layerRows(
      db,
      run.metrics.predictedLayerId!,
      (await db.documents.where('projectId').equals(pid).sortBy('id')).map((d) => d.id!),
    );
    const cli = await predictOnCli(path, db, pid, 'project');
    expect(cli.spans.some((s) => s.length)).toBe(true);
    expect(cli.spans).toEqual(predicted.map((r) => r!.spans));
    expect(cli.summary).toMatchObject({ features: model.inputs!.groups, members: 2 });
    expect(cli.summary.notes).toBeUndefined();
    // The weak labels the model read, made again from the file on the same text: the project's aggregate, span for span (the rule's places among them).
    const aggregate = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.role === 'aggregate')!;
    const stored = (
      await layerRows(
        db,
        aggregate.id!,
        cli.docs.map((d) => d.id!),
      )
    ).map((r) => r!.spans);
    const notes: string[] = [];
    const remade = remakeWeakLabels(
      model.inputs!.weak!,
      readCorpus(join(dir, 'project.txt'), { format: 'lines', split: 'unassigned' }).docs.map(weakDoc),
      notes,
    );
    expect(remade.map((a) => a.spans)).toEqual(stored);
    expect(notes).toEqual([]);
    const riga = cli.docs.findIndex((d) => tokenTexts(d)[2] === 'Riga');
    expect(stored[riga]).toContainEqual({ start: 2, end: 3, label: 'LOC' });
  }, 240_000);

  it('says where it fits the HMM on the text itself (weak labels made before the studio kept one), and refuses a file that cannot make its features', async () => {
    await initWasmBackend();
    const { db, pid, run } = await trainedProject();
    // The weak labels run as the studio recorded it before it kept the HMM.
    const last = (await db.runs.where('projectId').equals(pid).toArray()).filter((r) => r.kind === 'weak').at(-1)!;
    const { hmm: _, ...older } = last.metrics as WeakSummary;
    await db.runs.update(last.id!, { metrics: older });
    const { path, model } = await download(db, run.runId, 'older.json');
    expect(model.inputs!.weak!.hmm).toBeUndefined();
    const cli = await predictOnCli(path, db, pid, 'older');
    expect(cli.summary.notes).toEqual([
      "weak labels: the file has no HMM fitted on the project's text (its weak labels were made before the studio kept one), so the HMM is fitted on this text",
    ]);
    // A gazetteer added after the weak labels were made: the HMM kept is for other sources, so the text gets its own, said.
    await db.runs.update(last.id!, { metrics: last.metrics });
    await importGazetteer(db, pid, 'more places', 'sensitive', { entries: [{ phrase: 'Riga', type: 'LOC' }], patterns: [] });
    const later = await download(db, run.runId, 'later.json');
    expect(later.model.inputs!.weak!.hmm).toBeDefined();
    expect((await predictOnCli(later.path, db, pid, 'later')).summary.notes).toEqual([
      'weak labels: the fitted HMM is for types LOC, PER and sources places, people, Riga or Cairo; this corpus has LOC, PER and places, people, more places, Riga or Cairo, so the HMM is fitted on this text',
    ]);
    // A file whose recipe lost the weak labels' groups is refused before anything is read.
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...model, inputs: { ...model.inputs, weak: undefined } }));
    expect(() => readModelFile(broken)).toThrow(`${broken}: the model reads 4 feature groups, and the file says how to make 2 of them`);
    const cut = join(dir, 'cut.json');
    const [k, w] = Object.entries(model.weights)[0];
    writeFileSync(cut, JSON.stringify({ ...model, weights: { ...model.weights, [k]: { ...w, shape: [...w.shape, 2] } } }));
    expect(() => readModelFile(cut)).toThrow(`${cut}: weight ${k} holds`);
  }, 240_000);

  it("opened in another project, labels that project's text as it labeled its own, from its file's dictionary and weak labels; is scored on that project's gold; downloads again as it came", async () => {
    await initWasmBackend();
    const { db, pid, run } = await trainedProject();
    const { path, model } = await download(db, run.runId, 'travel.json');
    // Another project with the same text and gold, and no gazetteer or rule of its own: the features can only come from the file.
    const other = await createProject(db, 'elsewhere');
    const gold = { kind: 'gold' as const, name: 'gold' };
    await importCorpus(db, other, parseConll(conll(0, 16), { file: 't.conll', scheme: 'BIO', split: 'train', layer: gold }));
    await importCorpus(db, other, parseConll(conll(3, 6), { file: 'd.conll', scheme: 'BIO', split: 'dev', layer: gold }));
    const opened = await openModelFile(db, other, 'travel.json', readModelFile(path));
    const metrics = () => db.runs.get(opened).then((r) => r!.metrics as TrainMetrics);
    expect((await db.runs.get(opened))!.status).toBe('done');
    expect((await metrics()).imported).toEqual({ file: 'travel.json', provenance: model.provenance });
    expect((await metrics()).dev).toBeUndefined();
    const stages: string[] = [];
    const added = await predictUnseen({ db, runId: opened, ...assets, emit: (e) => e.kind === 'stage' && stages.push(e.stage) });
    expect(added.documents).toBe(22);
    expect(stages).toContain('predicting 22 documents with the model from travel.json');
    const docsOf = (p: number) => db.documents.where('projectId').equals(p).sortBy('id');
    const [here, there] = await Promise.all([
      layerRows(
        db,
        run.metrics.predictedLayerId!,
        (await docsOf(pid)).map((d) => d.id!),
      ),
      layerRows(
        db,
        (await metrics()).predictedLayerId!,
        (await docsOf(other)).map((d) => d.id!),
      ),
    ]);
    expect(there.map((r) => r!.spans)).toEqual(here.map((r) => r!.spans));
    // The same predictions of the same gold: the same dev score as in the project it trained in.
    expect((await metrics()).dev).toEqual(run.metrics.dev);
    // Text that comes later is labeled the same way, once.
    await importCorpus(db, other, parseLines({ file: 'later.txt', text: 'Zora visited Oslo .' }, [], { scheme: 'BIO', split: 'unassigned' }));
    expect(await predictUnseen({ db, runId: opened, ...assets, emit: () => {} })).toMatchObject({ documents: 1 });
    expect(await predictUnseen({ db, runId: opened, ...assets, emit: () => {} })).toMatchObject({ documents: 0 });
    // Downloaded again from there: the same model and recipe, and where it was trained.
    const again = await download(db, opened, 'again.json');
    expect(again.model.weights).toEqual(model.weights);
    expect(again.model.members).toEqual(model.members);
    expect(again.model.inputs).toEqual(model.inputs);
    expect(again.model.provenance).toMatchObject({ project: 'people and places', run: String(run.runId) });
    // Opened in the project it came from, a review-loop fine-tune starts from it: the project's features read through the model's groups.
    const home = await openModelFile(db, pid, 'travel.json', readModelFile(path));
    const loop = await trainOnProject(db, pid, {
      ...(await readingFeatures(db, pid)),
      train: { epochs: 1, batchSize: 2, lr: 0.02, members: 2 },
      loop: { fromRunId: home, corrections: 0 },
    });
    expect((await db.runs.get(loop.runId))!.status).toBe('done');
    expect(loop.stages).toContain('dictionary features from 14 entries (LOC, PER)');
  }, 240_000);

  it('a model that reads words only opens in a project with a dictionary of its own and labels it from its words', async () => {
    await initWasmBackend();
    const { db, pid } = await trainedProject();
    const words = await trainOnProject(db, pid, {
      data: await projectData(db, pid, 'gold'),
      model: { ...TINY_MODEL, dictionary: false, weakFeatures: false },
      method: { name: 'supervised' },
      train: { epochs: 4, batchSize: 4 },
      backend: 'wasm',
    });
    const { model } = await download(db, words.runId, 'words.json');
    expect(model.inputs).toBeUndefined();
    // As `train --out` writes it: the config's defaults say dictionary and weak-label features, which a files config never had.
    const cli = join(dir, 'cli.json');
    writeFileSync(cli, JSON.stringify({ ...model, config: { ...model.config, model: { ...model.config.model, dictionary: true, weakFeatures: true } } }));
    // Opened where it trained, beside the project's gazetteers and weak labels: it reads none of them, and labels as its run did.
    const opened = await openModelFile(db, pid, 'cli.json', readModelFile(cli));
    expect(await predictUnseen({ db, runId: opened, ...assets, emit: () => {} })).toMatchObject({ documents: 22 });
    const metrics = (id: number) => db.runs.get(id).then((r) => r!.metrics as TrainMetrics);
    expect((await metrics(opened)).dev).toEqual(words.metrics.dev);
    expect((await download(db, opened, 'words-again.json')).model.inputs).toBeUndefined();
  }, 120_000);

  it('is refused, saying why, where the model reads weak labels that were imported: nothing could make them on new text', async () => {
    await initWasmBackend();
    const db = new StudioDB(`export-model-${Math.random()}`);
    const pid = await createProject(db, 'distant');
    for (const [split, k0, n] of [
      ['train', 0, 16],
      ['dev', 3, 6],
    ] as const) {
      await importCorpus(db, pid, parseConll(conll(k0, n), { file: `${split}.conll`, scheme: 'BIO', split, layer: { kind: 'gold', name: 'gold' } }));
      await importCorpus(db, pid, parseConll(conll(k0, n), { file: `${split}-distant.conll`, scheme: 'BIO', split, layer: { kind: 'weak', name: 'distant' } }));
    }
    const layers = await db.layers.where('projectId').equals(pid).toArray();
    const run = await trainOnProject(db, pid, {
      data: { kind: 'project', projectId: pid, layerId: layers.find((l) => l.kind === 'weak')!.id!, goldLayerId: layers.find((l) => l.kind === 'gold')!.id! },
      model: TINY_MODEL,
      method: { name: 'wsl' },
      train: { epochs: 1, batchSize: 4 },
      backend: 'wasm',
    });
    expect((await db.runs.get(run.runId))!.status).toBe('done');
    await expect(exportModel({ db, runId: run.runId, ...assets, emit: () => {} })).rejects.toThrow(
      `run ${run.runId}'s model reads the weak layer "distant" as features, which was imported, not made from the project's gazetteers and rules: nothing could make it on new text. Train with "weak labels as features" off for a model that labels any text`,
    );
  }, 120_000);
});
