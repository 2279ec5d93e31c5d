/**
 * What a run's method recorded, drawn from its stored metrics: NEEDLE's calibration (dev Viterbi
 * score bins against sequence accuracy) and the confidences the noise-aware loss used; per-epoch
 * method statistics (negative sampling's missampling rate and sampled uncertainty, PU's O-values
 * of true-O and hidden-entity tokens, the decoupled model's O shift chosen on dev); PU's
 * unlabeled-entity detection by λ.
 */
import { useMemo, useRef } from 'react';
import { CsvButton } from './ChartExport';
import type { TrainMetrics } from '../../worker/trainJob';
import { LineChart } from './LineChart';

const COLORS = ['#2456c7', '#c0392b', '#1e6b32', '#8e44ad'];

export function RunDiagnostics({ runId, metrics }: { runId: number; metrics: TrainMetrics }) {
  const perEpoch = useMemo(() => {
    const rows = [
      ...(metrics.stages ?? []).flatMap((s) => (s.history ?? []).map((h) => ({ ...h, stage: s.stage }))),
      ...(metrics.stages ? [] : metrics.history.map((h) => ({ ...h, stage: '' }))),
    ].filter((h) => h.methodStats);
    const keys = [...new Set(rows.flatMap((h) => Object.keys(h.methodStats!)))];
    // RoSTER's removal shares are keyed by tag id: name them.
    const label = (key: string) =>
      key === 'oShift'
        ? "O's log-probability shift (chosen on dev)"
        : key.replace(/^removed:(\d+)$/, (_, k: string) => `removed ${metrics.tags?.[Number(k)] ?? `tag ${k}`}`);
    return { rows, keys, label };
  }, [metrics]);
  const calRef = useRef<HTMLDivElement>(null);
  const detRef = useRef<HTMLDivElement>(null);
  const confHist = useMemo(() => {
    if (!metrics.confidences?.length) return null;
    const bins = Array.from({ length: 10 }, () => 0);
    for (const c of metrics.confidences) bins[Math.min(9, Math.floor(c * 10))]++;
    return bins;
  }, [metrics.confidences]);
  if (!metrics.calibration && !perEpoch.rows.length && !metrics.detection && !metrics.keptStage) return null;
  const kept = metrics.keptStage && metrics.stages?.find((s) => s.stage === metrics.keptStage);
  return (
    <section className="stack" data-testid={`diagnostics-${runId}`}>
      <h3>Run {runId}: what the method recorded</h3>
      {metrics.keptStage && (
        <p data-testid={`kept-stage-${runId}`}>
          The run's model is its {metrics.keptStage}'s{kept ? ` (dev F1 ${(100 * kept.devF1).toFixed(2)} before the O shift)` : ''}: the best on dev of its
          stages; the later ones scored lower.
        </p>
      )}
      {metrics.calibration && (
        <>
          <LineChart
            title="Calibration: dev sequence accuracy by Viterbi-score bin"
            x={metrics.calibration.map((_, k) => k + 1)}
            series={[{ label: 'accuracy %', color: COLORS[0], values: metrics.calibration.map((b) => 100 * b.accuracy) }]}
            xLabel="bin"
            testId={`calibration-chart-${runId}`}
          />
          <div ref={calRef}>
            <CsvButton target={calRef} name={`run-${runId}-calibration`} />
            <table className="grid" data-testid={`calibration-${runId}`}>
              <thead>
                <tr>
                  <th>Bin</th>
                  <th>Viterbi score</th>
                  <th>Dev sentences</th>
                  <th>Sequence accuracy</th>
                </tr>
              </thead>
              <tbody>
                {metrics.calibration.map((b, k) => (
                  <tr key={k}>
                    <td>{k + 1}</td>
                    <td className="num">
                      {b.lo.toFixed(2)} – {b.hi.toFixed(2)}
                    </td>
                    <td className="num">{b.n}</td>
                    <td className="num">{(100 * b.accuracy).toFixed(1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {confHist && (
        <p data-testid={`confidences-${runId}`}>
          Confidences of the {metrics.confidences!.length} weak sentences (by tenths, capped at 0.95): {confHist.join(' · ')}
        </p>
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
      {metrics.detection && (
        <div ref={detRef}>
          <CsvButton target={detRef} name={`run-${runId}-detection`} />
          <table className="grid" data-testid={`detection-${runId}`}>
            <thead>
              <tr>
                <th>λ</th>
                <th>Tokens removed</th>
                <th>Precision</th>
                <th>Recall</th>
              </tr>
            </thead>
            <tbody>
              {metrics.detection.map((d) => (
                <tr key={d.lambda}>
                  <td>{d.lambda}</td>
                  <td className="num">{d.removed}</td>
                  <td className="num">{(100 * d.precision).toFixed(1)}</td>
                  <td className="num">{(100 * d.recall).toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
