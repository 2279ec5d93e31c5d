/**
 * The model against the weak labels it learned from, on a split with gold labels: per type and
 * overall, precision and recall of each, and one sentence on what the difference means. A model
 * that only matches its dictionary's precision and recall has learned the dictionary; one that
 * gains recall at a cost in precision over-predicts; one below the weak labels on both is worse
 * than using them as they are.
 */
import type { PRF, SpanScores } from './metrics';

export interface WeakComparisonRow {
  type: string;
  weak: PRF;
  model: PRF;
  /** What the difference says, in a sentence. */
  reading: string;
}

/** Points (0-100) below which a difference in P, R or F1 is read as none. */
const NOISE = 2;

export function readDifference(weak: PRF, model: PRF): string {
  const dp = 100 * (model.precision - weak.precision);
  const dr = 100 * (model.recall - weak.recall);
  const df = 100 * (model.f1 - weak.f1);
  const pts = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
  if (weak.tp + weak.fn === 0) return 'No gold entity of this type here.';
  if (Math.abs(dp) < NOISE && Math.abs(dr) < NOISE) return 'As the weak labels: it learned the dictionary and no more.';
  if (dp <= -NOISE && dr <= -NOISE)
    return `Worse than the weak labels on both (precision ${pts(dp)}, recall ${pts(dr)}): use the weak labels, or check the settings.`;
  if (dr >= NOISE && dp <= -NOISE)
    return df >= NOISE
      ? `Finds more than the weak labels (recall ${pts(dr)}) at some cost in precision (${pts(dp)}): a net gain.`
      : df <= -NOISE
        ? `Over-predicts: recall ${pts(dr)} but precision ${pts(dp)}, F1 ${pts(df)}: the weak labels' O is mostly right here, and the model distrusts it.`
        : `Trades precision for recall (recall ${pts(dr)}, precision ${pts(dp)}): F1 about the same (${pts(df)}).`;
  if (dp >= NOISE && dr <= -NOISE)
    return df >= NOISE
      ? `More precise than the weak labels (${pts(dp)}) and misses a little more (recall ${pts(dr)}): a net gain.`
      : df <= -NOISE
        ? `More cautious than the weak labels: precision ${pts(dp)}, recall ${pts(dr)}, F1 ${pts(df)}; a lower O shift would find more.`
        : `Trades recall for precision (precision ${pts(dp)}, recall ${pts(dr)}): F1 about the same (${pts(df)}).`;
  if (dr >= NOISE) return `Finds what the weak labels miss (recall ${pts(dr)}) at their precision: it generalizes beyond the dictionary.`;
  if (dp >= NOISE) return `Corrects the weak labels' false matches (precision ${pts(dp)}) at their recall.`;
  if (dr <= -NOISE) return `Misses entities the weak labels find (recall ${pts(dr)}): it is more cautious than the dictionary.`;
  return `Less precise than the weak labels (${pts(dp)}) at their recall.`;
}

/** Rows for all types, then each type both score, in name order. */
export function compareToWeak(weak: SpanScores, model: SpanScores): WeakComparisonRow[] {
  const types = [...new Set([...Object.keys(weak.perType), ...Object.keys(model.perType)])].filter((t) => t !== '?').sort();
  const empty: PRF = { tp: 0, fp: 0, fn: 0, precision: 0, recall: 0, f1: 0 };
  return [
    { type: 'all types', weak: weak.overall, model: model.overall, reading: readDifference(weak.overall, model.overall) },
    ...types.map((t) => {
      const w = weak.perType[t] ?? { ...empty, fn: model.perType[t] ? model.perType[t].tp + model.perType[t].fn : 0 };
      const m = model.perType[t] ?? { ...empty, fn: w.tp + w.fn };
      return { type: t, weak: w, model: m, reading: readDifference(w, m) };
    }),
  ];
}
