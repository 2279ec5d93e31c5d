import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { parseConll } from '../core/formats/conll';
import { parseGazetteerTsv } from '../core/formats/gazetteer';
import { layerRows } from './layerStore';
import { exportProject, importProject, NOT_IN_FILE, projectFileName, readProjectFile } from './projectFile';
import {
  addGazetteerEntry,
  addRule,
  addToStopList,
  correctionsLayer,
  createProject,
  importCorpus,
  importGazetteer,
  saveAnnotation,
  saveWeakLabels,
  updateGazetteer,
} from './repo';
import { StudioDB } from './schema';

const conll = 'Aspirin B-Chemical\ncauses O\nasthma B-Disease\n\nNo O\nharm O\n';

/** A project with every kind of thing a file carries, and a run's predicted layer, which it does not. */
async function sample(db: StudioDB): Promise<number> {
  const pid = await createProject(db, 'Drugs');
  await importCorpus(db, pid, parseConll(conll, { file: 'a.conll', scheme: 'BIO', split: 'dev', layer: { kind: 'gold', name: 'gold' } }));
  const { docIds } = await importCorpus(
    db,
    pid,
    parseConll('Ibuprofen O\nhelps O\n', { file: 't.conll', scheme: 'BIO', split: 'train', layer: { kind: 'gold', name: 'gold' } }),
  );
  const gid = await importGazetteer(db, pid, 'core.tsv', 'insensitive', parseGazetteerTsv('Chemical\tibuprofen\nDisease\tasthma\n', 'core.tsv'));
  await addGazetteerEntry(db, gid, 'harm', null);
  await updateGazetteer(db, gid, { caseUpTo: 2 });
  await addToStopList(db, pid, 'no');
  await addRule(db, pid, { kind: 'regex', name: 'suffix', label: 'Chemical', pattern: '\\w+fen\\b', ignoreCase: false });
  await saveWeakLabels(
    db,
    pid,
    docIds,
    [{ name: 'core.tsv', priority: 0, spans: [[{ start: 0, end: 1, label: 'Chemical' }]] }],
    [{ spans: [{ start: 0, end: 1, label: 'Chemical' }], oMode: 'complete', confidence: [0.9, 1] }],
    'hmm',
  );
  const corrections = await correctionsLayer(db, pid, 'corrections');
  await saveAnnotation(db, corrections, docIds[0], [{ start: 0, end: 1, label: 'Chemical' }], [1], {
    reviewedAt: { 0: 5 },
    rejected: ['1:2:Disease'],
    weakChanged: { 0: true },
  });
  const pred = await db.layers.add({ projectId: pid, kind: 'predicted', name: 'run 1', createdAt: 1 });
  await db.annotations.add({ layerId: pred, docId: docIds[0], spans: [], oMode: 'complete' });
  const [gold, agg] = [
    (await db.layers.where({ projectId: pid, kind: 'gold' }).first())!.id!,
    (await db.layers.filter((l) => l.name === 'aggregate (hmm)').first())!.id!,
  ];
  const data = { kind: 'project', projectId: pid, layerId: agg, goldLayerId: gold };
  const run = await db.runs.add({
    projectId: pid,
    kind: 'train',
    config: { data },
    status: 'done',
    metrics: { predictedLayerId: pred, dev: { f1: 0.5 } },
    createdAt: 1,
  });
  await db.runs.add({
    projectId: pid,
    kind: 'train',
    config: { data: { ...data, strongLayerId: corrections }, loop: { fromRunId: run, corrections: 1 } },
    status: 'failed',
    error: 'x',
    createdAt: 2,
  });
  await db.runs.add({ projectId: pid, kind: 'train', config: { data }, status: 'running', createdAt: 3 });
  await db.models.add({ runId: run, kind: 'final', state: {}, createdAt: 1 });
  return pid;
}

