/** NEEDLE's records drawn: its calibration (dev Viterbi-score bins against sequence accuracy) and the confidences the noise-aware loss gave the weak sentences. */
import { useMemo, useRef } from 'react';
import { CsvButton } from '../ui/components/ChartExport';
import { LineChart } from '../ui/components/LineChart';
import type { MethodView, MethodViewProps } from './view';

function NeedleView({ runId, metrics }: MethodViewProps) {
  const calRef = useRef<HTMLDivElement>(null);
  const confHist = useMemo(() => {
    if (!metrics.confidences?.length) return null;
    const bins = Array.from({ length: 10 }, () => 0);
    for (const c of metrics.confidences) bins[Math.min(9, Math.floor(c * 10))]++;
    return bins;
  }, [metrics.confidences]);
  if (!metrics.calibration && !confHist) return null;
  return (
    <div className="stack" data-testid={`needle-${runId}`}>
      <h4>Run {runId}: NEEDLE's calibration and confidences</h4>
      {metrics.calibration && (
        <>
          <LineChart
            title="Calibration: dev sequence accuracy by Viterbi-score bin"
            x={metrics.calibration.map((_, k) => k + 1)}
            series={[{ label: 'accuracy %', color: '#2456c7', values: metrics.calibration.map((b) => 100 * b.accuracy) }]}
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
    </div>
  );
}

export const needleView: MethodView = { id: 'needle', View: NeedleView };
