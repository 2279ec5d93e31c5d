/**
 * Does it matter how the rule pools the other corpora's dev gains? The leave-one-corpus-out rule
 * (src/core/loco.ts) averages them, every corpus alike, so webpage's 99 dev sentences weigh as much
 * as conll03's 3,250. This runs the rule, with the suite's priors, under each pooling (`LOCO_POOLS`:
 * the mean, the median, and random-effects weights that count a corpus whose seeds disagree for
 * less), and compares them the only way that reads no test: each left-out corpus's dev F1 under
 * its choice, less WSL's, averaged over each corpus's settings and then over the corpora. Test is
 * printed beside it, to be read after.
 *
 *   npx tsx bench/loco-pooling.ts [--config bench/configs/corpora.json]
 */
import { loadExperimentConfig, locoReport, readLocoPriors, readRecords, type RunRecord } from '../src/cli/experiment';
import { readConfigJson } from '../src/cli/dataFolder';
import { DEV_SELECT, LOCO_POOLS, type LocoSetting } from '../src/core/loco';
import { dirname, resolve } from 'node:path';

const args = process.argv.slice(2);
const at = args.indexOf('--config');
const configFile = at >= 0 ? args[at + 1] : 'bench/configs/corpora.json';
const { exp } = loadExperimentConfig(configFile, readConfigJson(configFile));
const records: RunRecord[] = readRecords(resolve(dirname(resolve(configFile)), exp.records));
const priors = exp.loco?.priors ? readLocoPriors(exp, configFile) : undefined;

/** Each corpus's settings averaged first, then the corpora (the rule's own weighting of a figure). */
function perCorpus(corpora: LocoSetting[], figure: (c: LocoSetting) => number | null) {
  const by = new Map<string, number[]>();
  for (const c of corpora) {
    const x = figure(c);
    if (x !== null) by.set(c.corpus, [...(by.get(c.corpus) ?? []), x]);
  }
  const means = [...by.values()].map((xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
  return means.reduce((a, b) => a + b, 0) / means.length;
}

// WSL's dev figure per setting, for the dev gain of each choice.
const wslDev = new Map<string, number>();
for (const s of exp.settings) {
  const rs = records.filter((r) => r.setting === s.name && r.label === exp.loco!.reference && r.seed > 0 && r.dev);
  if (rs.length) wslDev.set(s.name, rs.reduce((a, r) => a + r.dev!.f1, 0) / rs.length);
}

const f = (x: number) => x.toFixed(2);
/** A choice in a few words, with the priors the rule keeps for some row of the corpus. */
const short = (c: LocoSetting) => {
  const choice = c.loco?.choice === DEV_SELECT ? 'the best on its own dev' : (c.loco?.choice.split(':')[0] ?? '–');
  const priors = (c.priors ?? []).filter((p) => p.rows.length).map((p) => p.name.replace('word dropout 0.1 + ', ''));
  return priors.length ? `${choice} (priors kept: ${priors.join(', ')})` : choice;
};
const results = LOCO_POOLS.map((pool) => ({ pool, corpora: locoReport(exp, records, priors, pool).corpora }));
console.log(`| setting | ${results.map((r) => `${r.pool}: choice | dev | test`).join(' | ')} |`);
console.log(`| --- | ${results.map(() => '--- | --- | ---').join(' | ')} |`);
for (const [i, s] of exp.settings.entries()) {
  const cells = results.map(({ corpora }) => {
    const c = corpora[i];
    return c.loco ? `${short(c)} | ${f(c.loco.dev)} | ${f(c.loco.mean)} ± ${f(c.loco.std)}` : '– | – | –';
  });
  console.log(`| ${s.name} | ${cells.join(' | ')} |`);
}
const devGain = (c: LocoSetting) => (c.loco && wslDev.has(c.name) ? c.loco.dev - wslDev.get(c.name)! : null);
console.log(
  `| **left-out dev gain over WSL, per corpus then mean** | ${results.map(({ corpora }) => `| **${f(perCorpus(corpora, devGain))}** | ${f(perCorpus(corpora, (c) => (c.loco && c.wsl !== null ? c.loco.mean - c.wsl : null)))} (test)`).join(' | ')} |`,
);
