/**
 * The leave-one-corpus-out rule's candidates, for the training page. On every corpus of the suite
 * but webpage (where it takes the page's default alone) the rule (core/loco.ts) chose "the best
 * candidate on the corpus's own dev, per seed": a user with a dev set trains the candidates and
 * keeps the one best on dev. The candidates are the trained rows of the suite's config,
 * bench/configs/corpora.json, read here as they were measured (their model and training options
 * included), so that the page runs exactly the rows the figures in BENCHMARKS.md come from; and
 * each prior travels to the rows the rule keeps it for with every corpus of the suite voting
 * (bench/results/loco.json, `everyCorpus`: what a corpus outside the suite gets). A prior that
 * cannot apply to the project (the gazetteer library, where no list maps onto its types) is
 * replaced by what the rule keeps where it is inert (`everyCorpus.whereInert`).
 */
import abbreviations from '../../bench/configs/abbreviations.json';
import corpora from '../../bench/configs/corpora.json';
import ensemble from '../../bench/configs/ensemble.json';
import library from '../../bench/configs/public-gazetteers-brands.json';
import loco from '../../bench/results/loco.json';
import weightAverage from '../../bench/configs/weight-average.json';
import wordDropout from '../../bench/configs/word-dropout.json';
import { type ExperimentMethods, isScoredOnly, parseExperimentMethods } from './experimentConfig';
import { publicLibraryApplies } from './publicGazetteers';

/** What of a project a prior's run options depend on: whether its documents hold one sentence each (absent: as the suite's corpora do). */
export interface ProjectShape {
  oneSentenceDocuments?: boolean;
}

/** A prior the rule keeps: its name in loco.json, the config its runs were measured with, the prior it stacks on, what it sets beyond its config's model and training options. */
interface Prior {
  name: string;
  file: string;
  config: unknown;
  over?: string;
  /** A prior of the data (a setting of its config's settings): the run option that does the same on a project. */
  model?: (shape: ProjectShape) => Record<string, unknown>;
}

const WORD_DROPOUT: Prior = { name: 'word dropout 0.1', file: 'bench/configs/word-dropout.json', config: wordDropout };
const WEIGHT_AVERAGE: Prior = {
  name: 'word dropout 0.1 + weight average 0.99',
  file: 'bench/configs/weight-average.json',
  config: weightAverage,
  over: WORD_DROPOUT.name,
};
export const LIBRARY_PRIOR = 'word dropout 0.1 + public gazetteers';
const LIBRARY: Prior = {
  name: LIBRARY_PRIOR,
  file: 'bench/configs/public-gazetteers-brands.json',
  config: library,
  over: WORD_DROPOUT.name,
  model: () => ({ publicLibrary: true }),
};

/** A test-time ensemble of three (train.members 3), measured stacked on the library: where the library cannot apply, neither can it. */
const ENSEMBLE: Prior = {
  name: `${LIBRARY_PRIOR} + ensemble of 3`,
  file: 'bench/configs/ensemble.json',
  config: ensemble,
  over: LIBRARY_PRIOR,
};

/** The abbreviations the text defines, a prior of the data (each setting of its config reads them): on a project, the run reads them into its weak layer. */
const ABBREVIATIONS: Prior = {
  name: 'word dropout 0.1 + abbreviations',
  file: 'bench/configs/abbreviations.json',
  config: abbreviations,
  over: WORD_DROPOUT.name,
  // The window measured on text of one sentence a document; in a project of real documents a definition holds in its own (0).
  model: (shape) => ({ abbreviations: shape.oneSentenceDocuments === false ? { following: 0 } : abbreviationsOf(abbreviations.settings) }),
};

/** The one window every setting of the abbreviations config reads them with. */
function abbreviationsOf(settings: readonly { abbreviations?: { following: number } }[]): { following: number } {
  const windows = new Set(settings.map((s) => s.abbreviations?.following));
  if (windows.size !== 1 || windows.has(undefined))
    throw new Error('bench/configs/abbreviations.json: every setting reads the abbreviations with one window ("abbreviations": {"following": N})');
  return { following: [...windows][0]! };
}

/** A kept prior and the rows it is kept for, in the order they stack. */
export type KeptPrior = { prior: Prior; rows: string[] };

