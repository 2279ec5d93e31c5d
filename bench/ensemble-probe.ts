/**
 * A test-time ensemble, probed before it is built into the run engine: for each seed, K runs of
 * an experiment row (member k trains with seed + 1000·k, so member 0 is the row's own run of that
 * seed), then the K taggers decoded as one (TaggerEnsemble: the mean of their emission scores and
 * CRF parameters), its O shift chosen on dev as every run's is. Each seed's line holds every
 * member's dev and test F1 and the ensemble's, appended to `--out` as it finishes (a restart skips
 * the seeds recorded). The question it answers: does averaging K models lift test F1 over one run
 * of the same row, on dev as well as on test, on corpora other than the one it is meant for.
 *
 *   npx tsx bench/ensemble-probe.ts --config bench/configs/weight-average.json --only "SETTING" \
 *     --method "LABEL" --seed 1 --seed 2 --seed 3 --members 3 --out bench/results/ensemble-probe.jsonl
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readConfigJson } from '../src/cli/dataFolder';
import { loadExperimentConfig, loadSetting, prepareMethod } from '../src/cli/experiment';
import { initWasmBackend } from '../src/cli/train';
import type { Annotation } from '../src/core/types';
import type { Lexicon } from '../src/core/lexicon';
import { finalOShift, runPipeline } from '../src/methods/pipelines';
import { readGloveAsset, readSpellingModel } from '../src/model/gloveNode';
import { type Tagger, TaggerEnsemble } from '../src/model/tagger';
import { evaluate } from '../src/model/train';

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    only: { type: 'string' },
    method: { type: 'string' },
    seed: { type: 'string', multiple: true, default: ['1', '2', '3'] },
    members: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/results/ensemble-probe.jsonl' },
  },
});
if (!values.config || !values.only || !values.method) throw new Error('ensemble-probe: give --config, --only SETTING and --method LABEL');
const K = Number(values.members);
if (!Number.isInteger(K) || K < 2) throw new Error(`ensemble-probe: --members ${values.members}: expected a whole number of at least 2`);
const { exp } = loadExperimentConfig(values.config, readConfigJson(values.config));
const setting = exp.settings.find((s) => s.name === values.only);
if (!setting) throw new Error(`ensemble-probe: no setting "${values.only}" in ${values.config}: ${exp.settings.map((s) => s.name).join('; ')}`);
const m = exp.methods.find((x) => x.label === values.method);
if (!m) throw new Error(`ensemble-probe: no method "${values.method}" in ${values.config}`);
const out = values.out!;
const done = new Set(
  existsSync(out)
    ? readFileSync(out, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { setting: string; label: string; seed: number; members: unknown[] })
        .filter((r) => r.setting === setting.name && r.label === m.label && r.members.length === K)
        .map((r) => r.seed)
    : [],
);
const log = (s: string) => void process.stderr.write(`${s}\n`);
const backend = await initWasmBackend();
const data = loadSetting(setting);
const { planned, sents, feat, unlabeled } = await prepareMethod({
  exp,
  configFile: values.config,
  setting,
  data,
  m,
  glove: readGloveAsset(),
  spelling: readSpellingModel(),
  lexicons: new Map<string, Lexicon | null>(),
  weakLabelCache: new Map<string, Annotation[]>(),
  log,
});
const pct = (x: number) => Math.round(x * 10000) / 100;
for (const seed of values.seed!.map(Number)) {
  if (done.has(seed)) continue;
  const run = planned.find((p) => p.seed === seed);
  if (!run) throw new Error(`ensemble-probe: seed ${seed} is not among the config's seeds`);
  const t0 = performance.now();
  const taggers: Tagger[] = [];
  const members = [];
  for (let k = 0; k < K; k++) {
    const cfg = { ...run.config, train: { ...run.config.train, seed: seed + 1000 * k } };
    const r = await runPipeline(m.pipeline, cfg, feat, { train: sents.train, dev: sents.dev, ...(unlabeled ? { unlabeled } : {}) });
    const test = await evaluate(r.tagger, feat, sents.test);
    members.push({ seed: cfg.train.seed, dev: r.dev ? pct(r.dev.overall.f1) : null, test: pct(test.overall.f1), oShift: r.oShift });
    log(`${setting.name}/${seed} member ${k + 1} of ${K}: dev ${members[k].dev}, test ${members[k].test}`);
    taggers.push(r.tagger);
  }
  const ensemble = new TaggerEnsemble(taggers);
  const shifts = await finalOShift(ensemble, run.config, feat, sents.dev);
  const test = await evaluate(ensemble, feat, sents.test);
  const line = {
    setting: setting.name,
    label: m.label,
    seed,
    backend,
    members,
    ensemble: {
      dev: shifts.dev ? pct(shifts.dev.overall.f1) : null,
      test: pct(test.overall.f1),
      p: pct(test.overall.precision),
      r: pct(test.overall.recall),
      oShift: shifts.oShift,
    },
    wallSeconds: Math.round((performance.now() - t0) / 1000),
    finishedAt: new Date().toISOString(),
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
  log(
    `${setting.name}/${seed}: ensemble of ${K}: dev ${line.ensemble.dev}, test ${line.ensemble.test} (member 1: dev ${members[0].dev}, test ${members[0].test})`,
  );
  for (const t of taggers) t.dispose();
}
