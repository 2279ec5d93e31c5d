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
 */
import { meanStd } from './metrics';

export const LOCO_RULE =
  'For each left-out corpus: among the candidate rows and "the best candidate on the corpus\u2019s own dev", the one whose mean dev F1 gains most over the reference row, averaged per corpus over its settings, then over the other corpora; ties to the earlier row. Only dev figures of the other corpora choose; the left-out corpus\u2019s test is read after.';

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

/** The rule's choice for a left-out corpus, from the other corpora's dev figures only. */
export function locoChoice(input: LocoInput, leftOut: string, table = cells(input)): { choice: string; why: string } | null {
  const others = [...new Set(input.settings.filter((s) => s.corpus !== leftOut).map((s) => s.corpus))];
  const options = [...input.candidates, DEV_SELECT];
  let best: { choice: string; gain: number; parts: string[] } | null = null;
  for (const c of options) {
    const perCorpus: number[] = [];
    const parts: string[] = [];
    for (const corpus of others) {
      const gains = input.settings
        .filter((s) => s.corpus === corpus)
        .flatMap((s) => {
          const row = table.get(s.name)!;
          const [a, ref] = [row.get(c), row.get(input.reference)];
          return a && ref ? [a.dev - ref.dev] : [];
        });
      if (!gains.length) continue;
      const g = gains.reduce((x, y) => x + y, 0) / gains.length;
      perCorpus.push(g);
      parts.push(`${corpus} ${g >= 0 ? '+' : ''}${g.toFixed(2)}`);
    }
    // A candidate must have run on every other corpus to be chosen.
    if (perCorpus.length < others.length || !others.length) continue;
    const gain = perCorpus.reduce((x, y) => x + y, 0) / perCorpus.length;
    if (!best || gain > best.gain + 1e-9) best = { choice: c, gain, parts };
  }
  return (
    best && { choice: best.choice, why: `dev gain over ${input.reference}: ${best.parts.join(', ')}; mean ${best.gain >= 0 ? '+' : ''}${best.gain.toFixed(2)}` }
  );
}

export function leaveOneCorpusOut(input: LocoInput): LocoSetting[] {
  const table = cells(input);
  return input.settings.map((s) => {
    const row = table.get(s.name)!;
    const weakRecs = input.records.filter((r) => r.setting === s.name && input.weakRows.includes(r.label));
    const onTest = weakRecs.filter((r) => (r.split ?? 'test') === 'test').map((r) => r.test.f1);
    const onTrain = weakRecs.filter((r) => r.split === 'train').map((r) => r.test.f1);
    const weak = onTest.length ? Math.max(...onTest) : null;
    const wslCell = row.get(input.reference);
    const pick = locoChoice(input, s.corpus, table);
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
    };
  });
}

const round = (x: number) => Math.round(x * 100) / 100;
