import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initWasmBackend } from '../cli/train';
import { parseConll } from '../core/formats/conll';
import { parseLines } from '../core/formats/lines';
import { tokenTexts } from '../core/types';
import { addRule, addToCorrectionsGazetteer, createProject, importCorpus, importGazetteer } from '../db/repo';
import { layerRows } from '../db/layerStore';
import { StudioDB } from '../db/schema';
import { readGloveAsset } from '../model/gloveNode';
import { addRun } from '../db/runs';
import { parseStarter, STARTER_PATH } from '../model/starter';
import { predictUnseen } from './projectSource';
import { runTraining } from './trainJob';
import { projectData, TINY_MODEL, trainOnProject } from './testRuns';
import type { TrainMetrics } from './trainJob';
import { runWeakLabeling } from './weakJob';

const conll = (names: readonly [string, string][]) => names.map(([who, where]) => `${who} B-PER\nvisited O\n${where} B-LOC\n.\tO\n`).join('\n');
const names = [
  'Mary',
  'John',
  'Anna',
  'Peter',
  'Clara',
  'Hugo',
  'Lucy',
  'Mark',
  'Emma',
  'Paul',
  'Rita',
  'Oscar',
  'Nina',
  'Felix',
  'Ida',
  'Victor',
  'Olga',
  'Bruno',
  'Sara',
  'Igor',
];
const places = ['Paris', 'Rome', 'Oslo', 'Lima', 'Bern', 'Kyiv', 'Riga', 'Cairo', 'Delhi', 'Quito'];
const people: [string, string][] = names.map((who, k) => [who, places[k % places.length]]);
/** Every other person is in the gazetteer: the others are O in the weak labels, so only the dictionary and weak-label features tell a person. */
const listed = names.filter((_, k) => k % 2 === 0);

/** A project whose run trains on the weak aggregate of two gazetteers, with gold on dev. */
async function weakProject() {
  const db = new StudioDB(`predict-unseen-${Math.random()}`);
  const pid = await createProject(db, 'p');
  const gold = { kind: 'gold' as const, name: 'gold' };
  await importCorpus(db, pid, parseConll(conll(people), { file: 't.conll', scheme: 'BIO', split: 'train', layer: gold }));
  await importCorpus(db, pid, parseConll(conll(people.slice(0, 6)), { file: 'd.conll', scheme: 'BIO', split: 'dev', layer: gold }));
  await importGazetteer(db, pid, 'places', 'sensitive', { entries: places.map((phrase) => ({ phrase, type: 'LOC' })), patterns: [] });
  await importGazetteer(db, pid, 'people', 'sensitive', { entries: listed.map((phrase) => ({ phrase, type: 'PER' })), patterns: [] });
  await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
  const config = {
    data: await projectData(db, pid),
    // Words dropped often and matches never: the model learns to read the features, which the test then needs.
    model: { ...TINY_MODEL, wordDropout: 0.5, dictionaryDropout: 0 },
    method: { name: 'wsl' },
    train: { epochs: 20, batchSize: 2, lr: 0.02, patience: 20 },
    backend: 'wasm',
  };
  return { db, pid, config };
}

/** A decoupled run (paper 004) on the weak project's gold, with or without its token model's proposals. */
async function decoupledRun(proposer: boolean) {
  await initWasmBackend();
  const { db, pid, config } = await weakProject();
  const gold = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.kind === 'gold')!.id!;
  const run = await trainOnProject(db, pid, {
    ...config,
    data: { ...config.data, strongLayerId: gold },
    method: { name: 'supervised' },
    pipeline: { kind: 'decoupled', proposer, oShift: 'dev', mentionPretrain: { epochs: 1 } },
    train: { ...config.train, epochs: 4 },
  });
  return { db, pid, run };
}

/** The run's final model as the project keeps it. */
const finalModel = async (db: StudioDB, runId: number) =>
  (await db.models
    .where('runId')
    .equals(runId)
    .filter((m) => m.kind === 'final')
    .first())!;

