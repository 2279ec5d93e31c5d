/**
 * The review loop's decisions, free of any view: after every N corrections (sentences reviewed in
 * the corrections layer), a background run fine-tunes the current model (the newest finished run)
 * on the weak labels and the corrections; a loop run cut off by a reload is resumed. The page
 * (src/ui/reviewLoop.ts) asks `nextLoopAction` whenever the corrections or the runs change.
 */
import type { RunConfig } from './runConfig';
import { type Span, UNKNOWN_TYPE } from './types';

/** The stage a fine-tune names the model it started from, when no epoch beat it on dev and the run kept it (methods/pipelines.ts). */
export const START_STAGE = 'starting model';

export interface LoopRunView {
  id: number;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled' | 'interrupted';
  config: unknown;
  metrics?: unknown;
  error?: string;
}

export type LoopAction =
  | { kind: 'idle'; why: string }
  | { kind: 'resume'; runId: number }
  | { kind: 'start'; config: RunConfig; corrections: number; fromRunId: number };

/** Most epochs a fine-tune trains: it starts from a trained model and should be back within minutes. */
export const LOOP_EPOCHS = 5;

/**
 * The weak sentences' loss weight in a fine-tune of a WSL run (weighted WSL), so that a few dozen
 * corrected sentences are not drowned by thousands of weak ones. Set before measuring, not tuned:
 * `simulate-review` on conll03 distant 3k (bench/configs/guided-correction-weighted.json, 3 seeds),
 * correcting the queue's top 2 % gained +5.16 F1 with it against +2.08 without, random sentences
 * +1.54 against +0.73 (BENCHMARKS.md). 0.03 was tried against it on the three simulated corpora
 * (the fifty-seventh session, bench/gamma-loco.ts): choosing the ranking and the weight together
 * leave-one-corpus-out keeps 0.1.
 */
export const LOOP_WEAK_WEIGHT = 0.1;

/** A run's dev F1 as its metrics record it. */
const devF1Of = (r: LoopRunView | undefined) => (r?.metrics as { dev?: { overall?: { f1?: number } } } | undefined)?.dev?.overall?.f1;
const loopOf = (r: LoopRunView) => (r.config as Partial<RunConfig>).loop;

/** Sentences reviewed in a layer's rows (each row's reviewedAt holds one entry per reviewed sentence). */
export function correctionsIn(rows: readonly ({ reviewedAt?: Record<number, number> } | undefined)[]): number {
  return rows.reduce((a, r) => a + Object.keys(r?.reviewedAt ?? {}).length, 0);
}

/**
 * Whether a run's model and predictions are here, for the review queue to rank by and the loop to
 * fine-tune: not an earlier fine-tune the loop pruned, a run opened from a project file (both say
 * `pruned`), or a CLI record imported into Compare runs (`config.imported`).
 */
export function runHasModel(r: { config: unknown; metrics?: unknown }): boolean {
  return !(r.metrics as { pruned?: string } | undefined)?.pruned && !(r.config as { imported?: unknown } | undefined)?.imported;
}

/**
 * What the loop does now, given `every` (0: off), the corrections made so far, the project's
 * training runs (oldest first), the corrections layer's id, and whether this tab trains one now.
 */
export function nextLoopAction(o: {
  every: number;
  corrections: number;
  runs: readonly LoopRunView[];
  layerId: number | null;
  busy: boolean;
  /** Whether a run's model is a token tagger, which the loop fine-tunes (the method's module says; default: yes). */
  tokenTagger?: (cfg: RunConfig) => boolean;
  /** True: a fine-tune that does not beat its start on dev keeps the start (the single pipeline's keepStart; default off). */
  keepStart?: boolean;
}): LoopAction {
  if (o.every <= 0) return { kind: 'idle', why: 'the loop is off' };
  if (o.busy) return { kind: 'idle', why: 'a fine-tune is training' };
  const loops = o.runs.filter((r) => loopOf(r));
  const cut = loops.find((r) => r.status === 'interrupted' || r.status === 'queued');
  if (cut) return { kind: 'resume', runId: cut.id };
  if (loops.some((r) => r.status === 'running')) return { kind: 'idle', why: 'a fine-tune is training in another tab' };
  // A failed or cancelled fine-tune counts too: the next one waits for N more corrections.
  const last = Math.max(0, ...loops.map((r) => loopOf(r)!.corrections));
  const left = o.every - (o.corrections - last);
  if (left > 0) return { kind: 'idle', why: `${left} more ${left === 1 ? 'correction' : 'corrections'} until the next fine-tune` };
  if (o.layerId === null) return { kind: 'idle', why: 'no corrections layer yet' };
  const base = [...o.runs].reverse().find((r) => r.status === 'done' && runHasModel(r));
  if (!base) return { kind: 'idle', why: 'no finished run to fine-tune: train one first' };
  const cfg = base.config as RunConfig;
  if (cfg.model.head === 'span' || o.tokenTagger?.(cfg) === false)
    return { kind: 'idle', why: `run ${base.id}'s model is not a token tagger, which the loop fine-tunes` };
  const chosen = (base.metrics as { dictionaryDropout?: number } | undefined)?.dictionaryDropout;
  const dropout = typeof cfg.model.dictionaryDropout === 'number' ? cfg.model.dictionaryDropout : (chosen ?? 0.5);
  const config: RunConfig = {
    ...cfg,
    name: `review loop: ${o.corrections} corrections`,
    data: { ...cfg.data, strongLayerId: o.layerId } as RunConfig['data'],
    pipeline: (o.keepStart ? { kind: 'single', keepStart: true } : { kind: 'single' }) as RunConfig['pipeline'],
    // WSL learns the corrections with more weight than the weak labels; another method keeps its own loss.
    method: cfg.method.name === 'wsl' ? { name: 'weighted-wsl', gamma: LOOP_WEAK_WEIGHT } : cfg.method,
    model: { ...cfg.model, dictionaryDropout: dropout, pretrain: 0 },
    // An ensemble's run fine-tunes as an ensemble: each member from its own weights (the model row keeps them all).
    train: { ...cfg.train, epochs: Math.min(cfg.train.epochs, LOOP_EPOCHS), patience: Math.min(cfg.train.patience, LOOP_EPOCHS) },
    loop: { fromRunId: base.id, corrections: o.corrections },
  };
  return { kind: 'start', config, corrections: o.corrections, fromRunId: base.id };
}

