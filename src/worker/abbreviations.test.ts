import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { initWasmBackend } from '../cli/train';
import { parseConll } from '../core/formats/conll';
import { createProject, importCorpus } from '../db/repo';
import { StudioDB } from '../db/schema';
import { trainOnProject } from './testRuns';

/** CoNLL lines from sentences of `word/TAG` tokens (a bare word is O). */
const conll = (sentences: string[]) =>
  sentences
    .map(
      (s) =>
        `${s
          .split(' ')
          .map((w) => (w.includes('/') ? w.replace('/', ' ') : `${w} O`))
          .join('\n')}\n`,
    )
    .join('\n');

describe("a run's model.abbreviations", () => {
  it('reads the short forms the text defines into the weak layer it trains on, its dictionary of that layer included, and says how many', async () => {
    await initWasmBackend();
    const db = new StudioDB(`abbreviations-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const weak = { kind: 'weak' as const, name: 'distant' };
    const gold = { kind: 'gold' as const, name: 'gold' };
    const train = [
      'The Kurdistan/B-ORG Democratic/I-ORG Party/I-ORG ( KDP ) met Anna/B-PER .',
      'KDP leaders met Boris/B-PER in Paris/B-LOC .',
      'Later KDP and Clara/B-PER agreed .',
    ];
    await importCorpus(db, pid, parseConll(conll(train), { file: 't.conll', scheme: 'BIO', split: 'train', layer: weak }));
    const dev = ['The KDP/B-ORG met Anna/B-PER in Paris/B-LOC .'];
    await importCorpus(db, pid, parseConll(conll(dev), { file: 'd.conll', scheme: 'BIO', split: 'dev', layer: gold }));
    const layers = await db.layers.where('projectId').equals(pid).toArray();
    const id = (name: string) => layers.find((l) => l.name === name)!.id!;
    const config = {
      data: { kind: 'project', projectId: pid, layerId: id('distant'), goldLayerId: id('gold') },
      model: { hidden: 8, charDim: 8, charFilters: 8, spelling: false },
      method: { name: 'wsl' },
      train: { epochs: 1, batchSize: 4 },
      backend: 'wasm',
    };
    const run = async (cfg: object) => {
      const r = await trainOnProject(db, pid, cfg);
      expect((await db.runs.get(r.runId))!.status).toBe('done');
      return r;
    };
    const dictionary = (stages: string[]) => stages.find((s) => s.startsWith('dictionary features: the project has no gazetteer'));
    const off = await run(config);
    // Without it, the layer's strings: the long form, three people, a place.
    expect(dictionary(off.stages)).toMatch(/its dictionary is the 5 distinct strings/);
    expect(off.stages.some((s) => s.includes('abbreviations'))).toBe(false);
    // One sentence of a document is its own document here: the definition holds in the one after it, not two after.
    const one = await run({ ...config, model: { ...config.model, abbreviations: { following: 1 } } });
    const said = 'the abbreviations the text defines, read into layer "distant" (a definition holds in its document and the 1 after it): 2 spans added';
    expect(one.stages).toContain(said);
    expect(one.metrics.features).toContain(said);
    expect(dictionary(one.stages)).toMatch(/its dictionary is the 6 distinct strings/);
    const two = await run({ ...config, model: { ...config.model, abbreviations: { following: 2 } } });
    expect(two.stages.find((s) => s.startsWith('the abbreviations'))).toMatch(/: 3 spans added$/);
    // The layer itself is as it was.
    const stored = await db.annotations.where('layerId').equals(id('distant')).toArray();
    expect(stored.reduce((n, a) => n + a.spans.length, 0)).toBe(5);
  }, 120_000);
});