/** Copies of the project's training and dev sentences, and `more` lines, come in as documents of no split: the originals and the copies, in order. */
async function importCopies(db: StudioDB, pid: number, file: string, more: string[] = []) {
  const originals = (await db.documents.where('projectId').equals(pid).sortBy('id')).filter((d) => d.split !== 'unassigned');
  const text = [...originals.map((d) => tokenTexts(d).join(' ')), ...more].join('\n');
  await importCorpus(db, pid, parseLines({ file, text }, [], { scheme: 'BIO', split: 'unassigned' }));
  const copies = (await db.documents.where('projectId').equals(pid).sortBy('id')).slice(-originals.length - more.length);
  return { originals, copies };
}

/** The spans of a layer's rows for these documents. */
async function spansOf(db: StudioDB, layerId: number, docs: readonly { id?: number }[]) {
  return (
    await layerRows(
      db,
      layerId,
      docs.map((d) => d.id!),
    )
  ).map((r) => r!.spans);
}

const assets = {
  fetchGlove: async () => readGloveAsset(),
  fetchStarter: async () => {
    throw new Error('no starter model here');
  },
  fetchPublic: async (path: string) => readFileSync(new URL(`../../public/${path}`, import.meta.url), 'utf8'),
};

describe("a finished run's model on documents imported after it", () => {
  it('predicts them as it predicted the same text in its run, once, reading the weak labels made since', async () => {
    await initWasmBackend();
    const { db, pid, config } = await weakProject();
    // One tagger decoding with no O shift (what the features say shows), then an ensemble with its O and type shifts chosen on dev.
    for (const [members, oShift] of [
      [1, 0],
      [2, 'dev'],
    ] as const) {
      // Each run trains on the newest aggregate (the one before was replaced when the weak labels were made again).
      const aggregate = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.role === 'aggregate')!.id!;
      const run = await trainOnProject(db, pid, {
        ...config,
        data: { ...config.data, layerId: aggregate },
        train: { ...config.train, members, oShift, typeShifts: oShift === 'dev' },
      });
      expect((await db.runs.get(run.runId))!.status).toBe('done');
      const layerId = run.metrics.predictedLayerId!;
      const stages: string[] = [];
      const predict = () => predictUnseen({ db, runId: run.runId, ...assets, emit: (e) => e.kind === 'stage' && stages.push(e.stage) });
      expect(await predict()).toEqual({ documents: 0, spans: 0, at: expect.any(Number) });
      // Documents come in after the run: a copy of each training and dev sentence, and one with a name it never saw.
      const { originals, copies } = await importCopies(db, pid, `new-${members}.txt`, ['Zora visited Oslo .']);
      // The annotator puts Zora in the gazetteer, and the weak labels are made again (so they label
      // the new documents): the run's training layer is gone.
      if (members === 1) await addToCorrectionsGazetteer(db, pid, 'Zora', 'PER');
      await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
      const added = await predict();
      expect(added.documents).toBe(originals.length + 1);
      expect(stages).toContain(
        `the run's training layer "aggregate (priority)" is gone (the weak labels were made again): the features read "aggregate (priority)"`,
      );
      expect(stages).toContain(`predicting ${originals.length + 1} documents the run has not seen`);
      const [seen, fresh] = await Promise.all([spansOf(db, layerId, originals), spansOf(db, layerId, copies)]);
      // The same words and the same features: the same spans as the run's own prediction of them, every one.
      expect(seen.some((r) => r.length)).toBe(true);
      expect(fresh.slice(0, -1)).toEqual(seen);
      if (members === 1)
        // Zora is a person because the newest weak labels and the dictionary say so: the model read them.
        expect(fresh[fresh.length - 1]).toEqual([
          { start: 0, end: 1, label: 'PER' },
          { start: 2, end: 3, label: 'LOC' },
        ]);
      expect(added.spans).toBe(fresh.reduce((n, r) => n + r.length, 0));
      // Their review signals: the model's uncertainty, the same as on the text it saw.
      const signal = (docId: number) => db.signals.get([run.runId, docId]).then((x) => x?.uncertainty && [...x.uncertainty]);
      for (const [k, d] of originals.entries()) expect(await signal(copies[k].id!)).toEqual(await signal(d.id!));
      expect(await signal(copies[copies.length - 1].id!)).toHaveLength(4);
      const metrics = (await db.runs.get(run.runId))!.metrics as TrainMetrics;
      expect(metrics.later).toEqual([added]);
      // The run's status and scores stay those of its end; a second call finds nothing left.
      expect(metrics.dev).toEqual(run.metrics.dev);
      expect(await predict()).toMatchObject({ documents: 0 });
      expect(((await db.runs.get(run.runId))!.metrics as TrainMetrics).later).toHaveLength(1);
      if (members === 2) {
        // The kept type shifts decode the new text too. Dev keeps them at 0 on this corpus, so a kept
        // shift that sinks PER stands in: the first sentence again has no person, and keeps its place.
        const model = await finalModel(db, run.runId);
        await db.models.update(model.id!, { state: { ...(model.state as object), typeShifts: { PER: -50 } } });
        expect(seen[0].map((s) => s.label)).toEqual(['PER', 'LOC']);
        await importCorpus(db, pid, parseLines({ file: 'again.txt', text: tokenTexts(originals[0]).join(' ') }, [], { scheme: 'BIO', split: 'unassigned' }));
        await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
        const again = (await db.documents.where('projectId').equals(pid).sortBy('id')).at(-1)!;
        expect(await predict()).toMatchObject({ documents: 1 });
        const [spans] = await spansOf(db, layerId, [again]);
        expect(spans.filter((s) => s.label === 'PER')).toEqual([]);
        expect(spans).toContainEqual(seen[0][1]);
      }
    }
  }, 240_000);

  it('reads the starter model and the public gazetteer library for the new text when its run read them', async () => {
    await initWasmBackend();
    const { db, pid, config } = await weakProject();
    const withAssets = {
      ...assets,
      fetchStarter: async () => parseStarter(JSON.parse(readFileSync(new URL(`../../public/${STARTER_PATH}`, import.meta.url), 'utf8'))),
    };
    const runId = await addRun(db, {
      projectId: pid,
      kind: 'train',
      config: { ...config, model: { ...config.model, starter: true, publicLibrary: true }, train: { ...config.train, epochs: 4 } },
      status: 'running',
      createdAt: Date.now(),
    });
    const metrics = await runTraining(db, runId, withAssets, () => {});
    expect(metrics.starter?.sentences).toBeGreaterThan(0);
    const { lexicon } = (await db.models.where('runId').equals(runId).first())!.state as { lexicon: string[] };
    expect(lexicon).toEqual(expect.arrayContaining(['LOC · public cities', 'PER · public person-name-parts', 'starter model: PER']));
    const { originals, copies } = await importCopies(db, pid, 'new.txt');
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    // Without the starter asset it cannot: the model reads its four groups.
    await expect(predictUnseen({ db, runId, ...assets, emit: () => {} })).rejects.toThrow('no starter model here');
    expect(await predictUnseen({ db, runId, ...withAssets, emit: () => {} })).toMatchObject({ documents: originals.length });
    const [seen, fresh] = await Promise.all([spansOf(db, metrics.predictedLayerId!, originals), spansOf(db, metrics.predictedLayerId!, copies)]);
    expect(seen.some((r) => r.length)).toBe(true);
    expect(fresh).toEqual(seen);
  }, 240_000);

  it("a decoupled run's model classifies the new text's candidates as it classified its own: the proposer's, the gazetteer's and the weak layer's", async () => {
    const { db, pid, run } = await decoupledRun(true);
    expect((await db.runs.get(run.runId))!.status).toBe('done');
    const layerId = run.metrics.predictedLayerId!;
    const { originals, copies } = await importCopies(db, pid, 'new.txt');
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    const stages: string[] = [];
    const added = await predictUnseen({ db, runId: run.runId, ...assets, emit: (e) => e.kind === 'stage' && stages.push(e.stage) });
    expect(added.documents).toBe(originals.length);
    expect(stages).toContain(`predicting ${originals.length} documents the run has not seen`);
    const [seen, fresh] = await Promise.all([spansOf(db, layerId, originals), spansOf(db, layerId, copies)]);
    expect(seen.some((r) => r.length)).toBe(true);
    expect(fresh).toEqual(seen);
    // The kept O shift decodes them: one that makes O certain leaves a new copy with no entity.
    const model = await finalModel(db, run.runId);
    await db.models.update(model.id!, { state: { ...(model.state as object), oShift: 50 } });
    await importCorpus(db, pid, parseLines({ file: 'again.txt', text: tokenTexts(originals[0]).join(' ') }, [], { scheme: 'BIO', split: 'unassigned' }));
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    expect(seen[0].length).toBeGreaterThan(0);
    expect(await predictUnseen({ db, runId: run.runId, ...assets, emit: () => {} })).toMatchObject({ documents: 1, spans: 0 });
    // A run recorded before its proposer's weights were kept says so, rather than labeling without it.
    const { proposer: _, ...older } = model.state as { proposer?: unknown };
    await db.models.update(model.id!, { state: older });
    await importCorpus(db, pid, parseLines({ file: 'later.txt', text: 'Mary visited Oslo .' }, [], { scheme: 'BIO', split: 'unassigned' }));
    await expect(predictUnseen({ db, runId: run.runId, ...assets, emit: () => {} })).rejects.toThrow(
      'this run kept no weights of its token model (candidate proposals): it was trained before the studio kept them, so train it again',
    );
  }, 240_000);

  it("a decoupled run reads later text's candidates from the gazetteers as they are then and from the weak layer", async () => {
    const { db, pid, run } = await decoupledRun(false);
    const layerId = run.metrics.predictedLayerId!;
    // "The Who" and "It Is" are made of stop words, so the candidate filter passes no span of them:
    // the first is a candidate only as a gazetteer entry (added after the weak labels were made), the
    // second only as a rule's weak span.
    await addRule(db, pid, { kind: 'regex', name: 'it is', label: 'LOC', pattern: 'It Is', ignoreCase: false });
    await importCorpus(db, pid, parseLines({ file: 'later.txt', text: 'Mary saw The Who .\nAnna saw It Is .' }, [], { scheme: 'BIO', split: 'unassigned' }));
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    await importGazetteer(db, pid, 'bands', 'sensitive', { entries: [{ phrase: 'The Who', type: 'PER' }], patterns: [] });
    // An O shift that O never wins: every candidate is labeled, so the spans show the candidates.
    const model = await finalModel(db, run.runId);
    await db.models.update(model.id!, { state: { ...(model.state as object), oShift: -50 } });
    expect(await predictUnseen({ db, runId: run.runId, ...assets, emit: () => {} })).toMatchObject({ documents: 2 });
    const later = (await db.documents.where('projectId').equals(pid).sortBy('id')).slice(-2);
    const [who, itIs] = (await spansOf(db, layerId, later)).map((r) => r.map((x) => [x.start, x.end]));
    expect(who).toContainEqual([2, 4]);
    expect(itIs).toContainEqual([2, 4]);
  }, 240_000);

  it('says where the weak labels miss a new document, and why a run cannot predict: not finished, or no model kept', async () => {
    await initWasmBackend();
    const { db, pid, config } = await weakProject();
    const run = await trainOnProject(db, pid, config);
    const stages: string[] = [];
    const predict = () => predictUnseen({ db, runId: run.runId, ...assets, emit: (e) => e.kind === 'stage' && stages.push(e.stage) });
    // A document the weak labels do not label yet: labeled without them, and said.
    await importCorpus(db, pid, parseLines({ file: 'new.txt', text: 'Mary visited Oslo .' }, [], { scheme: 'BIO', split: 'unassigned' }));
    expect(await predict()).toMatchObject({ documents: 1 });
    expect(stages).toContain(
      'this document has no weak labels, which this model reads as features: labeled without them (make the weak labels again first to give them theirs)',
    );
    await db.models.where('runId').equals(run.runId).delete();
    await expect(predict()).rejects.toThrow(`run ${run.runId} keeps no model to predict with: its model is not in this project`);
    await db.runs.update(run.runId, { status: 'failed' });
    await expect(predict()).rejects.toThrow(`run ${run.runId} has not finished with predictions: only a finished run predicts`);
  }, 120_000);
});