/**
 * The curve the annotator watches: dev F1 against the corrections each model trained with — the
 * run the loop first fine-tuned (at 0) and every finished loop run after it.
 */
export function loopCurve(runs: readonly LoopRunView[]): { corrections: number; devF1: number; runId: number }[] {
  const done = runs.filter((r) => r.status === 'done' && loopOf(r) && devF1Of(r) !== undefined);
  if (!done.length) return [];
  // The chain's root: the first loop run's starting model, when it is not a loop run itself.
  const root = runs.find((r) => r.id === loopOf(done[0])!.fromRunId && !loopOf(r));
  const points = done.map((r) => ({ corrections: loopOf(r)!.corrections, devF1: devF1Of(r)!, runId: r.id }));
  return root && devF1Of(root) !== undefined ? [{ corrections: 0, devF1: devF1Of(root)!, runId: root.id }, ...points] : points;
}

/**
 * How the newest loop run ended, as the start of the loop's status ('' when there is none yet):
 * its dev F1, and against the model it started from where that was better, or where the run kept
 * it (the single pipeline's keepStart).
 */
export function lastFineTune(runs: readonly LoopRunView[]): string {
  const last = [...runs].reverse().find((r) => loopOf(r));
  if (!last) return '';
  const { corrections: n, fromRunId } = loopOf(last)!;
  const f1 = devF1Of(last);
  const before = devF1Of(runs.find((r) => r.id === fromRunId));
  const pct = (x: number) => (100 * x).toFixed(2);
  const kept = (last.metrics as { keptStage?: string } | undefined)?.keptStage === START_STAGE;
  const fell = !kept && f1 !== undefined && before !== undefined && f1 < before;
  const score = f1 === undefined ? '' : ` (dev F1 ${pct(f1)}${fell ? `, below run ${fromRunId}'s ${pct(before!)}` : ''})`;
  const why = kept
    ? `: no epoch beat run ${fromRunId} on dev, so it keeps that model`
    : fell
      ? ': where dev is another kind of text than the one corrected, dev can fall while the model learns'
      : '';
  if (last.status === 'done') return `run ${last.id} fine-tuned with ${n} corrections${score}${why}; the queue is ranked by it · `;
  if (last.status === 'failed') return `the fine-tune with ${n} corrections (run ${last.id}) failed: ${last.error ?? 'no reason recorded'} · `;
  return '';
}

/** How many of the newest reviewed sentences the yield's second figure reads. */
export const YIELD_RECENT = 20;

/**
 * Whether a sentence [from, to) reviewed in the corrections layer says anything its weak labels
 * did not: a span added, removed, retyped or cut otherwise. Spans are compared whole, by the
 * tokens and type of those that touch the sentence. An untyped weak match ('?') is left out: a
 * decision types it or says nothing of it (keeping the weak labels drops it unsaid).
 */
export function sentenceChanged(corrected: readonly Span[], weak: readonly Span[], from: number, to: number): boolean {
  const inside = (spans: readonly Span[]) =>
    new Set(spans.filter((s) => s.start < to && s.end > from && s.label !== UNKNOWN_TYPE).map((s) => `${s.start}:${s.end}:${s.label}`));
  const a = inside(corrected);
  const b = inside(weak);
  return a.size !== b.size || [...a].some((k) => !b.has(k));
}

export interface CorrectionYield {
  /** Sentences reviewed, and how many of them changed their weak labels. */
  reviewed: number;
  changed: number;
  /** The same over the newest `YIELD_RECENT` reviewed (by when they were marked). */
  recent: { reviewed: number; changed: number };
}

/**
 * What reviewing has found so far: the share of reviewed sentences whose weak labels were wrong.
 * It is the annotator's own measure of the queue's precision (in the simulations 94-100 % of the
 * queue's top sentences had an error, against about 43 % at random): a newest share that falls
 * says the queue is running out of the errors it can find.
 */
export function correctionYield(sentences: readonly { at: number; changed: boolean }[], recent = YIELD_RECENT): CorrectionYield {
  const newest = [...sentences].sort((x, y) => y.at - x.at).slice(0, recent);
  return {
    reviewed: sentences.length,
    changed: sentences.filter((s) => s.changed).length,
    recent: { reviewed: newest.length, changed: newest.filter((s) => s.changed).length },
  };
}