/** Everything a project holds that the file carries, with its ids read as positions, to compare two projects. */
async function contents(db: StudioDB, pid: number) {
  const docs = await db.documents.where('projectId').equals(pid).sortBy('id');
  const pos = new Map(docs.map((d, k) => [d.id!, k]));
  const layers = await db.layers.where('projectId').equals(pid).sortBy('id');
  return {
    project: (({ name: _n, id: _i, createdAt: _c, ...p }) => p)((await db.projects.get(pid))!),
    documents: docs.map(({ id: _i, projectId: _p, ...d }) => ({ ...d, offsets: Array.from(d.offsets) })),
    layers: await Promise.all(
      layers.map(async (l) => ({
        kind: l.kind,
        name: l.name,
        role: l.role,
        packed: !!l.packed,
        rows: (
          await layerRows(
            db,
            l,
            docs.map((d) => d.id!),
          )
        ).map((r) => r && (({ layerId: _l, docId, ...a }) => ({ ...a, doc: pos.get(docId) }))(r)),
      })),
    ),
    gazetteers: await Promise.all(
      (await db.gazetteers.where('projectId').equals(pid).sortBy('priority')).map(async ({ id, projectId: _p, ...g }) => ({
        ...g,
        entries: (await db.gazetteerEntries.where('gazetteerId').equals(id!).sortBy('id')).map((e) => [e.phrase, e.type]),
      })),
    ),
    rules: (await db.rules.where('projectId').equals(pid).sortBy('priority')).map(({ id: _i, projectId: _p, ...r }) => r),
  };
}

