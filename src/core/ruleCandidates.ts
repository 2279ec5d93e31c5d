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

const WSL_PRIORS = 'WSL with the priors (dictionary features, O shift on dev)';

/**
 * The priors the rule keeps with every corpus of the suite voting (bench/results/loco.json,
 * `everyCorpus`; a test holds the two together), in the order they stack: each the config its runs
 * were measured with, the rows it is kept for, the prior it stacks on, and what it sets beyond its
 * config's model and training options (a prior of the data, such as the public gazetteer library,
 * is a setting of its config's settings: here the run option that does the same on a project).
 */
export const KEPT_PRIORS: { name: string; file: string; config: unknown; rows: string[]; over?: string; model?: Record<string, unknown> }[] = [
  {
    name: 'word dropout 0.1',
    file: 'bench/configs/word-dropout.json',
    config: wordDropout,
    rows: [
      WSL_PRIORS,
      "the training page's default: completion (3 rounds, keepBest, type shifts), dictionary features with dropout chosen on dev, weak labels as features",
    ],
  },
  {
    name: 'word dropout 0.1 + weight average 0.99',
    file: 'bench/configs/weight-average.json',
    config: weightAverage,
    rows: [WSL_PRIORS],
    over: 'word dropout 0.1',
  },
];

/** The options `a` sets otherwise than `b`. */
function differs(a: object | undefined, b: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a ?? {}).filter(([k, v]) => (b as Record<string, unknown> | undefined)?.[k] !== v));
}

/**
 * The suite's trained rows (the rows that train nothing are dropped: the Weak labels page scores
 * those), each row with the options of the priors kept for it (what each one's config differs in
 * from the suite's, or from the prior it stacks on, and what it sets beyond), and its label saying
 * so ("<row> + word dropout 0.1 + weight average 0.99").
 */
export const RULE_CANDIDATES: ExperimentMethods = (() => {
  const exp = parseExperimentMethods(JSON.stringify(corpora), 'bench/configs/corpora.json');
  const parsed = new Map(KEPT_PRIORS.map((p) => [p.name, parseExperimentMethods(JSON.stringify(p.config), p.file)]));
  const priors = KEPT_PRIORS.map((p) => {
    const prior = parsed.get(p.name)!;
    const under = p.over ? parsed.get(p.over)! : exp;
    const own = p.over ? p.name.slice(p.over.length + 3) : p.name;
    return {
      rows: new Set(p.rows),
      model: { ...differs(prior.model, under.model), ...p.model },
      train: differs(prior.train, under.train),
      suffix: ` + ${own}`,
    };
  });
  const methods = exp.methods
    .filter((m) => !isScoredOnly(m.method.name))
    .map((m) => {
      const kept = priors.filter((p) => p.rows.has(m.label));
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
