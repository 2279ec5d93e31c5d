/**
 * Leave-one-corpus-out defaults: what a user who brings a corpus nobody tuned on gets. For each
 * corpus, a written rule chooses a pipeline from the records of the other corpora's dev sets only,
 * and that choice's test F1 on the left-out corpus is reported. Settings that share a corpus
 * (conll03 1k and 3k; bc5cdr core and core + train names) are left out together.
 *
 * The rule: among the candidates (every trained row recorded on every setting, plus "the best
 * candidate on the corpus's own dev", which a user with a dev set can always do), choose the one
 * whose dev F1 gains most over the reference row (plain WSL), averaged per corpus, then over the
 * corpora; ties go to the earlier row. Only dev figures enter the choice; test is read once, after.
 *
 * Priors that travel (word dropout, a starter model, ...) are decided first, by the same kind of
 * rule: a prior is kept for a row when the other corpora's mean dev gain of that row with it, run
 * for run against the same seed without it, is positive (each corpus's settings averaged first).
 * The rows it is kept for are then read with it, on every setting where it ran, before the choice.
 * Priors form a tree (a prior may stack on an earlier one); two on the same footing are
 * alternatives, and a row reads the one of them that gains more. A prior that cannot apply to a
 * corpus (the gazetteer library on chemicals and diseases) is inert there: no vote, never read.
 */
import { meanStd } from './metrics';

export const LOCO_RULE =
  'For each left-out corpus: among the candidate rows and "the best candidate on the corpus\u2019s own dev", the one whose mean dev F1 gains most over the reference row, averaged per corpus over its settings, then over the other corpora; ties to the earlier row. Only dev figures of the other corpora choose; the left-out corpus\u2019s test is read after. Before the choice, a prior (loco.priors) is kept for a row where the other corpora\u2019s mean dev gain of that row with it, run for run against the same seed without it, is positive, and that row is read with it; a prior run on top of an earlier one is read against that one\u2019s runs and kept only where it is kept; of two priors on the same footing (no run has both), a row reads the one that gains more; a prior that cannot apply to a corpus takes no vote from it and is never read there.';

/** What the rule reads of a recorded run. */
export interface LocoRecord {
  setting: string;
  label: string;
  seed: number;
  split?: string;
  dev: { f1: number } | null;
  test: { f1: number };
}

export interface LocoInput {
  /** Settings in order, each with the corpus it draws on. */
  settings: readonly { name: string; corpus: string }[];
  /** Trained rows (labels) the rule may choose, in the config's order. */
  candidates: readonly string[];
  /** The row every gain is measured against (plain WSL). */
  reference: string;
  /** Rows scored once on test without training: the weak labels, the dictionary match. */
  weakRows: readonly string[];
  records: readonly LocoRecord[];
  /** Priors measured run for run against the candidates (their records named by the settings they ran on). */
  priors?: readonly LocoPrior[];
  /** How the other corpora's gains are pooled into one (`pooled`); the rule's is `mean`. */
  pool?: LocoPool;
}

export const LOCO_POOLS = ['mean', 'median', 'random-effects'] as const;
export type LocoPool = (typeof LOCO_POOLS)[number];

/** A prior's runs: the candidates' rows run again with it, on (some of) the input's settings. */
export interface LocoPrior {
  /** What it is, for the report ("word dropout 0.1"). */
  name: string;
  records: readonly LocoRecord[];
  /**
   * An earlier prior of the list that this one's runs stack on ("word dropout 0.1" under "word
   * dropout 0.1 + weight average 0.99"): its gain is read against that prior's runs, and it is kept
   * only for rows that prior is kept for.
   */
  over?: string;
  /** Corpora it cannot apply to, each with why: they do not vote on it, and are never read with it. */
  inert?: Readonly<Record<string, string>>;
}

/** The meta-candidate: per seed, the candidate with the best dev F1 on the setting itself. */
export const DEV_SELECT = 'the best candidate on the corpus\u2019s own dev (per seed)';

export interface LocoSetting {
  name: string;
  corpus: string;
  /** F1 on test of the weak labels or the dictionary match, the better (null: neither scored on test). */
  weak: number | null;
  /** The weak labels' F1 where they are scored on train only (distant settings), for reference. */
  weakOnTrain: number | null;
  wsl: number | null;
  loco: { choice: string; mean: number; std: number; seeds: number[]; dev: number; why: string } | null;
  /** The priors the rule kept for this corpus, each with the rows it reads it for (absent: no priors given). */
  priors?: { name: string; rows: string[]; why: string }[];
  /** Why `loco` is null though the rows ran: a kept prior has not run with a row on every seed here. */
  notMeasured?: string;
  /** The row with the best mean dev F1 on this setting (a choice made on its own dev), and its test mean. */
  best: { label: string; mean: number; dev: number } | null;
  /** max(weak, wsl) + 3, the bar. */
  target: number | null;
}

