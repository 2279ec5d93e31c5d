import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isScoredOnly, planExperiment } from './experimentConfig';
import { bestOnDevBySeed, KEPT_PRIORS, KEPT_PRIORS_WHERE_INERT, keptPriorsFor, LIBRARY_PRIOR, ruleCandidates } from './ruleCandidates';

const json = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
const NEWS = ['PER', 'LOC', 'ORG', 'MISC'];
const CHEMISTRY = ['Chemical', 'Disease'];

describe('the rule’s candidates', () => {
  it('read the priors the rule keeps with every corpus voting (and where the library cannot apply) from loco.json, each run by its config for the rows it is kept for', () => {
    const every = json('bench/results/loco.json').everyCorpus as {
      priors: { name: string; rows: string[] }[];
      whereInert: { prior: string; priors: { name: string; rows: string[] }[] }[];
    };
    const view = (ps: { name: string; rows: string[] }[]) => ps.filter((p) => p.rows.length).map((p) => [p.name, p.rows]);
    expect(KEPT_PRIORS.map((k) => [k.prior.name, k.rows])).toEqual(view(every.priors));
    for (const w of every.whereInert)
      expect(
        (KEPT_PRIORS_WHERE_INERT[w.prior] ?? KEPT_PRIORS).map((k) => [k.prior.name, k.rows]),
        w.prior,
      ).toEqual(view(w.priors));
    // Each kept prior's config ran the rows it is kept for.
    for (const { prior, rows } of [...KEPT_PRIORS, ...Object.values(KEPT_PRIORS_WHERE_INERT).flat()]) {
      const labels = (prior.config as { methods: { label: string }[] }).methods.map((m) => m.label);
      for (const row of rows) expect(labels, `${prior.name}: ${row}`).toContain(row);
    }
  });

  it('are the suite config’s trained rows, with its model and training options and each kept prior’s, their labels saying which', () => {
    const raw = json('bench/configs/corpora.json');
    const trained: string[] = raw.methods.filter((m: { method: { name: string } }) => !isScoredOnly(m.method.name)).map((m: { label: string }) => m.label);
    expect(trained).toContain('WSL without dictionary features');
    for (const types of [NEWS, CHEMISTRY]) {
      const kept = keptPriorsFor(types);
      const c = ruleCandidates(types);
      const suffix = (label: string) =>
        kept
          .filter((k) => k.rows.includes(label))
          .map((k) => ` + ${k.prior.over ? k.prior.name.slice(k.prior.over.length + 3) : k.prior.name}`)
          .join('');
      expect(c.methods.map((m) => m.label)).toEqual(trained.map((l) => l + suffix(l)));
      expect(c.model).toEqual(raw.model);
      expect(c.train).toEqual(raw.train);
    }
    // The library cannot apply to chemicals and diseases: where it is kept, a project of them reads the rule's alternative.
    const library = KEPT_PRIORS.some((k) => k.prior.name === LIBRARY_PRIOR && k.rows.length);
    expect(keptPriorsFor(CHEMISTRY).some((k) => k.prior.name === LIBRARY_PRIOR)).toBe(false);
    expect(keptPriorsFor(NEWS).some((k) => k.prior.name === LIBRARY_PRIOR)).toBe(library);
    expect(ruleCandidates(NEWS).file).toMatch(/^bench\/configs\/corpora\.json, with word-dropout\.json/);
  });

  it('read the abbreviations with the window measured on text of one sentence a document, and within its own document in a project of real documents', () => {
    const measured = json('bench/configs/abbreviations.json').settings[0].abbreviations;
    const windows = (c: ReturnType<typeof ruleCandidates>) => c.methods.filter((m) => m.label.includes('abbreviations')).map((m) => m.model?.abbreviations);
    for (const types of [NEWS, CHEMISTRY]) {
      const rows = windows(ruleCandidates(types)).length;
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBe(keptPriorsFor(types).find((k) => k.prior.name === 'word dropout 0.1 + abbreviations')?.rows.length ?? 0);
      expect(windows(ruleCandidates(types))).toEqual(Array(rows).fill(measured));
      expect(windows(ruleCandidates(types, { oneSentenceDocuments: true }))).toEqual(Array(rows).fill(measured));
      expect(windows(ruleCandidates(types, { oneSentenceDocuments: false }))).toEqual(Array(rows).fill({ following: 0 }));
    }
  });

  it('plan on a project’s layers as the suite ran them', () => {
    for (const types of [NEWS, CHEMISTRY]) {
      const candidates = ruleCandidates(types);
      const { runs, skipped } = planExperiment(
        { ...candidates, seeds: [1] },
        { data: { kind: 'project', projectId: 1, layerId: 2, goldLayerId: 3 }, model: { hidden: 7, dictionaryDropout: 0.25 } },
      );
      expect(skipped).toEqual([]);
      expect(runs).toHaveLength(candidates.methods.length);
      const byLabel = new Map(runs.map((r) => [r.label, r.config]));
      // The suite's model wins over the form's.
      for (const c of byLabel.values()) expect(c.model.hidden).toBe(100);
      expect(byLabel.get('WSL without dictionary features')!.model.dictionary).toBe(false);
      const page = runs.find((r) => r.config.pipeline.kind === 'completion' && r.config.model.dictionary)!;
      expect(page.config.model.dictionaryDropout).toBe('dev');
      expect(page.config.model.weakFeatures).toBe(true);
      // Word dropout where the rule keeps it, and off (the suite's pinned 0, not the schema's 0.1) on the other rows.
      expect(page.config.model.wordDropout).toBe(0.1);
      expect(byLabel.get('WSL without dictionary features')!.model.wordDropout).toBe(0);
      expect([...byLabel.values()].filter((c) => c.model.wordDropout === 0.1)).toHaveLength(2);
      // Each kept prior's options on exactly its rows: weight averaging's train.average, the library's and the abbreviations' run options.
      for (const [label, c] of byLabel) {
        expect(c.train.average, label).toBe(label.includes('weight average 0.99') ? 0.99 : 0);
        expect(c.model.publicLibrary, label).toBe(label.includes('public gazetteers'));
        expect(c.model.abbreviations, label).toEqual(
          label.includes('abbreviations') ? json('bench/configs/abbreviations.json').settings[0].abbreviations : undefined,
        );
      }
    }
  });
});

