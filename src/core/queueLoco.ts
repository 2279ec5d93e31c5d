/**
 * The review queue's default signal chosen leave-one-corpus-out, over the simulated annotator's
 * records (`studio simulate-review`): for each corpus, the candidate whose corrections gain most on
 * dev over as many random sentences' (seed for seed, at one budget), averaged over the other
 * corpora only; then what that choice gains on the left-out corpus's test. It answers the question
 * a user bringing a new corpus asks of the queue: does its ranking beat random where nobody chose it?
 */
import { meanStd } from './metrics';

/**
 * The studio's review signal (core/reviewSignals.ts) for each ranking the simulator names
 * (cli/simulateReview.ts SIGNALS): the queue's candidates are the rankings it offers, each
 * simulated exactly as the page ranks. `uncertainty-max` orders as the studio's uncertainty,
 * `uncertainty` as its uncertainty-sum (core/guidedCorrection.test.ts), and `reach-studio` is the
 * page's own reach ranking called on the pool (guidedCorrection.ts queueOrder).
 */
export const STUDIO_SIGNAL: Readonly<Record<string, string>> = {
  'uncertainty-max': 'uncertainty',
  uncertainty: 'uncertainty-sum',
  'reach-studio': 'reach',
};

/** One fine-tune of the simulated annotator (a line of a simulate-review records file). */
export interface QueueRecord {
  setting: string;
  seed: number;
  arm: string;
  fraction: number;
  test?: number;
  dev?: number;
  /**
   * Whether the fine-tune kept the base model it started from (no epoch beat it on dev) or beat
   * it, where it ran with `finetune.keepStart` (methods/pipelines.ts, the single pipeline); 'any'
   * where it did not: its best epoch, whatever it scored against the base (absent from records
   * made before the fifty-seventh session, alike).
   */
  start?: 'kept' | 'beaten' | 'any';
}

/** The records that are not fine-tunes: a seed's base model, its rankings, its tokens, a summary. */
const NOT_FINE_TUNES = new Set(['base', 'ranking', 'tokens', 'summary']);

/**
 * The records as fine-tunes that keep their start score them: a fine-tune whose dev F1 does not
 * beat its seed's base model's takes the base's dev and test F1 (the run keeps the base model, and
 * decodes it as the base run did: engine/run.test.ts checks the dev F1 is the same). Records made
 * under the rule ('kept', 'beaten') are left as they are; the others get it from their dev F1, so
 * both read alike. A record without dev F1, or without its seed's base, is left as it is.
 */
export function keptStart<R extends QueueRecord>(records: readonly R[]): R[] {
  const base = new Map(records.filter((r) => r.arm === 'base').map((r) => [`${r.setting}\u0000${r.seed}`, r]));
  return records.map((r) => {
    const b = base.get(`${r.setting}\u0000${r.seed}`);
    if (NOT_FINE_TUNES.has(r.arm) || r.start === 'kept' || r.start === 'beaten' || r.dev === undefined || b?.dev === undefined || b.test === undefined)
      return r;
    return r.dev > b.dev ? { ...r, start: 'beaten' as const } : { ...r, dev: b.dev, test: b.test, start: 'kept' as const };
  });
}

export interface QueueLocoCorpus {
  corpus: string;
  settings: string[];
  seeds: number[];
  choice: string;
  /** The other corpora's mean dev gain over random per candidate, and their mean: what chose it. */
  why: string;
  /** On the left-out corpus, test F1 gains over the seed's base model (mean ± std over its seeds). */
  test: { choice: Stat; random: Stat; overRandom: Stat };
  dev: { choice: Stat; random: Stat; overRandom: Stat };
  /** The choice's gain over random's gain, when random's is positive. */
  ratio: number | null;
  /** Every candidate's test gain over random on this corpus, for the table (not read by the choice). */
  candidates: Record<string, Stat>;
}

export interface Stat {
  mean: number;
  std: number;
  n: number;
}

const round = (x: number) => Math.round(x * 100) / 100;
function stat(xs: readonly number[]): Stat {
  const { mean, std } = meanStd(xs);
  return { mean: round(mean), std: round(std), n: xs.length };
}