type Cell = { dev: number; test: number; seeds: number[]; byseed: Map<number, { dev: number; test: number }> };

function cells(input: LocoInput): Map<string, Map<string, Cell>> {
  const out = new Map<string, Map<string, Cell>>();
  for (const s of input.settings) {
    const row = new Map<string, Cell>();
    for (const label of [...input.candidates, input.reference]) {
      const rs = input.records.filter((r) => r.setting === s.name && r.label === label && r.seed > 0 && r.dev);
      if (!rs.length) continue;
      const byseed = new Map(rs.map((r) => [r.seed, { dev: r.dev!.f1, test: r.test.f1 }]));
      row.set(label, {
        dev: meanStd(rs.map((r) => r.dev!.f1)).mean,
        test: meanStd(rs.map((r) => r.test.f1)).mean,
        seeds: [...byseed.keys()].sort((a, b) => a - b),
        byseed,
      });
    }
    // Dev-select: for each seed every candidate ran, the candidate best on dev.
    const seeds = [...new Set(input.records.filter((r) => r.setting === s.name && r.seed > 0).map((r) => r.seed))].sort((a, b) => a - b);
    const byseed = new Map<number, { dev: number; test: number }>();
    for (const seed of seeds) {
      const runs = input.candidates.map((c) => row.get(c)?.byseed.get(seed));
      if (runs.some((r) => !r)) continue;
      const best = runs.reduce((a, b) => (b!.dev > a!.dev ? b : a))!;
      byseed.set(seed, best);
    }
    if (byseed.size)
      row.set(DEV_SELECT, {
        dev: meanStd([...byseed.values()].map((v) => v.dev)).mean,
        test: meanStd([...byseed.values()].map((v) => v.test)).mean,
        seeds: [...byseed.keys()],
        byseed,
      });
    out.set(s.name, row);
  }
  return out;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/**
 * A gain averaged the rule's way: `gainOf` gives a setting's seed-for-seed differences; they are
 * averaged over each other corpus's settings where it has some, then pooled over those corpora
 * (`pooled`: the mean unless the input says otherwise); with how many corpora it read of how many,
 * and their gains written out.
 */
function otherCorporaGain(input: LocoInput, leftOut: string | null, gainOf: (setting: string) => readonly number[] | null) {
  const others = [...new Set(input.settings.filter((s) => s.corpus !== leftOut).map((s) => s.corpus))];
  const perCorpus: { gain: number; variance: number }[] = [];
  const parts: string[] = [];
  for (const corpus of others) {
    const runs = input.settings.flatMap((s) => (s.corpus === corpus ? [gainOf(s.name) ?? []] : [])).filter((d) => d.length);
    if (!runs.length) continue;
    const gain = mean(runs.map(mean));
    // The variance of that mean: each setting's seed-to-seed variance of its differences over its seed count, averaged over the settings, over their count.
    const variance = mean(runs.map((d) => (d.length > 1 ? sampleVariance(d) / d.length : Number.NaN))) / runs.length;
    perCorpus.push({ gain, variance });
    parts.push(`${corpus} ${signed(gain)}`);
  }
  return { others: others.length, read: perCorpus.length, parts, gain: pooled(perCorpus, input.pool ?? 'mean') };
}

const sampleVariance = (xs: readonly number[]) => xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1);

/** The smallest variance a corpus's gain is given under random effects, so that seeds that agree to the digit do not take all the weight. */
const VARIANCE_FLOOR = 0.01;

/**
 * The corpora's gains pooled into one. `mean` weighs every corpus alike (the rule). `median` takes the
 * middle one. `random-effects` weighs each by 1 / (its variance + the between-corpus variance),
 * DerSimonian and Laird's estimator: a corpus whose seeds disagree (a small dev) counts for less,
 * but no corpus counts for more than its share once the corpora disagree with each other; it falls
 * back to the mean where a corpus has one seed.
 */
function pooled(perCorpus: readonly { gain: number; variance: number }[], pool: LocoPool): number {
  if (!perCorpus.length) return Number.NaN;
  const gains = perCorpus.map((c) => c.gain);
  if (pool === 'median') {
    const s = [...gains].sort((a, b) => a - b);
    const m = (s.length - 1) / 2;
    return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2;
  }
  if (pool === 'random-effects' && perCorpus.length > 1 && perCorpus.every((c) => Number.isFinite(c.variance))) {
    const v = perCorpus.map((c) => Math.max(c.variance, VARIANCE_FLOOR));
    const w = v.map((x) => 1 / x);
    const sw = w.reduce((a, b) => a + b, 0);
    const fixed = gains.reduce((a, g, i) => a + w[i] * g, 0) / sw;
    const q = gains.reduce((a, g, i) => a + w[i] * (g - fixed) ** 2, 0);
    const tau2 = Math.max(0, (q - (gains.length - 1)) / (sw - w.reduce((a, b) => a + b * b, 0) / sw));
    const ws = v.map((x) => 1 / (x + tau2));
    return gains.reduce((a, g, i) => a + ws[i] * g, 0) / ws.reduce((a, b) => a + b, 0);
  }
  return mean(gains);
}

