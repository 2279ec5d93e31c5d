import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExperimentMethods, parseSeeds, planExperiment } from './experimentConfig';
import { parseRunConfig, runGroupKey } from './runConfig';

const base = parseRunConfig({
  data: { kind: 'project', projectId: 1, layerId: 2, goldLayerId: 3 },
  model: { encoder: 'bilstm', hidden: 16, head: 'crf' },
  train: { epochs: 3, lr: 0.01, seed: 9 },
  backend: 'wasm',
});

describe('experiments on a project (the training page)', () => {
  it('plans a committed config: every trained method × seed on the project, each with its options', () => {
    const file = 'bench/configs/noise-aware-conll03.json';
    const exp = parseExperimentMethods(readFileSync(file, 'utf8'), file);
    const { runs, skipped } = planExperiment(exp, base);
    expect(skipped).toEqual(['distant labels themselves']);
    expect(runs).toHaveLength(exp.methods.slice(1).reduce((n, m) => n + (m.seeds ?? exp.seeds).length, 0));
    expect(runs.filter((r) => r.label.startsWith('NEEDLE, two rounds')).map((r) => [r.seed, (r.config.pipeline as { rounds: number }).rounds])).toEqual([
      [1, 2],
    ]);
    const run = (label: string, seed: number) => runs.find((r) => r.label === label && r.seed === seed)!.config;
    // The file's model and training options over the form's; the project's data and backend kept.
    const needle = run('NEEDLE (w/o FT: no strong labels here)', 2);
    expect(needle.pipeline).toMatchObject({ kind: 'needle', ft: false, wlc: true });
    expect(needle.train).toMatchObject({ seed: 2, epochs: exp.train.epochs ?? 3 });
    // An ablation row runs one seed (the issue allows it); the method's main row three.
    expect(runs.filter((r) => r.label === 'NEEDLE w/o FT').map((r) => r.seed)).toEqual([1]);
    expect(runs.filter((r) => r.label === 'NEEDLE').map((r) => r.seed)).toEqual([1, 2, 3]);
    expect(needle.data).toEqual(base.data);
    expect(needle.backend).toBe('wasm');
    expect(needle.label).toBe('NEEDLE (w/o FT: no strong labels here)');
    expect(run('  w/o GCE', 1).method).toMatchObject({ name: 'roster', q: 0 });
    expect(run('  w/o GCE', 1).model.head).toBe('twopart');
    // The seeds of one method form one group (the comparison's mean ± std); methods do not mix.
    expect(runGroupKey(run('SST', 1))).toBe(runGroupKey(run('SST', 3)));
    expect(runGroupKey(run('SST', 1))).not.toBe(runGroupKey(run('WSL', 1)));
    // A run stored before ensembles existed has no train.members: it is the one-model run of today.
    const sst = run('SST', 1);
    const { members: _members, ...stored } = sst.train;
    expect(sst.train.members).toBe(1);
    expect(runGroupKey({ ...sst, train: stored as typeof sst.train })).toBe(runGroupKey(sst));
    expect(runGroupKey({ ...sst, train: { ...sst.train, members: 3 } })).not.toBe(runGroupKey(sst));
  });

  it('plans every committed config on a project', () => {
    const files = readdirSync('bench/configs').filter((f) => /^(noise-aware|missing-annotations|decoupled)-.*\.json$/.test(f));
    for (const f of files)
      expect(planExperiment(parseExperimentMethods(readFileSync(join('bench/configs', f), 'utf8'), f), base).runs.length, f).toBeGreaterThan(0);
  });

  it('says what is wrong with a config or a seed list', () => {
    expect(() => parseExperimentMethods('{"name": "x"', 'a.json')).toThrow(/a\.json: invalid JSON/);
    expect(() => parseExperimentMethods('{"name": "x", "methods": [{"label": "a", "pipeline": {"kind": "nope"}}]}', 'a.json')).toThrow(
      /a\.json: methods\.0\.pipeline/,
    );
    expect(() =>
      planExperiment(
        {
          name: 'x',
          methods: [{ label: 'bad', method: { name: 'wsl' }, pipeline: { kind: 'single' }, scheme: 'BIO', model: { dropout: 3 }, train: {} }],
          seeds: [1],
        },
        base,
      ),
    ).toThrow(/bad: model\.dropout/);
    expect(() =>
      planExperiment(
        { name: 'x', methods: [{ label: 'io', method: { name: 'wsl' }, pipeline: { kind: 'single' }, scheme: 'IO', model: {}, train: {} }], seeds: [1] },
        base,
      ),
    ).toThrow(/io: scheme IO with the crf head/);
    expect(parseSeeds('1, 2,3')).toEqual([1, 2, 3]);
    expect(parseSeeds('1-3, 7, 2')).toEqual([1, 2, 3, 7]);
    expect(() => parseSeeds('1, x')).toThrow(/seeds: "x"/);
    expect(() => parseSeeds(' ')).toThrow(/at least one/);
  });
});