describe('bestOnDevBySeed', () => {
  const labels = ['a', 'b', 'c'];
  it('chooses per seed among finished runs with a dev score, the newest run of a label counting', () => {
    const runs = [
      { id: 1, status: 'done', label: 'a', seed: 1, dev: 0.5, test: 0.4 },
      { id: 2, status: 'done', label: 'b', seed: 1, dev: 0.6, test: 0.3 },
      { id: 3, status: 'done', label: 'c', seed: 1, dev: 0.55 },
      { id: 4, status: 'done', label: 'a', seed: 2, dev: 0.7, test: 0.6 },
      { id: 5, status: 'failed', label: 'b', seed: 2, dev: 0.9 },
      { id: 6, status: 'done', label: 'x', seed: 2, dev: 0.99 },
      // Re-run of b on seed 1: the newer one counts, and it is worse.
      { id: 7, status: 'done', label: 'b', seed: 1, dev: 0.45, test: 0.5 },
    ];
    expect(bestOnDevBySeed(runs, labels)).toEqual([
      { seed: 1, best: { id: 3, label: 'c', dev: 0.55 }, done: 3, missing: [] },
      { seed: 2, best: { id: 4, label: 'a', dev: 0.7, test: 0.6 }, done: 1, missing: ['b', 'c'] },
    ]);
  });

  it('breaks ties to the earlier label, as the rule does, and leaves out seeds with nothing finished', () => {
    const runs = [
      { id: 9, status: 'done', label: 'b', seed: 3, dev: 0.5 },
      { id: 8, status: 'done', label: 'a', seed: 3, dev: 0.5 },
      { id: 10, status: 'running', label: 'a', seed: 4 },
    ];
    expect(bestOnDevBySeed(runs, labels).map((c) => [c.seed, c.best.label])).toEqual([[3, 'a']]);
  });
});
