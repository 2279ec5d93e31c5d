/**
 * What every run records, whatever its method: the stage it kept, and the per-epoch method
 * statistics (negative sampling's missampling rate and sampled uncertainty, PU's O-values of
 * true-O and hidden-entity tokens, the decoupled model's O shift chosen on dev). A method's own
 * records are drawn by its view (SignalDiagnostics, src/methods/*.view.tsx).
 */
import { useMemo } from 'react';
import { START_STAGE } from '../../core/reviewLoop';
import type { TrainMetrics } from '../../worker/trainJob';
import { LineChart } from './LineChart';

const COLORS = ['#2456c7', '#c0392b', '#1e6b32', '#8e44ad'];

export function RunDiagnostics({ runId, metrics }: { runId: number; metrics: TrainMetrics }) {
  const perEpoch = useMemo(() => {
    const rows = [
      ...(metrics.stages ?? []).flatMap((s) => (s.history ?? []).map((h) => ({ ...h, stage: s.stage }))),
      ...(metrics.stages ? [] : (metrics.history ?? []).map((h) => ({ ...h, stage: '' }))),
    ].filter((h) => h.methodStats);
    const keys = [...new Set(rows.flatMap((h) => Object.keys(h.methodStats!)))];
    // RoSTER's removal shares are keyed by tag id: name them.
    const label = (key: string) =>
      key === 'oShift'
        ? "O's log-probability shift (chosen on dev)"
        : key.replace(/^removed:(\d+)$/, (_, k: string) => `removed ${metrics.tags?.[Number(k)] ?? `tag ${k}`}`);
    return { rows, keys, label };
  }, [metrics]);
  if (!perEpoch.rows.length && !metrics.keptStage) return null;
  const kept = metrics.keptStage && metrics.stages?.find((s) => s.stage === metrics.keptStage);
  return (
    <section className="stack" data-testid={`diagnostics-${runId}`}>
      <h3>Run {runId}: what the method recorded</h3>
      {metrics.keptStage === START_STAGE ? (
        <p data-testid={`kept-stage-${runId}`}>
          No epoch of this fine-tune beat the model it started from on dev{kept ? ` (dev F1 ${(100 * kept.devF1).toFixed(2)} before the O shift)` : ''}, so the
          run's model is that one, unchanged. Its corrections are kept, and the next round trains on them with those that follow.
        </p>
      ) : (
        metrics.keptStage && (
          <p data-testid={`kept-stage-${runId}`}>
            The run's model is its {metrics.keptStage}'s{kept ? ` (dev F1 ${(100 * kept.devF1).toFixed(2)} before the O shift)` : ''}: the best on dev of its
            stages; the later ones scored lower.
          </p>
        )
      )}
      {perEpoch.rows.length > 0 && (
        <LineChart
          title="Method statistics by epoch"
          x={perEpoch.rows.map((_, k) => k + 1)}
          series={perEpoch.keys.map((key, k) => ({
            label: perEpoch.label(key),
            color: COLORS[k % COLORS.length],
            values: perEpoch.rows.map((h) => h.methodStats![key] ?? null),
          }))}
          xLabel="epoch (all stages in order)"
          testId={`method-stats-${runId}`}
        />
      )}
    </section>
  );
}
