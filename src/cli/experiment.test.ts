import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { conllHead } from '../testing/conllHead';
import {
  costTable,
  type Experiment,
  locoReport,
  parseShard,
  type RunRecord,
  readLocoPriors,
  readRecords,
  resultsTable,
  runExperiment,
  runKeyParts,
  runKeys,
} from './experiment';
import { experimentSchema } from '../core/experimentConfig';

/** Completion as these tests were written for: one round, no type shifts, no self-training (the schema's defaults are the training page's). */
const ONE_ROUND = { rounds: 1, typeShifts: false, unlabeled: 0, unlabeledRounds: 1, keepBest: false };

const head = conllHead;

describe('experiment verb', () => {
  it('stops its jobs when it is stopped (no child left to lose its run on a closed pipe)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-exp-stop-'));
    const split = (name: string, n: number) => ({ text: head(`${name}_text.txt`, n, dir), labels: head(`${name}_label_true.txt`, n, dir) });
    const config = join(dir, 'long.json');
    writeFileSync(
      config,
      JSON.stringify({
        name: 'long',
        model: { hidden: 8, charDim: 8, charFilters: 8 },
        train: { epochs: 500, batchSize: 16, patience: 500 },
        settings: [
          {
            kind: 'distant',
            name: 'd',
            train: { text: head('train_text.txt', 60, dir), weak: head('train_label_dist.txt', 60, dir) },
            dev: split('valid', 10),
            test: split('test', 10),
          },
        ],
        methods: [{ label: 'WSL', method: { name: 'wsl' } }],
        seeds: [1],
        records: join(dir, 'long.jsonl'),
      }),
    );
    const parent = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'experiment', '--config', config, '--jobs', '1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // Wait for the job's first epoch, then stop the parent.
    await new Promise<void>((started, failed) => {
      createInterface({ input: parent.stderr! }).on('line', (line) => {
        if (/^\[job 1\] .*epoch 1 of 500/.test(line)) started();
      });
      parent.on('exit', () => failed(new Error('the experiment ended before its job started')));
    });
    const exited = new Promise<number | null>((done) => parent.on('exit', (code) => done(code)));
    parent.kill('SIGTERM');
    expect(await exited).toBe(143);
    const running = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(config);
          } catch {
            return false;
          }
        });
    for (let k = 0; k < 50 && running().length; k++) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toEqual([]);
  }, 120_000);

  it('tables each method by setting, with the ablation rows of its decoding choices', () => {
    const exp = { settings: [{ name: 'a' }, { name: 'b' }], methods: [{ label: 'shifted' }, { label: 'plain', settings: ['a'] }] } as unknown as Experiment;
    const score = (f1: number) => ({ p: f1, r: f1, f1 });
    const rec = (setting: string, label: string, seed: number, f1: number, extra: object = {}) =>
      ({ setting, label, seed, split: 'test', test: score(f1), ...extra }) as unknown as RunRecord;
    const records = [
      rec('a', 'shifted', 1, 80, { oShift: 1, unshifted: { dev: score(0), test: score(70) }, withoutTypeShifts: { dev: score(0), test: score(78) } }),
      rec('a', 'shifted', 2, 82, { oShift: 1, unshifted: { dev: score(0), test: score(72) }, withoutTypeShifts: { dev: score(0), test: score(80) } }),
      rec('b', 'shifted', 1, 60, { oShift: 0.5, unshifted: { dev: score(0), test: score(50) } }),
      rec('a', 'plain', 1, 75),
    ];
    expect(resultsTable(exp, records).split('\n')).toEqual([
      '| method | a | b |',
      '| --- | --- | --- |',
      '| shifted | 81.00 ± 1.41 (2) | 60.00 (1 seed) |',
      '| shifted, decoded without the O shift | 71.00 ± 1.41 (2) | 50.00 (1 seed) |',
      '| shifted, decoded with the O shift alone (no type shifts) | 79.00 ± 1.41 (2) |  |',
      '| plain | 75.00 (1 seed) |  |',
    ]);
  });

  it("--loco reads a prior's config: its settings are the suite's with the prior's name, and the rule keeps it per row", () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-loco-'));
    const setting = (name: string) => ({
      kind: 'distant',
      name,
      train: { text: 't', weak: 'w' },
      dev: { text: 'd', labels: 'dl' },
      test: { text: 'x', labels: 'xl' },
    });
    const methods = [
      { label: 'WSL', method: { name: 'wsl' } },
      { label: 'x', method: { name: 'wsl' }, model: { hidden: 8 } },
    ];
    const score = (f1: number) => ({ p: f1, r: f1, f1, tp: 0, fp: 0, fn: 0, perType: {} });
    const line = (setting: string, label: string, seed: number, dev: number, test: number) =>
      JSON.stringify({
        key: `${setting}/${label}/${seed}`,
        setting,
        label,
        seed,
        split: 'test',
        dev: score(dev),
        test: score(test),
        stages: [],
        wallSeconds: 1,
        tokensPerSecond: 1,
        finishedAt: '2026-11-28',
      });
    const names = ['a 1k', 'a 1k + more', 'b', 'c'];
    const suite = {
      name: 'suite',
      settings: names.map((n, i) => ({ ...setting(n), ...(i < 2 ? { dataset: 'a' } : {}) })),
      methods,
      loco: { reference: 'WSL', priors: ['prior.json'] },
      records: 'suite.jsonl',
    };
    // "a 1k + more" is a setting of the suite, not "a 1k" with a prior "more": the longest name wins.
    const prior = { name: 'p', settings: names.map((n) => setting(`${n} + p 0.1`)), methods: [methods[1]], records: 'prior.jsonl' };
    writeFileSync(join(dir, 'suite.json'), JSON.stringify(suite));
    writeFileSync(join(dir, 'prior.json'), JSON.stringify(prior));
    writeFileSync(join(dir, 'suite.jsonl'), names.flatMap((n) => [line(n, 'WSL', 1, 50, 50), line(n, 'x', 1, 52, 52)]).join('\n'));
    // x with p: dev +1 on a's settings and b, -3 on c.
    // A one-off run of a row the prior's config does not run (WSL on c) is not its evidence.
    writeFileSync(
      join(dir, 'prior.jsonl'),
      [...names.map((n) => line(`${n} + p 0.1`, 'x', 1, n === 'c' ? 49 : 53, 60)), line('c + p 0.1', 'WSL', 1, 90, 90)].join('\n'),
    );
    const exp = experimentSchema.parse({ ...suite, records: join(dir, 'suite.jsonl') });
    const priors = readLocoPriors(exp, join(dir, 'suite.json'));
    expect(priors.map((p) => p.name)).toEqual(['p 0.1']);
    expect(priors[0].records.map((r) => `${r.setting}/${r.label}`)).toEqual(names.map((n) => `${n}/x`));
    const { corpora, table } = locoReport(exp, readRecords(exp.records), priors);
    // c: kept by a (+1) and b (+1), so its x reads 60; a: b +1, c -3, not kept; b: a +1, c -3, not kept.
    expect(Object.fromEntries(corpora.map((c) => [c.name, c.priors?.[0].rows]))).toEqual({ 'a 1k': [], 'a 1k + more': [], b: [], c: ['x'] });
    expect(corpora.find((c) => c.name === 'c')!.loco?.mean).toBe(60);
    expect(corpora.find((c) => c.name === 'b')!.loco?.mean).toBe(52);
    expect(table).toContain('; with p 0.1 for x');
    // A second prior whose settings are "<setting> + p 0.1 + q" stacks on p 0.1.
    const stacked = { name: 'q', settings: names.map((n) => setting(`${n} + p 0.1 + q`)), methods: [methods[1]], records: 'q.jsonl' };
    writeFileSync(join(dir, 'q.json'), JSON.stringify(stacked));
    writeFileSync(join(dir, 'q.jsonl'), names.map((n) => line(`${n} + p 0.1 + q`, 'x', 1, n === 'c' ? 50 : 54, 61)).join('\n'));
    const both = readLocoPriors({ ...exp, loco: { ...exp.loco!, priors: ['prior.json', 'q.json'] } }, join(dir, 'suite.json'));
    expect(both.map((p) => [p.name, p.over])).toEqual([
      ['p 0.1', undefined],
      ['p 0.1 + q', 'p 0.1'],
    ]);
    // c: q over p gains +1 on a and b, and p is kept there: x reads q's 61.
    expect(locoReport(exp, readRecords(exp.records), both).corpora.find((c) => c.name === 'c')!.loco?.mean).toBe(61);
    // A prior that cannot apply to a corpus says so, naming a corpus of the suite.
    const inert = readLocoPriors(
      { ...exp, loco: { ...exp.loco!, priors: [{ config: 'prior.json', inert: { c: 'no list maps onto its types' } }] } },
      join(dir, 'suite.json'),
    );
    expect(inert[0].inert).toEqual({ c: 'no list maps onto its types' });
    expect(() => readLocoPriors({ ...exp, loco: { ...exp.loco!, priors: [{ config: 'prior.json', inert: { z: 'why' } }] } }, join(dir, 'suite.json'))).toThrow(
      /loco\.priors: prior\.json: inert: "z" is not a corpus of this suite \(a, b, c\)/,
    );
    writeFileSync(join(dir, 'prior.json'), JSON.stringify({ ...prior, settings: [setting('d + p')] }));
    expect(() => readLocoPriors(exp, join(dir, 'suite.json'))).toThrow(/prior\.json: settings\.d \+ p: not "<a setting of .*suite\.json> \+ <the prior>"/);
  });

  it('every committed experiment config validates', async () => {
    const { readdirSync } = await import('node:fs');
    const { experimentSchema } = await import('./experiment');
    // Every experiment config (those with settings; the others are run configs and rules files).
    const files = readdirSync('bench/configs').filter((f) => f.endsWith('.json') && 'settings' in JSON.parse(readFileSync(join('bench/configs', f), 'utf8')));
    expect(files).toContain('user-scale.json');
    expect(files.length).toBeGreaterThan(0);
    const { simulateSchema } = await import('./simulateReview');
    expect(files).toContain('guided-correction.json');
    for (const f of files) {
      // A simulate-review config is an experiment config with a "simulate" block.
      const { simulate, ...rest } = JSON.parse(readFileSync(join('bench/configs', f), 'utf8'));
      const r = experimentSchema.safeParse(rest);
      expect(r.success, `${f}: ${r.success ? '' : JSON.stringify(r.error.issues[0])}`).toBe(true);
      if (simulate) {
        const s = simulateSchema.safeParse(simulate);
        expect(s.success, `${f}: simulate: ${s.success ? '' : JSON.stringify(s.error.issues[0])}`).toBe(true);
      }
    }
  });

  it('runs settings × methods × seeds, records each run at once, and skips recorded runs on restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-exp-'));
    const split = (name: string, n: number) => ({ text: head(`${name}_text.txt`, n, dir), labels: head(`${name}_label_true.txt`, n, dir) });
    const exp = {
      name: 'tiny',
      model: { hidden: 8, charDim: 8, charFilters: 8 },
      train: { epochs: 1, batchSize: 16 },
      settings: [
        {
          kind: 'mixed',
          name: '30% gold',
          train: { text: head('train_text.txt', 120, dir), gold: head('train_label_true.txt', 120, dir), weak: head('train_label_dist.txt', 120, dir) },
          strongFraction: 0.3,
          dev: split('valid', 30),
          test: split('test', 30),
        },
        {
          kind: 'distant',
          name: 'distant',
          train: { text: join(dir, 'train_text.txt'), weak: join(dir, 'train_label_dist.txt') },
          dev: split('valid', 30),
          test: split('test', 30),
        },
      ],
      methods: [
        { label: 'weak labels', method: { name: 'weak-labels' }, settings: ['30% gold'] },
        { label: 'supervised', method: { name: 'supervised' }, settings: ['30% gold'] },
        { label: 'WSL', method: { name: 'wsl' } },
        { label: 'RoSTER (noise-robust)', method: { name: 'roster' }, scheme: 'IO', model: { head: 'twopart' } },
      ],
      seeds: [1, 2],
      records: join(dir, 'records.jsonl'),
    };
    writeFileSync(join(dir, 'exp.json'), JSON.stringify(exp));
    const log: string[] = [];
    const first = await runExperiment(join(dir, 'exp.json'), { log: (s) => log.push(s) });
    expect(first.ran).toBe(1 + 2 + 2 * 2 + 2 * 2);
    // The weak labels themselves, on the 84 weak sentences, against their gold labels.
    const weakRow = readRecords(exp.records).find((r) => r.label === 'weak labels')!;
    expect(weakRow.seed).toBe(0);
    expect(weakRow.test.tp + weakRow.test.fn).toBeGreaterThan(0);
    const records = readRecords(exp.records);
    expect(records.map((r) => r.key).sort()).toContain('30% gold/supervised/2');
    // The supervised baseline learns from the 36 strong sentences (30 % of 120) only.
    expect(records.find((r) => r.key === '30% gold/supervised/1')!.stages[0].trainSentences).toBe(36);
    expect(log.some((l) => /30% gold\/WSL\/1: training \(120 sentences, 84 weak\)/.test(l))).toBe(true);
    // Shards: fixed, disjoint shares of every run, together all of them.
    const keys = runKeys(exp as never);
    expect(keys).toEqual([
      ...['30% gold/weak labels/0'],
      ...[1, 2].map((k) => `30% gold/supervised/${k}`),
      ...[1, 2].map((k) => `30% gold/WSL/${k}`),
      ...[1, 2].map((k) => `30% gold/RoSTER (noise-robust)/${k}`),
      ...[1, 2].map((k) => `distant/WSL/${k}`),
      ...[1, 2].map((k) => `distant/RoSTER (noise-robust)/${k}`),
    ]);
    // A variant with seeds of its own (one seed is enough for a variant).
    const variant = { ...exp, methods: [...exp.methods, { label: 'WSL variant', method: { name: 'wsl' }, seeds: [1] }] };
    expect(runKeys(variant as never)).toEqual([...keys.slice(0, 7), '30% gold/WSL variant/1', ...keys.slice(7), 'distant/WSL variant/1']);
    expect(parseShard('2/3')).toEqual({ k: 2, n: 3 });
    for (const bad of ['0/2', '3/2', '1', 'a/b']) expect(() => parseShard(bad)).toThrow(/--shard .*K\/N/);
    const weakOnly = {
      ...exp,
      methods: [{ ...exp.methods[0], settings: ['30% gold', 'again'] }],
      settings: [exp.settings[0], { ...exp.settings[0], name: 'again' }],
      records: join(dir, 'weak.jsonl'),
    };
    writeFileSync(join(dir, 'weak.json'), JSON.stringify(weakOnly));
    await runExperiment(join(dir, 'weak.json'), { shard: { k: 2, n: 2 }, log: () => {} });
    expect(readRecords(weakOnly.records).map((r) => r.key)).toEqual(['again/weak labels/0']);
    await runExperiment(join(dir, 'weak.json'), { shard: { k: 1, n: 2 }, log: () => {} });
    expect(readRecords(weakOnly.records).map((r) => r.key)).toEqual(['again/weak labels/0', '30% gold/weak labels/0']);
    // --method runs only the methods of those labels (here one that trains nothing), and names a wrong one.
    const twoMethods = { ...weakOnly, methods: [...weakOnly.methods, { label: 'WSL', method: { name: 'wsl' } }], records: join(dir, 'weak2.jsonl') };
    writeFileSync(join(dir, 'weak2.json'), JSON.stringify(twoMethods));
    await runExperiment(join(dir, 'weak2.json'), { methods: ['weak labels'], log: () => {} });
    expect(readRecords(twoMethods.records).map((r) => r.key)).toEqual(['30% gold/weak labels/0', 'again/weak labels/0']);
    await expect(runExperiment(join(dir, 'weak2.json'), { methods: ['nope'], log: () => {} })).rejects.toThrow(
      /--method "nope": no method of that label; the labels: "weak labels", "WSL"/,
    );
    // --key runs exactly those runs; --jobs deals what is left to child processes of the CLI.
    const keyed = { ...twoMethods, records: join(dir, 'keyed.jsonl') };
    writeFileSync(join(dir, 'keyed.json'), JSON.stringify(keyed));
    await runExperiment(join(dir, 'keyed.json'), { keys: ['again/weak labels/0'], log: () => {} });
    expect(readRecords(keyed.records).map((r) => r.key)).toEqual(['again/weak labels/0']);
    await expect(runExperiment(join(dir, 'keyed.json'), { keys: ['again/nope/1'], log: () => {} })).rejects.toThrow(/--key "again\/nope\/1": no such run/);
    const jobLog: string[] = [];
    const jobbed = await runExperiment(join(dir, 'keyed.json'), { methods: ['weak labels'], jobs: 2, log: (l) => jobLog.push(l) });
    expect(jobbed.ran).toBe(1);
    expect(
      readRecords(keyed.records)
        .map((r) => r.key)
        .sort(),
    ).toEqual(['30% gold/weak labels/0', 'again/weak labels/0']);
    expect(jobLog[0]).toBe('experiment: 1 run in 1 job');
    expect(jobLog.some((l) => /^\[job 1\] 30% gold\/weak labels\/0: F1 [0-9.]+ on the train split/.test(l))).toBe(true);
    await expect(runExperiment(join(dir, 'keyed.json'), { jobs: 2, shard: { k: 1, n: 2 }, log: () => {} })).rejects.toThrow(/--jobs and --shard/);
    // --report reads the records and runs nothing.
    const reported = await runExperiment(join(dir, 'exp.json'), { report: true, log: () => {} });
    expect(reported).toMatchObject({ ran: 0, recorded: records.length, backend: null });
    const again = await runExperiment(join(dir, 'exp.json'), { log: () => {} });
    expect(again.ran).toBe(0);
    expect(again.recorded).toBe(records.length);
    const sup = (again.table as { label: string; [k: string]: unknown }[]).find((r) => r.label === 'supervised')!;
    expect(sup['30% gold']).toHaveLength(2);
    expect(sup.distant).toEqual([]);
    // Synthetic missing annotations: half the gold entities hidden, negative sampling on the span head
    // records the missampling rate against the remembered ones.
    const masked = {
      ...exp,
      settings: [
        {
          kind: 'masked',
          name: 'masked 0.5',
          train: { text: join(dir, 'train_text.txt'), gold: join(dir, 'train_label_true.txt') },
          p: 0.5,
          dev: split('valid', 30),
          test: split('test', 30),
        },
      ],
      methods: [{ label: 'uniform NS', method: { name: 'negative-sampling' }, model: { head: 'span' } }],
      seeds: [1],
      records: join(dir, 'masked.jsonl'),
    };
    writeFileSync(join(dir, 'masked.json'), JSON.stringify(masked));
    await runExperiment(join(dir, 'masked.json'), { log: () => {} });
    const ns = readRecords(masked.records)[0];
    expect(ns.stages[0].history![0].methodStats!.missamplingRate).toBeGreaterThan(0);
    // A broken config names where it is wrong.
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...exp, settings: [{ ...exp.settings[0], strongFraction: 2 }] }));
    await expect(runExperiment(join(dir, 'bad.json'))).rejects.toThrow(/settings\.0\.strongFraction/);
  }, 240_000);

  it("gives completion's self-training the setting's unlabeled text less the sentences of train, dev and test", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-pool-'));
    const split = (name: string, n: number) => ({ text: head(`${name}_text.txt`, n, dir), labels: head(`${name}_label_true.txt`, n, dir) });
    const unlabeled = head('train_text.txt', 100, dir);
    const setting = {
      kind: 'distant',
      name: 'distant 40',
      train: { text: unlabeled, weak: head('train_label_dist.txt', 100, dir) },
      limitTrain: 40,
      unlabeled,
      dev: split('valid', 30),
      test: split('test', 30),
    };
    const exp = {
      name: 'pool',
      model: { hidden: 8, charDim: 8, charFilters: 8, dictionaryDropout: 0.5 },
      train: { epochs: 1, batchSize: 16 },
      settings: [setting],
      methods: [{ label: 'completion, self-training', method: { name: 'wsl' }, pipeline: { kind: 'completion', ...ONE_ROUND, unlabeled: 25 } }],
      seeds: [1],
      records: join(dir, 'records.jsonl'),
    };
    writeFileSync(join(dir, 'exp.json'), JSON.stringify(exp));
    const log: string[] = [];
    await runExperiment(join(dir, 'exp.json'), { log: (s) => log.push(s) });
    // The pool: the file's sentences after the 40 training ones (none of train, dev or test), up to 25.
    expect(log).toContain('distant 40: self-training pool of 25 unlabeled sentences');
    const [r] = readRecords(exp.records);
    expect(r.stages.map((s) => s.trainSentences)).toEqual([40, 65]);
    // A setting with no unlabeled file: the run says self-training is off, and trains without it.
    const none = { ...exp, settings: [{ ...setting, unlabeled: undefined }], records: join(dir, 'none.jsonl') };
    writeFileSync(join(dir, 'none.json'), JSON.stringify(none));
    const said: string[] = [];
    await runExperiment(join(dir, 'none.json'), { log: (s) => said.push(s) });
    expect(said).toContain('distant 40: self-training: off, the setting has no unlabeled file ("completion, self-training")');
    expect(readRecords(none.records)[0].stages.map((s) => s.trainSentences)).toEqual([40, 40]);
  }, 120_000);

  it('reads a config outside the project: paths from its own folder, $data/ from the data folder, one error for missing files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'studio-outside-'));
    const data = join(root, 'my-data');
    mkdirSync(join(root, 'configs', 'texts'), { recursive: true });
    mkdirSync(data);
    for (const [f, n] of [
      ['train_text.txt', 80],
      ['train_label_dist.txt', 80],
      ['train_label_true.txt', 80],
    ] as const)
      head(f, n, join(root, 'configs', 'texts'));
    for (const f of ['valid_text.txt', 'valid_label_true.txt', 'test_text.txt', 'test_label_true.txt']) head(f, 20, data);
    const exp = {
      name: 'outside',
      model: { hidden: 8, charDim: 8, charFilters: 8 },
      train: { epochs: 1, batchSize: 16 },
      settings: [
        {
          kind: 'distant',
          name: 'distant',
          train: { text: 'texts/train_text.txt', weak: 'texts/train_label_dist.txt', gold: 'texts/train_label_true.txt' },
          dev: { text: '$data/valid_text.txt', labels: '$data/valid_label_true.txt' },
          test: { text: '$data/test_text.txt', labels: '$data/test_label_true.txt' },
        },
      ],
      methods: [
        { label: 'weak labels', method: { name: 'weak-labels' } },
        { label: 'WSL + dictionary', method: { name: 'wsl' } },
      ],
      seeds: [1],
      records: 'out/records.jsonl',
    };
    const file = join(root, 'configs', 'exp.json');
    writeFileSync(file, JSON.stringify(exp));
    const log: string[] = [];
    const r = await runExperiment(file, { data, log: (l) => log.push(l) });
    expect(r.ran).toBe(2);
    const recs = readRecords(join(root, 'configs', 'out', 'records.jsonl'));
    expect(recs.map((x) => x.key)).toEqual(['distant/weak labels/0', 'distant/WSL + dictionary/1']);
    // The weak labels of a distant setting exist on train only: the record says so.
    expect(recs[0].split).toBe('train');
    expect(recs[1].split).toBe('test');
    expect(log.some((l) => /distant: dictionary features from \d+ entries \(LOC, MISC, ORG, PER\)/.test(l))).toBe(true);
    // Without the data folder: one error naming each missing file and the setting that fixes it.
    await expect(runExperiment(file, { data: join(root, 'nowhere'), log: () => {} })).rejects.toThrow(
      /exp\.json: 4 files not found: .*nowhere\/valid_text\.txt \(written "\$data\/valid_text\.txt"\).*give --data DIR or set NER_STUDIO_DATA/,
    );
  });
});

