import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { parseConll } from '../core/formats/conll';
import { exportLayer } from './exportLayer';
import { createProject, importCorpus } from './repo';
import { StudioDB } from './schema';

describe('a layer exported as files, in the query worker', () => {
  it('writes only the documents the layer annotates, in the chosen format, and says what it left out', async () => {
    const db = new StudioDB(`export-${Math.random()}`);
    const projectId = await createProject(db, 'p');
    await importCorpus(
      db,
      projectId,
      parseConll('Aspirin B-Chemical\nhelps O\n', { file: 'a.conll', scheme: 'BIO', split: 'train', layer: { kind: 'gold', name: 'gold' } }),
    );
    // A second document in another layer only: the gold layer does not annotate it.
    await importCorpus(
      db,
      projectId,
      parseConll('Warfarin B-Chemical\n', { file: 'b.conll', scheme: 'BIO', split: 'dev', layer: { kind: 'weak', name: 'distant' } }),
    );
    const gold = (await db.layers.where('[projectId+kind]').equals([projectId, 'gold']).first())!.id!;
    const conll = await exportLayer(db, projectId, gold, 'my gold', 'conll', 'BIO');
    expect(conll.files).toEqual([{ name: 'my_gold.conll', text: 'Aspirin\tB-Chemical\nhelps\tO\n', type: 'text/plain' }]);
    expect(conll.files[0].text).not.toContain('Warfarin');
    expect(conll.message).toBe('Exported the 1 documents "my gold" annotates; the other 1 have no annotation in it and were left out.');
    const lines = await exportLayer(db, projectId, gold, 'g', 'lines', 'BIO');
    expect(lines.files.map((f) => [f.name, f.text.trim()])).toEqual([
      ['g_text.txt', 'Aspirin helps'],
      ['g_labels.txt', 'B-Chemical O'],
    ]);
    const none = await db.layers.add({ projectId, kind: 'gold', name: 'empty', createdAt: 0 });
    expect(await exportLayer(db, projectId, none, 'empty', 'jsonl', 'BIO')).toEqual({
      files: [],
      message: 'Nothing to export: layer "empty" annotates no document.',
    });
  });
});