/** The rule's choice for a left-out corpus, from the other corpora's dev figures only. */
export function locoChoice(input: LocoInput, leftOut: string, table = cells(input)): { choice: string; why: string } | null {
  let best: { choice: string; gain: number; parts: string[] } | null = null;
  for (const c of [...input.candidates, DEV_SELECT]) {
    const g = otherCorporaGain(input, leftOut, (setting) => {
      const row = table.get(setting)!;
      const [a, ref] = [row.get(c), row.get(input.reference)];
      return a && ref ? a.seeds.filter((k) => ref.byseed.has(k)).map((k) => a.byseed.get(k)!.dev - ref.byseed.get(k)!.dev) : null;
    });
    // A candidate must have run on every other corpus to be chosen.
    if (g.read < g.others || !g.others) continue;
    if (!best || g.gain > best.gain + 1e-9) best = { choice: c, gain: g.gain, parts: g.parts };
  }
  return best && { choice: best.choice, why: `dev gain over ${input.reference}: ${best.parts.join(', ')}; ${input.pool ?? 'mean'} ${signed(best.gain)}` };
}

/**
 * For a left-out corpus (null: none, every corpus's dev votes: what a corpus outside the suite
 * gets, the training page's rule candidates), the rows each prior is kept for: the other corpora's mean dev gain of the
 * row with the prior, against the same setting and seed without it (or with the prior it stacks
 * on, which must be kept for the row), is positive. Two priors that stack on the same one (or on
 * none) are alternatives: no run has both, so where both gain, the row reads the one that gains
 * more (ties to the earlier), and the other and what stacks on it are not kept for that row.
 */
export function keptPriors(
  input: LocoInput,
  leftOut: string | null,
  /** Priors that cannot apply to the corpus the rule decides for (a new corpus whose types no list of a library maps onto). */
  inertHere: ReadonlySet<string> = new Set(),
): { prior: LocoPrior; rows: string[]; why: string }[] {
  const devs = (records: readonly LocoRecord[]) =>
    new Map(records.filter((r) => r.dev && r.seed > 0).map((r) => [`${r.setting}\t${r.label}\t${r.seed}`, r.dev!.f1]));
  const plain = devs(input.records);
  const priors = input.priors ?? [];
  const corpusOf = new Map(input.settings.map((s) => [s.name, s.corpus]));
  // First every prior's gain per row (absent: not measured there), then which are kept, in list order.
  const gains = priors.map((prior, i) => {
    const under = prior.over === undefined ? null : priors.slice(0, i).find((p) => p.name === prior.over);
    if (under === undefined) throw new Error(`prior ${prior.name}: it stacks on ${prior.over}, which is not an earlier prior of the list`);
    const base = under ? devs(under.records) : plain;
    const byRow = new Map<string, ReturnType<typeof otherCorporaGain>>();
    const inert = inertHere.has(prior.name)
      ? `it cannot apply there, as on ${Object.keys(prior.inert ?? {}).join(' and ') || 'no corpus of the suite'}`
      : leftOut === null
        ? undefined
        : prior.inert?.[leftOut];
    if (inert) return { prior, under, byRow, inert };
    for (const label of input.candidates) {
      // Per setting, the mean over seeds of the run with the prior less the same seed's run without it.
      const g = otherCorporaGain(input, leftOut, (setting) => {
        if (prior.inert?.[corpusOf.get(setting)!]) return null;
        const d = prior.records
          .filter((r) => r.setting === setting && r.label === label && r.seed > 0 && r.dev)
          .flatMap((r) => {
            const b = base.get(`${setting}\t${label}\t${r.seed}`);
            return b === undefined ? [] : [r.dev!.f1 - b];
          });
        return d.length ? d : null;
      });
      if (g.read) byRow.set(label, g);
    }
    return { prior, under, byRow, inert };
  });
  const kept: { prior: LocoPrior; rows: string[]; why: string }[] = [];
  for (const [i, { prior, under, byRow, inert }] of gains.entries()) {
    if (inert) {
      kept.push({ prior, rows: [], why: `${prior.name} does not apply to ${leftOut ?? 'this corpus'}: ${inert}` });
      continue;
    }
    const underRows = under ? kept[priors.indexOf(under)].rows : null;
    const rows: string[] = [];
    const parts: string[] = [];
    for (const [label, g] of byRow) {
      const gainAt = (j: number) => gains[j].byRow.get(label)?.gain ?? Number.NaN;
      // An alternative: a prior on the same footing that gains more here (ties to the earlier).
      const rival = gains.find((o, j) => j !== i && o.prior.over === prior.over && gainAt(j) > 0 && (gainAt(j) > g.gain || (gainAt(j) === g.gain && j < i)));
      const keep = g.gain > 0 && (!underRows || underRows.includes(label)) && !rival;
      if (keep) rows.push(label);
      const why = keep
        ? ', kept'
        : g.gain <= 0
          ? ''
          : underRows && !underRows.includes(label)
            ? `, not kept: ${prior.over} is not`
            : `, not kept: ${rival!.prior.name} gains more (no run has both)`;
      parts.push(`${label}: ${g.parts.join(', ')}; ${input.pool ?? 'mean'} ${signed(g.gain)}${why}`);
    }
    const against = under ? ` over ${under.name}` : '';
    kept.push({ prior, rows, why: parts.length ? `dev gain with ${prior.name}${against}: ${parts.join(' | ')}` : '' });
  }
  return kept.filter((k) => k.why);
}

