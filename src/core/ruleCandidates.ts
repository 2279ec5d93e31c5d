/**
 * The leave-one-corpus-out rule's candidates, for the training page. On every corpus of the suite
 * but webpage (where it takes the page's default alone) the rule (core/loco.ts) chose "the best
 * candidate on the corpus's own dev, per seed": a user with
 * a dev set trains the candidates and keeps the one best on dev. The candidates are the trained
 * rows of the suite's config, bench/configs/corpora.json, read here as they were measured (their
 * model and training options included), so that the page runs exactly the rows the figures in
 * BENCHMARKS.md come from; and a prior travels to the rows that the rule keeps it for
 * (bench/prior-gain.ts: the mean dev gain over the suite's corpora is positive): word dropout
 * (bench/configs/word-dropout.json) for WSL with the priors and for the page's default, and weight
 * averaging on top of it (bench/configs/weight-average.json) for WSL with the priors.
 */
import corpora from '../../bench/configs/corpora.json';
import weightAverage from '../../bench/configs/weight-average.json';
import wordDropout from '../../bench/configs/word-dropout.json';
import { type ExperimentMethods, isScoredOnly, parseExperimentMethods } from './experimentConfig';

export const RULE_CANDIDATES_FILE = 'bench/configs/corpora.json, with word-dropout.json and weight-average.json';

/**
 * The priors kept, each a config whose methods ran with its experiment-level model and training
 * options; one run on top of another (`over`) differs from that one's options only in its own.
 */
const KEPT_PRIORS: { file: string; config: unknown; suffix: string; over?: string }[] = [
  { file: 'bench/configs/word-dropout.json', config: wordDropout, suffix: ' + word dropout' },
  { file: 'bench/configs/weight-average.json', config: weightAverage, suffix: ' + weight average', over: 'bench/configs/word-dropout.json' },
];

/** The options `a` sets otherwise than `b`. */
function differs(a: object | undefined, b: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a ?? {}).filter(([k, v]) => (b as Record<string, unknown> | undefined)?.[k] !== v));
}

/**
 * The suite's trained rows (the rows that train nothing are dropped: the Weak labels page scores
 * those), each row a kept prior's config ran with the options that config differs in from the suite's
 * (or from the prior it stacks on), and its label saying so.
 */
export const RULE_CANDIDATES: ExperimentMethods = (() => {
  const exp = parseExperimentMethods(JSON.stringify(corpora), 'bench/configs/corpora.json');
  const parsed = new Map(KEPT_PRIORS.map((p) => [p.file, parseExperimentMethods(JSON.stringify(p.config), p.file)]));
  const priors = KEPT_PRIORS.map((p) => {
    const prior = parsed.get(p.file)!;
    const under = p.over ? parsed.get(p.over)! : exp;
    const model = differs(prior.model, under.model);
    const train = differs(prior.train, under.train);
    const value = [...Object.values(model), ...Object.values(train)].join(', ');
    return { labels: new Set(prior.methods.map((m) => m.label)), model, train, suffix: `${p.suffix} ${value}` };
  });
  const methods = exp.methods
    .filter((m) => !isScoredOnly(m.method.name))
    .map((m) => {
      const kept = priors.filter((p) => p.labels.has(m.label));
      return kept.length
        ? {
            ...m,
            label: m.label + kept.map((p) => p.suffix).join(''),
            model: Object.assign({ ...m.model }, ...kept.map((p) => p.model)),
            train: Object.assign({ ...m.train }, ...kept.map((p) => p.train)),
          }
        : m;
    });
  return { ...exp, methods };
})();

/** What the page knows of a run to choose among an experiment's runs. */
export interface DevChoiceRun {
  id: number;
  status: string;
  label?: string;
  seed?: number;
  dev?: number;
  test?: number;
}

export interface SeedChoice {
  seed: number;
  /** The finished run with the best dev F1 among the labels' runs of this seed (the newest of a label counts). */
  best: { id: number; label: string; dev: number; test?: number };
  /** Labels with a finished run of this seed. */
  done: number;
  /** Labels with no finished run of this seed yet: the choice may still change. */
  missing: string[];
}

/**
 * Per seed, the run best on dev among `labels` (ties to the earlier label, as the rule's), from the
 * runs that finished with a dev score. Seeds with no such run are left out; a seed whose labels
 * are not all done says which are missing.
 */
export function bestOnDevBySeed(runs: readonly DevChoiceRun[], labels: readonly string[]): SeedChoice[] {
  const bySeed = new Map<number, Map<string, DevChoiceRun>>();
  for (const r of runs) {
    if (r.status !== 'done' || r.seed === undefined || r.dev === undefined || !r.label || !labels.includes(r.label)) continue;
    const row = bySeed.get(r.seed) ?? new Map<string, DevChoiceRun>();
    const prev = row.get(r.label);
    if (!prev || r.id > prev.id) row.set(r.label, r);
    bySeed.set(r.seed, row);
  }
  const out: SeedChoice[] = [];
  for (const [seed, row] of [...bySeed].sort((a, b) => a[0] - b[0])) {
    let best: DevChoiceRun | undefined;
    for (const label of labels) {
      const r = row.get(label);
      if (r && (!best || r.dev! > best.dev!)) best = r;
    }
    if (!best) continue;
    out.push({
      seed,
      best: { id: best.id, label: best.label!, dev: best.dev!, ...(best.test !== undefined ? { test: best.test } : {}) },
      done: row.size,
      missing: labels.filter((l) => !row.has(l)),
    });
  }
  return out;
}