describe('options only the training page reads', () => {
  it.each(['starter', 'publicLibrary', 'abbreviations', 'sourceReliability'])(
    'a method setting model.%s is refused with what the setting says instead, and nothing runs',
    async (option) => {
      const root = mkdtempSync(join(tmpdir(), 'studio-page-only-'));
      for (const [f, n] of [
        ['train_text.txt', 40],
        ['train_label_dist.txt', 40],
        ['valid_text.txt', 10],
        ['valid_label_true.txt', 10],
      ] as const)
        head(f, n, root);
      const exp = {
        name: 'page-only',
        model: { hidden: 8, charDim: 8, charFilters: 8 },
        train: { epochs: 1, batchSize: 16 },
        settings: [
          {
            kind: 'distant',
            name: 'distant',
            train: { text: 'train_text.txt', weak: 'train_label_dist.txt' },
            dev: { text: 'valid_text.txt', labels: 'valid_label_true.txt' },
            test: { text: 'valid_text.txt', labels: 'valid_label_true.txt' },
          },
        ],
        methods: [{ label: 'WSL', method: { name: 'wsl' }, model: { [option]: option === 'abbreviations' ? { following: 3 } : true } }],
        seeds: [1],
        records: 'records.jsonl',
      };
      const file = join(root, 'exp.json');
      writeFileSync(file, JSON.stringify(exp));
      await expect(runExperiment(file, { log: () => {} })).rejects.toThrow(
        new RegExp(`exp\\.json: methods\\["WSL"\\]\\.model\\.${option}: the training page's (switch|run option); in an experiment give`),
      );
      expect(readdirSync(root)).not.toContain('records.jsonl');
    },
  );
});

