/**
 * A run's epochs by stage, for its page's curves: a multi-stage run (a completion teacher and its
 * students, dictionary dropout tried on dev, an ensemble's members) records every stage's epochs
 * one after another, and one line through all of them reads as a loss that jumps up and down.
 */

export interface StageRun {
  /** The stage's name as the run's progress gave it ('' for a single-stage run). */
  stage: string;
  /** Its epochs' positions in the run's history, [from, to). */
  from: number;
  to: number;
}

/** Consecutive epochs of the same stage, in order. */
export function stageRuns(history: readonly { stage?: string }[]): StageRun[] {
  const out: StageRun[] = [];
  history.forEach((h, k) => {
    const stage = h.stage ?? '';
    const last = out[out.length - 1];
    if (last && last.stage === stage) last.to = k + 1;
    else out.push({ stage, from: k, to: k + 1 });
  });
  return out;
}

const COLORS = ['#2456c7', '#c0392b', '#1e6b32', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#b7950b'];

/**
 * One chart series per stage (null outside it, so the line breaks where a stage starts afresh),
 * or one series where the run had a single stage. A stage that recurs (a later round of the same
 * name) is drawn as its own line.
 */
export function stageSeries(
  history: readonly { stage?: string }[],
  value: (k: number) => number,
  single: { label: string; color: string },
): { label: string; values: (number | null)[]; color: string }[] {
  const runs = stageRuns(history);
  if (runs.length <= 1) return [{ ...single, values: history.map((_, k) => value(k)) }];
  const seen = new Map<string, number>();
  return runs.map((r, i) => {
    const n = (seen.get(r.stage) ?? 0) + 1;
    seen.set(r.stage, n);
    const values = history.map((_, k) => (k >= r.from && k < r.to ? value(k) : null));
    return { label: `${r.stage || 'stage'}${n > 1 ? ` (${n})` : ''}`, values, color: COLORS[i % COLORS.length] };
  });
}
