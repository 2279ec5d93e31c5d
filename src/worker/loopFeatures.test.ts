import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { initWasmBackend } from '../cli/train';
import { parseConll } from '../core/formats/conll';
import { addToCorrectionsGazetteer, createProject, importCorpus, importGazetteer } from '../db/repo';
import { StudioDB } from '../db/schema';
import { trainOnProject } from './testRuns';

/** Sentences that name a person in a place, in CoNLL form. */
const conll = (names: readonly [string, string][]) => names.map(([who, where]) => `${who} B-PER\nvisited O\n${where} B-LOC\n.\tO\n`).join('\n');

describe("the review loop's fine-tune and the dictionary", () => {
  it('reads the gazetteers through its model: a type added since is left out, said, and the fine-tune trains', async () => {
    await initWasmBackend();
    const db = new StudioDB(`loop-features-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const layer = { kind: 'gold' as const, name: 'gold' };
    const people: [string, string][] = [
      ['Mary', 'Paris'],
      ['John', 'Rome'],
      ['Anna', 'Oslo'],
      ['Peter', 'Lima'],
      ['Clara', 'Bern'],
      ['Hugo', 'Kyiv'],
    ];
    await importCorpus(db, pid, parseConll(conll(people), { file: 't.conll', scheme: 'BIO', split: 'train', layer }));
    await importCorpus(db, pid, parseConll(conll(people.slice(0, 3)), { file: 'd.conll', scheme: 'BIO', split: 'dev', layer }));
    await importGazetteer(db, pid, 'places', 'sensitive', { entries: [{ phrase: 'Paris', type: 'LOC' }], patterns: [] });
    const gold = (await db.layers.where('projectId').equals(pid).first())!.id!;
    const config = {
      data: { kind: 'project', projectId: pid, layerId: gold, goldLayerId: gold },
      model: { hidden: 8, charDim: 8, charFilters: 8, weakFeatures: false },
      method: { name: 'supervised' },
      train: { epochs: 1, batchSize: 4 },
      backend: 'wasm',
    };
    const run = (cfg: object) => trainOnProject(db, pid, cfg);
    const first = await run(config);
    expect(first.stages).toContain('dictionary features from 1 entries (LOC)');
    // The annotator adds a person to the gazetteer: PER had no dictionary feature when the model trained.
    await addToCorrectionsGazetteer(db, pid, 'Mary', 'PER');
    const loop = await run({ ...config, loop: { fromRunId: first.runId, corrections: 1 } });
    expect(loop.stages).toContain('dictionary features of PER left out: the model being fine-tuned has none (a fresh run reads them)');
    expect(loop.stages).toContain('dictionary features from 1 entries (LOC)');
    expect((await db.runs.get(loop.runId))!.status).toBe('done');
    // A fresh run reads the new type.
    const fresh = await run(config);
    expect(fresh.stages).toContain('dictionary features from 2 entries (LOC, PER)');
    // With the public gazetteer library: its lists of the project's kinds of type, each a group of its own, beside the project's.
    const library = await run({ ...config, model: { ...config.model, publicLibrary: true } });
    expect(library.stages).toContain('the public gazetteer library: cities as LOC, countries as LOC, person-name-parts as PER');
    const groups = ['LOC', 'LOC · public cities', 'LOC · public countries', 'PER', 'PER · public person-name-parts'];
    expect(library.stages.find((x) => x.startsWith('dictionary features from'))).toMatch(new RegExp(`entries \\(${groups.join(', ')}\\)$`));
    expect((await db.runs.get(library.runId))!.status).toBe('done');
    expect(library.metrics.publicLibrary).toEqual([
      { id: 'cities', type: 'LOC' },
      { id: 'countries', type: 'LOC' },
      { id: 'person-name-parts', type: 'PER' },
    ]);
  }, 120_000);
});