/**
 * Per seed of a setting, an arm's gain over another at the budget ('base': the seed's base model,
 * at fraction 0), on dev or test; seeds lacking either are left out.
 */
export function pairedGains(
  records: readonly QueueRecord[],
  setting: string,
  arm: string,
  over: string,
  fraction: number,
  split: 'dev' | 'test',
): Map<number, number> {
  const at = (a: string) =>
    new Map(
      records
        .filter((r) => r.setting === setting && r.arm === a && r.fraction === (a === 'base' ? 0 : fraction) && r[split] !== undefined)
        .map((r) => [r.seed, r[split]!]),
    );
  const x = at(arm);
  const y = at(over);
  const out = new Map<number, number>();
  for (const [seed, v] of x) if (y.has(seed)) out.set(seed, v - y.get(seed)!);
  return out;
}

const mean = (xs: readonly number[]) => meanStd(xs).mean;
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/**
 * The rule on the corpora given: the candidate whose mean dev gain over random at `fraction` — per
 * setting the mean over its seeds, per corpus the mean over its settings — averaged over the
 * corpora, is largest; ties to the earlier candidate; a corpus where a candidate has no record
 * gives it no vote. With every corpus, it is the studio's default; with all but one, that one's
 * leave-one-corpus-out choice.
 */
export function chooseQueueSignal(
  records: readonly QueueRecord[],
  corpora: readonly { corpus: string; settings: readonly string[] }[],
  candidates: readonly string[],
  fraction: number,
): { choice: string; why: string } {
  const devGain = (c: { settings: readonly string[] }, arm: string): number | undefined => {
    const per = c.settings.map((s) => [...pairedGains(records, s, arm, 'random', fraction, 'dev').values()]).filter((xs) => xs.length);
    return per.length ? mean(per.map(mean)) : undefined;
  };
  const scored = candidates.map((arm) => {
    const votes = corpora.flatMap((c) => {
      const g = devGain(c, arm);
      return g === undefined ? [] : [{ corpus: c.corpus, g }];
    });
    return { arm, votes, score: votes.length ? mean(votes.map((v) => v.g)) : Number.NEGATIVE_INFINITY };
  });
  const best = scored.reduce((a, b) => (b.score > a.score ? b : a));
  const why = scored
    .map((s) => `${s.arm}: ${s.votes.map((v) => `${v.corpus} ${sign(v.g)}`).join(', ') || 'no records'}${s.votes.length ? `; mean ${sign(s.score)}` : ''}`)
    .join(' | ');
  return { choice: best.arm, why };
}

/**
 * The rule left one corpus out at a time: each corpus (its settings left out together) gets
 * chooseQueueSignal over the other corpora; its own test is read after the choice.
 */
export function queueLoco(
  records: readonly QueueRecord[],
  corpora: readonly { corpus: string; settings: readonly string[] }[],
  candidates: readonly string[],
  fraction: number,
): QueueLocoCorpus[] {
  return corpora.map((left) => {
    const { choice, why } = chooseQueueSignal(
      records,
      corpora.filter((c) => c !== left),
      candidates,
      fraction,
    );
    const gains = (arm: string, over: string, split: 'dev' | 'test') =>
      stat(left.settings.flatMap((s) => [...pairedGains(records, s, arm, over, fraction, split).values()]));
    const seeds = [...new Set(left.settings.flatMap((s) => [...pairedGains(records, s, choice, 'random', fraction, 'test').keys()]))].sort((a, b) => a - b);
    const test = { choice: gains(choice, 'base', 'test'), random: gains('random', 'base', 'test'), overRandom: gains(choice, 'random', 'test') };
    return {
      corpus: left.corpus,
      settings: [...left.settings],
      seeds,
      choice,
      why,
      test,
      dev: { choice: gains(choice, 'base', 'dev'), random: gains('random', 'base', 'dev'), overRandom: gains(choice, 'random', 'dev') },
      ratio: test.random.mean > 0 ? round(test.choice.mean / test.random.mean) : null,
      candidates: Object.fromEntries(candidates.map((arm) => [arm, gains(arm, 'random', 'test')])),
    };
  });
}
