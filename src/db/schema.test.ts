import 'fake-indexeddb/auto';
import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { SCHEMA_V1, SCHEMA_V5, StudioDB } from './schema';

describe('schema migrations', () => {
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
    expect(db.verno).toBe(6);
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
    expect(db.verno).toBe(6);
    expect(await db.encoders.count()).toBe(0);
    const row = await db.embeddings.get(1);
    expect(row).toMatchObject({ words: ['cat'], absent: ['zzq'], dims: 2 });
    expect(row?.spelledFrom).toBeUndefined();
    expect(await db.runs.count()).toBe(1);
    db.close();
  });
});
