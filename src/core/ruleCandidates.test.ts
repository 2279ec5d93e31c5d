import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isScoredOnly, planExperiment } from './experimentConfig';
import { bestOnDevBySeed, KEPT_PRIORS, RULE_CANDIDATES } from './ruleCandidates';

describe('the rule’s candidates', () => {
  it('are the suite config’s trained rows, with its model and training options', () => {
    const raw = JSON.parse(readFileSync(new URL('../../bench/configs/corpora.json', import.meta.url), 'utf8'));
    const trained = raw.methods.filter((m: { method: { name: string } }) => !isScoredOnly(m.method.name)).map((m: { label: string }) => m.label);
    // The rows the rule keeps word dropout for (bench/configs/word-dropout.json's methods) say so.
    const kept = JSON.parse(readFileSync(new URL('../../bench/configs/word-dropout.json', import.meta.url), 'utf8'));
    const withPrior = new Set(kept.methods.map((m: { label: string }) => m.label));
    expect(withPrior.size).toBe(2);
    // Weight averaging, run on top of word dropout, for the rows of weight-average.json.
    const stacked = JSON.parse(readFileSync(new URL('../../bench/configs/weight-average.json', import.meta.url), 'utf8'));
    const withBoth = new Set(stacked.methods.map((m: { label: string }) => m.label));
    expect([...withBoth]).toEqual(['WSL with the priors (dictionary features, O shift on dev)']);
    expect(RULE_CANDIDATES.methods.map((m) => m.label)).toEqual(
      trained.map((l: string) => (withBoth.has(l) ? `${l} + word dropout 0.1 + weight average 0.99` : withPrior.has(l) ? `${l} + word dropout 0.1` : l)),
    );
    expect(trained).toContain('WSL without dictionary features');
    expect(RULE_CANDIDATES.model).toEqual(raw.model);
    expect(RULE_CANDIDATES.train).toEqual(raw.train);
  });

  it('carry the priors the rule keeps with every corpus of the suite voting, as bench/results/loco.json records them', () => {
    const loco = JSON.parse(readFileSync(new URL('../../bench/results/loco.json', import.meta.url), 'utf8'));
    const kept = (loco.everyCorpus.priors as { name: string; rows: string[] }[]).filter((p) => p.rows.length);
    expect(KEPT_PRIORS.map((p) => [p.name, p.rows])).toEqual(kept.map((p) => [p.name, p.rows]));
    // Each kept prior's config ran the rows it is kept for.
    for (const p of KEPT_PRIORS) {
      const labels = (p.config as { methods: { label: string }[] }).methods.map((m) => m.label);
      for (const row of p.rows) expect(labels, `${p.name}: ${row}`).toContain(row);
    }
  });

  it('plan on a project’s layers as the suite ran them', () => {
    const { runs, skipped } = planExperiment(
      { ...RULE_CANDIDATES, seeds: [1] },
      { data: { kind: 'project', projectId: 1, layerId: 2, goldLayerId: 3 }, model: { hidden: 7, dictionaryDropout: 0.25 } },
    );
    expect(skipped).toEqual([]);
    expect(runs).toHaveLength(RULE_CANDIDATES.methods.length);
    const byLabel = new Map(runs.map((r) => [r.label, r.config]));
    // The suite's model wins over the form's.
    for (const c of byLabel.values()) expect(c.model.hidden).toBe(100);
    expect(byLabel.get('WSL without dictionary features')!.model.dictionary).toBe(false);
    const page = runs.find((r) => r.config.pipeline.kind === 'completion' && r.config.model.dictionary)!;
    expect(page.config.model.dictionaryDropout).toBe('dev');
    expect(page.config.model.weakFeatures).toBe(true);
    // Word dropout where the rule keeps it, and off (the suite's pinned 0, not the schema's 0.1) on the other rows.
    expect(page.config.model.wordDropout).toBe(0.1);
    const wslPriors = byLabel.get('WSL with the priors (dictionary features, O shift on dev) + word dropout 0.1 + weight average 0.99')!;
    expect(wslPriors.model.wordDropout).toBe(0.1);
    expect(wslPriors.train.average).toBe(0.99);
    expect(page.config.train.average).toBe(0);
    expect(byLabel.get('WSL without dictionary features')!.model.wordDropout).toBe(0);
    expect([...byLabel.values()].filter((c) => c.model.wordDropout === 0.1)).toHaveLength(2);
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
