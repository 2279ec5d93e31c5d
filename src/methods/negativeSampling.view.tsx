/** Negative sampling's records drawn: the sampling distribution over the spans (i, j) of a few training sentences, as a heat map. */
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { ExportButtons } from '../ui/components/ChartExport';
import type { MethodView, MethodViewProps } from './view';

function SamplingHeatMap({ runId, metrics }: MethodViewProps) {
  const maps = metrics.sampling ?? [];
  const [k, setK] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const m = maps[Math.min(k, maps.length - 1)];
  if (!m) return null;
  const n = m.words.length;
  const cell = 22;
  const pad = 90;
  const max = Math.max(...m.cells.map((c) => c.p), 1e-12);
  return (
    <div className="stack" data-testid={`sampling-${runId}`}>
      <h4>Run {runId}: Negative sampling: probability of each unlabeled span (i, j) in one draw, last epoch</h4>
      <label>
        Sentence{' '}
        <select aria-label="Sampling sentence" value={k} onChange={(e) => setK(Number(e.target.value))}>
          {maps.map((x, i) => (
            <option key={i} value={i}>
              {x.words.slice(0, 8).join(' ')}…
            </option>
          ))}
        </select>{' '}
        <Link href={`/annotate/${m.doc}/${m.offset}`}>open in the editor</Link>
      </label>
      <div ref={box} className="chart-box">
        <svg width={pad + n * cell + 10} height={pad + n * cell + 10} role="img" aria-label="sampling heat map" fontSize="11" fontFamily="sans-serif">
          {m.words.map((w, i) => (
            <g key={i}>
              <text x={pad - 4} y={pad + i * cell + cell * 0.7} textAnchor="end">
                {w.slice(0, 12)}
              </text>
              <text transform={`translate(${pad + i * cell + cell * 0.7}, ${pad - 4}) rotate(-60)`}>{w.slice(0, 12)}</text>
            </g>
          ))}
          {m.cells.map((c) => (
            <rect
              key={`${c.start}:${c.end}`}
              data-span={`${c.start}:${c.end}`}
              data-p={c.p}
              x={pad + (c.end - 1) * cell}
              y={pad + c.start * cell}
              width={cell - 1}
              height={cell - 1}
              fill={`rgba(192, 57, 43, ${(0.08 + 0.92 * (c.p / max)).toFixed(3)})`}
            >
              <title>{`span ${c.start}–${c.end - 1} “${m.words.slice(c.start, c.end).join(' ')}”: p = ${c.p.toFixed(4)}`}</title>
            </rect>
          ))}
          {m.labeled.map((c) => (
            <rect
              key={`l${c.start}:${c.end}`}
              x={pad + (c.end - 1) * cell}
              y={pad + c.start * cell}
              width={cell - 1}
              height={cell - 1}
              fill="none"
              stroke="#1e6b32"
              strokeWidth="2"
            >
              <title>{`labeled span ${c.start}–${c.end - 1}: always in the loss`}</title>
            </rect>
          ))}
        </svg>
        <ExportButtons target={box} name={`run-${runId}-sampling`} svg />
      </div>
      <p className="muted">Rows: first token i; columns: last token j; green outlines: labeled spans (always in the loss). Hover a cell for its probability.</p>
    </div>
  );
}

export const negativeSamplingView: MethodView = { id: 'negative-sampling', View: SamplingHeatMap };