const ALL_PRIORS = [WORD_DROPOUT, WEIGHT_AVERAGE, LIBRARY, ENSEMBLE, ABBREVIATIONS];
const PRIORS = new Map(ALL_PRIORS.map((p) => [p.name, p]));

/** loco.json's list of kept priors as the page's: those kept for some row, each with its config. */
function kept(list: readonly { name: string; rows: string[] }[]): KeptPrior[] {
  return list
    .filter((k) => k.rows.length)
    .map((k) => {
      const prior = PRIORS.get(k.name);
      if (!prior) throw new Error(`bench/results/loco.json keeps the prior "${k.name}", which the training page has no config for`);
      return { prior, rows: k.rows };
    });
}

/** What the rule keeps with every corpus voting (loco.json's everyCorpus.priors), read from the results, not copied. */
export const KEPT_PRIORS: KeptPrior[] = kept(loco.everyCorpus.priors);

/** What it keeps where a prior cannot apply (everyCorpus.whereInert), by that prior's name. */
export const KEPT_PRIORS_WHERE_INERT: Record<string, KeptPrior[]> = Object.fromEntries(loco.everyCorpus.whereInert.map((w) => [w.prior, kept(w.priors)]));

/** The options `a` sets otherwise than `b`. */
function differs(a: object | undefined, b: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a ?? {}).filter(([k, v]) => (b as Record<string, unknown> | undefined)?.[k] !== v));
}

/** The priors kept for a project of these entity types: the library's alternative where it cannot apply. */
export function keptPriorsFor(types: readonly string[]): KeptPrior[] {
  const inert = KEPT_PRIORS.some((k) => k.prior.name === LIBRARY_PRIOR && k.rows.length) && !publicLibraryApplies(types);
  return inert ? (KEPT_PRIORS_WHERE_INERT[LIBRARY_PRIOR] ?? KEPT_PRIORS) : KEPT_PRIORS;
}

/**
 * The suite's trained rows (the rows that train nothing are dropped: the Weak labels page scores
 * those), each row with the options of the priors kept for it (what each one's config differs in
 * from the suite's, or from the prior it stacks on, and what it sets beyond), and its label saying
 * so ("<row> + word dropout 0.1 + weight average 0.99"); `file` names the configs they come from.
 */
export function ruleCandidates(
  types: readonly string[],
  /**
   * Whether the project's documents hold one sentence each (files of lines, as every corpus of the
   * suite is): the abbreviations' window (documents a definition also holds in) is then the one
   * measured; in a project of real documents a definition holds in its own document only (0), as
   * the option means there. Absent: as measured.
   */
  shape: ProjectShape = {},
): ExperimentMethods & { file: string } {
  const exp = parseExperimentMethods(JSON.stringify(corpora), 'bench/configs/corpora.json');
  const kept = keptPriorsFor(types);
  const parsed = new Map(ALL_PRIORS.map((p) => [p.name, parseExperimentMethods(JSON.stringify(p.config), p.file)]));
  const priors = kept.map(({ prior: p, rows }) => {
    const prior = parsed.get(p.name)!;
    const under = p.over ? parsed.get(p.over)! : exp;
    const own = p.over ? p.name.slice(p.over.length + 3) : p.name;
    const model = { ...differs(prior.model, under.model), ...p.model?.(shape) };
    return { rows: new Set(rows), model, train: differs(prior.train, under.train), suffix: ` + ${own}` };
  });
  const methods = exp.methods
    .filter((m) => !isScoredOnly(m.method.name))
    .map((m) => {
      const on = priors.filter((p) => p.rows.has(m.label));
      return on.length
        ? {
            ...m,
            label: m.label + on.map((p) => p.suffix).join(''),
            model: Object.assign({ ...m.model }, ...on.map((p) => p.model)),
            train: Object.assign({ ...m.train }, ...on.map((p) => p.train)),
          }
        : m;
    });
  const files = kept.filter((k) => k.rows.length).map((k) => k.prior.file.replace('bench/configs/', ''));
  const list = files.length > 1 ? `${files.slice(0, -1).join(', ')} and ${files.at(-1)}` : (files[0] ?? '');
  return { ...exp, methods, file: `bench/configs/corpora.json${list ? `, with ${list}` : ''}` };
}

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