/** The records with each kept prior's runs in place of its rows' runs, where it ran. */
function withPriors(records: readonly LocoRecord[], kept: readonly { prior: LocoPrior; rows: string[] }[]): LocoRecord[] {
  const swap = new Map<string, LocoRecord>();
  for (const { prior, rows } of kept)
    for (const r of prior.records) if (rows.includes(r.label) && r.seed > 0) swap.set(`${r.setting}\t${r.label}\t${r.seed}`, r);
  return records.map((r) => swap.get(`${r.setting}\t${r.label}\t${r.seed}`) ?? r);
}

export function leaveOneCorpusOut(input: LocoInput): LocoSetting[] {
  const plain = cells(input);
  return input.settings.map((s) => {
    const kept = input.priors ? keptPriors(input, s.corpus) : [];
    // A kept prior must have run with its rows here on every seed they ran, or the choice mixes runs with and without it.
    const gaps = kept.flatMap(({ prior, rows }) =>
      rows
        .filter((label) =>
          input.records
            .filter((r) => r.setting === s.name && r.label === label && r.seed > 0)
            .some((r) => !prior.records.some((p) => p.setting === s.name && p.label === label && p.seed === r.seed)),
        )
        .map((label) => `${label} has not run with ${prior.name} on every seed`),
    );
    const table = kept.some((k) => k.rows.length) ? cells({ ...input, records: withPriors(input.records, kept) }) : plain;
    const row = table.get(s.name)!;
    const weakRecs = input.records.filter((r) => r.setting === s.name && input.weakRows.includes(r.label));
    const onTest = weakRecs.filter((r) => (r.split ?? 'test') === 'test').map((r) => r.test.f1);
    const onTrain = weakRecs.filter((r) => r.split === 'train').map((r) => r.test.f1);
    const weak = onTest.length ? Math.max(...onTest) : null;
    const wslCell = row.get(input.reference);
    const pick = gaps.length ? null : locoChoice(input, s.corpus, table);
    const chosen = pick ? row.get(pick.choice) : undefined;
    const tests = chosen ? chosen.seeds.map((k) => chosen.byseed.get(k)!.test) : [];
    const bestLabel = [...row.keys()].filter((k) => k !== DEV_SELECT).reduce<string | null>((a, k) => (!a || row.get(k)!.dev > row.get(a)!.dev ? k : a), null);
    const wsl = wslCell ? round(wslCell.test) : null;
    const bar = [weak, wsl].filter((x): x is number => x !== null);
    return {
      name: s.name,
      corpus: s.corpus,
      weak,
      weakOnTrain: onTrain.length ? Math.max(...onTrain) : null,
      wsl,
      loco:
        pick && chosen
          ? {
              choice: pick.choice,
              mean: round(meanStd(tests).mean),
              std: round(meanStd(tests).std),
              seeds: chosen.seeds,
              dev: round(chosen.dev),
              why: pick.why,
            }
          : null,
      best: bestLabel ? { label: bestLabel, mean: round(row.get(bestLabel)!.test), dev: round(row.get(bestLabel)!.dev) } : null,
      target: bar.length ? round(Math.max(...bar) + 3) : null,
      ...(input.priors ? { priors: kept.map(({ prior, rows, why }) => ({ name: prior.name, rows, why })) } : {}),
      ...(gaps.length ? { notMeasured: gaps.join('; ') } : {}),
    };
  });
}

const round = (x: number) => Math.round(x * 100) / 100;
