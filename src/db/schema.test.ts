import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { docRows, eachRow, layerRows } from './layerStore';
import { deleteProject, layerAnnotations, projectStats, saveWeakLabels } from './repo';
import { SCHEMA_V1, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, StudioDB } from './schema';

describe('schema migrations', () => {
  it('v7 -> v8: training runs stored before word dropout was on by default keep it off; newer runs and weak runs are left as they are', async () => {
    const name = `migrate-${Math.random()}`;
    const v7 = new Dexie(name);
    v7.version(7).stores(SCHEMA_V7);
    await v7.open();
    const model = { encoder: 'bilstm', hidden: 100, dropout: 0.5 };
    await v7.table('runs').bulkAdd([
      { projectId: 1, kind: 'train', status: 'done', config: { name: 'old', model, train: { seed: 1 } }, createdAt: 1 },
      { projectId: 1, kind: 'train', status: 'running', config: { name: 'no model' }, createdAt: 2 },
      { projectId: 1, kind: 'train', status: 'done', config: { name: 'set', model: { ...model, wordDropout: 0.2 } }, createdAt: 3 },
      { projectId: 1, kind: 'weak', status: 'done', config: { aggregate: 'hmm' }, createdAt: 4 },
    ]);
    v7.close();
    const db = new StudioDB(name);
    await db.open();
    expect(db.verno).toBe(8);
    const runs = await db.runs.orderBy('id').toArray();
    expect(runs.map((r) => r.config)).toEqual([
      { name: 'old', model: { ...model, wordDropout: 0 }, train: { seed: 1 } },
      { name: 'no model', model: { wordDropout: 0 } },
      { name: 'set', model: { ...model, wordDropout: 0.2 } },
      { aggregate: 'hmm' },
    ]);
    db.close();
  });

  it('v1 -> v6 turns offset arrays into Uint32Array and counts tokens, keeping every record', async () => {
    const name = `migrate-${Math.random()}`;
    const v1 = new Dexie(name);
    v1.version(1).stores(SCHEMA_V1);
    await v1.open();
    const projectId = (await v1.table('projects').add({ name: 'old', types: [], scheme: 'BIO', createdAt: 1 })) as number;
    await v1.table('documents').bulkAdd([
      { projectId, name: 'a', text: 'a b', offsets: [0, 1, 2, 3], sentenceStarts: [0], split: 'train' },
      { projectId, name: 'b', text: 'c', offsets: [0, 1], sentenceStarts: [0], split: 'dev' },
    ]);
    await v1.table('annotations').add({ layerId: 1, docId: 1, spans: [{ start: 0, end: 1, label: 'X' }], oMode: 'complete' });
    v1.close();

    const db = new StudioDB(name);
    await db.open();
    expect(db.verno).toBe(8);
    expect(await db.signals.count()).toBe(0);
    const docs = await db.documents.orderBy('id').toArray();
    expect(docs.map((d) => d.offsets)).toEqual([Uint32Array.from([0, 1, 2, 3]), Uint32Array.from([0, 1])]);
    expect(docs.map((d) => d.tokenCount)).toEqual([2, 1]);
    expect(await db.annotations.get([1, 1])).toMatchObject({ spans: [{ start: 0, end: 1, label: 'X' }] });
    // v3 dropped the single-field annotation indexes; the rows stay, reachable by key prefix.
    expect([...db.annotations.schema.indexes.map((i) => i.name)]).toEqual([]);
    expect(await db.annotations.where('[layerId+docId]').between([1, 0], [1, Infinity]).count()).toBe(1);
    expect(await db.projects.count()).toBe(1);
    db.close();
  });

  it('v5 -> v6 adds the encoders table; word vectors written before spelled rows stay readable', async () => {
    const name = `migrate-${Math.random()}`;
    const v5 = new Dexie(name);
    v5.version(5).stores(SCHEMA_V5);
    await v5.open();
    await v5.table('embeddings').put({ projectId: 1, words: ['cat'], absent: ['zzq'], dims: 2, vectors: Float32Array.from([1, 2]) });
    await v5.table('runs').add({ projectId: 1, status: 'done', config: {}, createdAt: 1 });
    v5.close();
    const db = new StudioDB(name);
    await db.open();
    expect(db.verno).toBe(8);
    expect(await db.encoders.count()).toBe(0);
    const row = await db.embeddings.get(1);
    expect(row).toMatchObject({ words: ['cat'], absent: ['zzq'], dims: 2 });
    expect(row?.spelledFrom).toBeUndefined();
    expect(await db.runs.count()).toBe(1);
    db.close();
  });

  it('v6 -> v7: weak layers stored a row a document read as before, and the next weak labels replace them packed', async () => {
    const name = `migrate-${Math.random()}`;
    const v6 = new Dexie(name);
    v6.version(6).stores(SCHEMA_V6);
    await v6.open();
    const projectId = (await v6.table('projects').add({ name: 'old', types: [{ name: 'X', color: '#000' }], scheme: 'BIO', createdAt: 1 })) as number;
    const docIds = (await v6.table('documents').bulkAdd(
      [
        { projectId, name: 'a', text: 'a b', offsets: Uint32Array.from([0, 1, 2, 3]), sentenceStarts: [0], split: 'train', tokenCount: 2 },
        { projectId, name: 'b', text: 'c', offsets: Uint32Array.from([0, 1]), sentenceStarts: [0], split: 'dev', tokenCount: 1 },
      ],
      { allKeys: true },
    )) as number[];
    const weak = (await v6.table('layers').add({ projectId, kind: 'weak', name: 'aggregate (hmm)', role: 'aggregate', createdAt: 1 })) as number;
    const gold = (await v6.table('layers').add({ projectId, kind: 'gold', name: 'gold', createdAt: 1 })) as number;
    await v6.table('annotations').bulkAdd([
      { layerId: weak, docId: docIds[0], spans: [{ start: 1, end: 2, label: 'X' }], oMode: 'complete', confidence: [1, 0.9] },
      { layerId: weak, docId: docIds[1], spans: [], oMode: 'complete' },
      { layerId: gold, docId: docIds[1], spans: [{ start: 0, end: 1, label: 'X' }], oMode: 'complete' },
    ]);
    v6.close();

    const db = new StudioDB(name);
    await db.open();
    expect(db.verno).toBe(8);
    expect(await layerAnnotations(db, weak, docIds)).toEqual([
      { layerId: weak, docId: docIds[0], spans: [{ start: 1, end: 2, label: 'X' }], oMode: 'complete', confidence: [1, 0.9] },
      { layerId: weak, docId: docIds[1], spans: [], oMode: 'complete' },
    ]);
    expect((await layerRows(db, gold, docIds)).map((r) => r?.spans.length)).toEqual([undefined, 1]);
    expect((await projectStats(db, projectId)).layers.map((l) => [l.name, l.documents, l.spans])).toEqual([
      ['aggregate (hmm)', 2, 1],
      ['gold', 1, 1],
    ]);

    // New weak labels: the old rows go, the new layers are packed, and read the same way.
    const spans = [[{ start: 0, end: 1, label: 'X' }], []];
    await saveWeakLabels(
      db,
      projectId,
      docIds,
      [{ name: 'g', priority: 0, spans }],
      [
        { spans: spans[0], oMode: 'complete' },
        { spans: [], oMode: 'complete' },
      ],
      'hmm',
    );
    expect(await db.annotations.count()).toBe(1);
    const layers = await db.layers.where('projectId').equals(projectId).sortBy('id');
    expect(layers.map((l) => [l.name, !!l.packed])).toEqual([
      ['gold', false],
      ['g', true],
      ['aggregate (hmm)', true],
    ]);
    expect(await db.layerChunks.count()).toBe(2);
    expect((await docRows(db, layers, docIds[0])).map((r) => r?.spans.length)).toEqual([undefined, 1, 1]);
    const seen: number[] = [];
    await eachRow(db, layers[2], (r) => seen.push(r.docId));
    expect(seen).toEqual(docIds);
    await deleteProject(db, projectId);
    expect(await db.layerChunks.count()).toBe(0);
    expect(await db.annotations.count()).toBe(0);
    db.close();
  });
});
