import type { PRF, SpanScores } from '../core/metrics';

const r2 = (x: number) => Math.round(x * 10000) / 100;
const one = (p: PRF) => ({ p: r2(p.precision), r: r2(p.recall), f1: r2(p.f1), tp: p.tp, fp: p.fp, fn: p.fn });

/** Span scores as the CLI prints them: percentages with two decimals, counts, per type. */
export function roundScores(s: SpanScores) {
  return { ...one(s.overall), perType: Object.fromEntries(Object.entries(s.perType).map(([k, v]) => [k, one(v)])) };
}