describe('a project as one file', () => {
  it('round-trips documents, gold, corrected and weak layers, gazetteers, stop lists and rules as a new project, with new ids', async () => {
    const db = new StudioDB(`pf-${Math.random()}`);
    const pid = await sample(db);
    const file = await exportProject(db, pid);
    expect(file.layers.map((l) => [l.kind, l.name])).toEqual([
      ['gold', 'gold'],
      ['weak', 'core.tsv'],
      ['weak', 'aggregate (hmm)'],
      ['corrected', 'corrections'],
    ]);
    // The file is text: what it holds is what is read back.
    const text = JSON.stringify(file);
    const got = await importProject(db, readProjectFile(text, 'drugs.json'));
    expect(got).toMatchObject({ name: 'Drugs (imported)', documents: 3, layers: 4, gazetteers: 2, rules: 1, runs: 2 });
    expect(got.projectId).not.toBe(pid);
    const [a, b] = [await contents(db, pid), await contents(db, got.projectId)];
    expect(b.documents).toEqual(a.documents);
    expect(b.gazetteers).toEqual(a.gazetteers);
    expect(b.gazetteers.find((g) => g.name === 'core.tsv')).toMatchObject({
      caseUpTo: 2,
      mode: 'insensitive',
      entries: [
        ['ibuprofen', 'Chemical'],
        ['asthma', 'Disease'],
        ['harm', null],
      ],
    });
    expect(b.gazetteers.find((g) => g.stop)).toMatchObject({ entries: [['no', null]] });
    expect(b.rules).toEqual(a.rules);
    expect(b.project).toEqual(a.project);
    // The run's predictions stay behind with the run.
    expect(b.layers).toEqual(a.layers.filter((l) => l.kind !== 'predicted'));
    expect(b.layers.find((l) => l.kind === 'weak')!.packed).toBe(true);
    // The finished runs come as records: their ids, and the ids their configs name, this project's; no model, no predictions.
    const layerOf = async (p: number, name: string) =>
      (await db.layers
        .where('projectId')
        .equals(p)
        .filter((l) => l.name === name)
        .first())!.id!;
    const runs = await db.runs.where('projectId').equals(got.projectId).sortBy('id');
    expect(runs.map((r) => [r.status, r.error])).toEqual([
      ['done', undefined],
      ['failed', 'x'],
    ]);
    const here = {
      kind: 'project',
      projectId: got.projectId,
      layerId: await layerOf(got.projectId, 'aggregate (hmm)'),
      goldLayerId: await layerOf(got.projectId, 'gold'),
    };
    expect(runs[0].config).toEqual({ data: here });
    expect(runs[1].config).toEqual({
      data: { ...here, strongLayerId: await layerOf(got.projectId, 'corrections') },
      loop: { fromRunId: runs[0].id, corrections: 1 },
    });
    expect(runs[0].metrics).toEqual({ dev: { f1: 0.5 }, pruned: NOT_IN_FILE });
    expect(
      await db.models
        .where('runId')
        .anyOf(runs.map((r) => r.id!))
        .count(),
    ).toBe(0);
    expect(got.runs).toBe(2);
    // A second import of the same file gets a name of its own.
    expect((await importProject(db, readProjectFile(text))).name).toBe('Drugs (imported 2)');
    expect(projectFileName('Drugs / 2026: v1')).toBe('Drugs_2026_v1.ner-studio.json');
  });

  it('refuses a bad file, naming where and what, before anything is stored', async () => {
    const db = new StudioDB(`pf-${Math.random()}`);
    const pid = await sample(db);
    const good = await exportProject(db, pid);
    const bad = (edit: (f: ReturnType<typeof structuredClone<typeof good>>) => void) => {
      const f = structuredClone(good);
      edit(f);
      return JSON.stringify(f);
    };
    const cases: [string, string | RegExp][] = [
      ['{', /^x\.json: not a project file: it is not JSON/],
      ['{"format": "conll"}', 'x.json: not a project file: it has no "format": "ner-studio-project"'],
      [bad((f) => (f.version = 9)), 'x.json: a project file of version 9, from a newer studio: this one reads version 1'],
      [bad((f) => ((f.documents[1] as { split: string }).split = 'holdout')), /^x\.json: documents\[1\] "a\.conll#2": split: must be one of "train", "dev"/],
      [bad((f) => (f.documents[0].offsets[3] = 999)), /^x\.json: documents\[0\] "a\.conll#1": offsets: token 1 \(8-999\) is not inside its text/],
      [
        bad((f) => (f.layers[0].annotations[0].spans[0].end = 9)),
        /^x\.json: layers\[0\] "gold": annotations\[0\]: spans\[0\]: tokens 0-9 are not a span of the document's 3 tokens/,
      ],
      [bad((f) => (f.layers[0].annotations[0].spans[0].label = 'Gene')), /label "Gene" is not a type of the project \(Chemical, Disease\)/],
      [bad((f) => (f.layers[0].annotations[0].doc = 77)), 'x.json: layers[0] "gold": annotations[0]: document 77 is not in the file'],
      [
        bad((f) => (f.gazetteers.find((g) => g.name === 'core.tsv')!.caseUpTo = 40)),
        /^x\.json: gazetteers\[\d\] "core\.tsv": caseUpTo: short entries keep their case up to a whole number/,
      ],
      [bad((f) => ((f.rules[0].rule as { pattern: string }).pattern = '(')), /^x\.json: rules\[0\] "suffix": /],
      [
        bad((f) => ((f.layers[0].annotations[0] as Record<string, unknown>).colour = 'red')),
        /^x\.json: layers\[0\] "gold": annotations\[0\]: unknown option "colour"/,
      ],
      [bad((f) => (f.rules[0].rule.label = 'Gene')), 'x.json: rules[0] "suffix": rule.label: "Gene" is not a type of the project (Chemical, Disease)'],
      [
        bad((f) => (f.gazetteers.find((g) => g.name === 'core.tsv')!.entries[1][1] = 'Gene')),
        /gazetteers\[\d\] "core\.tsv": entries\[1\] "asthma": type "Gene" is not a type/,
      ],
    ];
    const before = await db.documents.count();
    const projects = await db.projects.count();
    for (const [text, message] of cases) expect(() => readProjectFile(text, 'x.json'), String(message)).toThrow(message);
    expect([await db.documents.count(), await db.projects.count()]).toEqual([before, projects]);
  });

  it('stores all of a file or nothing: a failure half-way leaves no project behind', async () => {
    const db = new StudioDB(`pf-${Math.random()}`);
    const file = await exportProject(db, await sample(db));
    const counts = async () => Promise.all([db.projects.count(), db.documents.count(), db.layers.count(), db.gazetteers.count(), db.gazetteerEntries.count()]);
    const before = await counts();
    // A value IndexedDB cannot store, in the last gazetteer: the documents and layers went in before it failed.
    (file.gazetteers[1] as { createdAt: unknown }).createdAt = () => 0;
    await expect(importProject(db, file)).rejects.toThrow();
    expect(await counts()).toEqual(before);
  });
});