describe('cost table', () => {
  it('gives each cell the mean wall minutes of its runs and the slowest, leaving unrun and untimed cells empty', () => {
    const exp = { settings: [{ name: 'a' }, { name: 'b' }], methods: [{ label: 'm' }, { label: 'n' }] } as unknown as Experiment;
    const rec = (setting: string, label: string, wallSeconds: number) => ({ setting, label, wallSeconds }) as unknown as RunRecord;
    const table = costTable(exp, [rec('a', 'm', 600), rec('a', 'm', 1860), rec('b', 'm', 0), rec('a', 'n', 90)]);
    expect(table.split('\n').slice(2)).toEqual(['| m | 20.5, 31.0 (2) |  |', '| n | 1.5, 1.5 (1) |  |']);
  });

  it("holds the user-scale suite's recorded runs to the issue's bound: none over 30 minutes (longer rows go to user-scale-large.json)", () => {
    const records = readRecords('bench/results/user-scale.jsonl');
    expect(records.length).toBeGreaterThan(100);
    const over = records.filter((r) => r.wallSeconds > 30 * 60).map((r) => `${r.key}: ${(r.wallSeconds / 60).toFixed(1)} min`);
    expect(over).toEqual([]);
  });
});

describe('run keys', () => {
  it('keep a method label with "/" whole (the CLI selected no run of "RoSTER w/o ensemble" by --method)', () => {
    expect(runKeyParts('conll03 distant 1k/RoSTER w/o ensemble and augmentation (1 model), priors on/3')).toEqual({
      setting: 'conll03 distant 1k',
      label: 'RoSTER w/o ensemble and augmentation (1 model), priors on',
      seed: 3,
    });
  });
});
