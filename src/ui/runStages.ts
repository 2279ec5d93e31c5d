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

/**
 * The stage whose model a finished run keeps, by its position in the run's stage records: the
 * stage a pipeline kept for being best on dev (`keptStage`), else, where the last stages were the
 * dictionary-dropout values tried on dev, the one at the value chosen, else the last stage. None
 * for an ensemble, which decodes all its members' last stages as one.
 */
export function keptStageIndex(
  stages: readonly { stage: string }[],
  m: { keptStage?: string; dictionaryDropout?: number; members?: readonly unknown[] },
): number | null {
  if (!stages.length || m.members) return null;
  if (m.keptStage) {
    const k = stages.findIndex((s) => s.stage === m.keptStage);
    return k >= 0 ? k : null;
  }
  const last = stages.length - 1;
  const tried = / \(dictionary dropout [\d.]+\)$/;
  if (m.dictionaryDropout !== undefined && tried.test(stages[last].stage)) {
    const base = stages[last].stage.replace(tried, '');
    for (let k = last; k >= 0 && stages[k].stage.startsWith(base) && tried.test(stages[k].stage); k--)
      if (stages[k].stage === `${base} (dictionary dropout ${m.dictionaryDropout})`) return k;
  }
  return last;
}

/** The 1-based epoch of a stage's best dev F1 (the first of equals), or 0 when it scored none. */
export function bestEpochOfStage(stage: { history?: readonly { devF1: number }[] }): number {
  const h = stage.history ?? [];
  return h.reduce((b, e, k) => (e.devF1 > (h[b - 1]?.devF1 ?? -1) ? k + 1 : b), 0);
}
