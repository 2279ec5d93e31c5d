/**
 * PU learning's records drawn (paper 003): the O-values of the weak-O tokens as a histogram with a
 * draggable λ cut-off (the tokens under it, and the precision and recall of the unlabeled entities
 * it finds where the run's gold layer labels those documents, as in the paper's Figure 3), at the
 * model the PU step cut with or after an exploratory epoch; and the detection curve by λ where
 * synthetic masking knows the hidden entities.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { Link } from 'wouter';
import { CsvButton, ExportButtons } from '../ui/components/ChartExport';
import type { MethodView, MethodViewProps } from './view';

export interface Token {
  docId: number;
  t: number;
  word: string;
  o: number;
  weak: string;
  /** The gold label where the gold layer annotates the document, else null. */
  gold: string | null;
}

/** Running counts over tokens sorted by O-value: with gold, and gold entities, up to each rank. */
export function cutOffIndex(sorted: readonly Token[]) {
  const known = new Uint32Array(sorted.length + 1);
  const hits = new Uint32Array(sorted.length + 1);
  sorted.forEach((x, i) => {
    known[i + 1] = known[i] + (x.gold !== null ? 1 : 0);
    hits[i + 1] = hits[i] + (x.gold !== null && x.gold !== 'O' ? 1 : 0);
  });
  return { sorted, known, hits };
}

/** The ⌈λ·m⌉ smallest O-values, and how well they find the gold entities among the O-tagged tokens. */
export function cutOff(ix: ReturnType<typeof cutOffIndex>, lambda: number) {
  const { sorted, known, hits } = ix;
  const m = sorted.length;
  const k = Math.ceil(lambda * m);
  return {
    count: k,
    first: sorted.slice(0, Math.min(k, 50)),
    threshold: k ? sorted[k - 1].o : -Infinity,
    gold: known[m] > 0,
    precision: known[k] ? hits[k] / known[k] : 0,
    recall: hits[m] ? hits[k] / hits[m] : 0,
    hidden: hits[m],
  };
}

function PuView({ runId, metrics, config, docs }: MethodViewProps) {
  // O-tagged tokens by O-value, from the model the PU step cut with (epoch -1) or after an exploratory epoch.
  const [epoch, setEpoch] = useState(-1);
  // Kept here, not in the chart, so that choosing another epoch keeps the cut-off where the user put it.
  const [lambda, setLambda] = useState<number | null>(null);
  const epochs = Math.max(0, ...(docs ?? []).map((d) => d.signals.oValueEpochs?.length ?? 0));
  const oTokens = useMemo(() => {
    const out: Token[] = [];
    for (const d of docs ?? []) {
      const o = epoch < 0 ? d.signals.oValue : d.signals.oValueEpochs?.[epoch];
      o?.forEach((v, t) => Number.isFinite(v) && out.push({ docId: d.docId, t, word: d.words[t], o: v, weak: d.weak[t], gold: d.gold ? d.gold[t] : null }));
    }
    return out.sort((a, b) => a.o - b.o || a.docId - b.docId || a.t - b.t);
  }, [docs, epoch]);
  const detRef = useRef<HTMLDivElement>(null);
  const defaultLambda = typeof config.pipeline?.lambda === 'number' ? config.pipeline.lambda : 0.1;
  return (
    <>
      {oTokens.length > 0 && (
        <>
          <h4>Run {runId}: PU learning: O-values of the weak-O tokens, and the λ cut-off</h4>
          {epochs > 0 && (
            <label>
              O-values of{' '}
              <select aria-label="O-value epoch" value={epoch} onChange={(e) => setEpoch(Number(e.target.value))}>
                <option value={-1}>the model the PU step cut with</option>
                {Array.from({ length: epochs }, (_, e) => (
                  <option key={e} value={e}>
                    exploratory epoch {e + 1}
                  </option>
                ))}
              </select>
            </label>
          )}
          <OValues runId={runId} tokens={oTokens} lambda={lambda ?? defaultLambda} setLambda={setLambda} />
        </>
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
    </>
  );
}

function OValues({ runId, tokens, lambda, setLambda }: { runId: number; tokens: Token[]; lambda: number; setLambda: (l: number) => void }) {
  const index = useMemo(() => cutOffIndex(tokens), [tokens]);
  const cut = useMemo(() => cutOff(index, lambda), [index, lambda]);
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const threshold = useRef(cut.threshold);
  threshold.current = cut.threshold;
  const hist = useMemo(() => {
    const lo = tokens[0].o;
    const hi = tokens[tokens.length - 1].o;
    const n = 40;
    const w = (hi - lo) / n || 1;
    const all = new Array<number>(n).fill(0);
    const ent = new Array<number>(n).fill(0);
    for (const x of tokens) {
      const b = Math.min(n - 1, Math.floor((x.o - lo) / w));
      all[b]++;
      if (x.gold !== null && x.gold !== 'O') ent[b]++;
    }
    return { x: all.map((_, b) => lo + (b + 0.5) * w), all, ent };
  }, [tokens]);
  useEffect(() => {
    if (!el.current) return;
    const bars = uPlot.paths.bars!({ size: [0.9, 60] });
    plot.current = new uPlot(
      {
        title: 'O-values of weak-O tokens (PU step); the line is the λ cut-off',
        width: Math.max(300, el.current.clientWidth || 520),
        height: 220,
        scales: { x: { time: false } },
        axes: [{ label: 'O-value' }, { label: 'tokens' }],
        series: [
          { label: 'O-value' },
          { label: 'O-tagged tokens', fill: '#2456c755', stroke: '#2456c7', paths: bars, points: { show: false } },
          { label: 'gold entities among them', fill: '#c0392b88', stroke: '#c0392b', paths: bars, points: { show: false } },
        ],
        hooks: {
          draw: [
            (u) => {
              if (!Number.isFinite(threshold.current)) return;
              const x = u.valToPos(threshold.current, 'x', true);
              const ctx = u.ctx;
              ctx.save();
              ctx.strokeStyle = '#111';
              ctx.lineWidth = 2;
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.restore();
            },
          ],
        },
      },
      [hist.x, hist.all, hist.ent] as uPlot.AlignedData,
      el.current,
    );
    return () => plot.current?.destroy();
  }, [hist]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the plot's draw hook reads the threshold; redraw when it moves
  useEffect(() => plot.current?.redraw(false), [cut.threshold]);
  return (
    <div className="stack" data-testid={`ovalues-${runId}`}>
      <div className="chart-box">
        <div ref={el} className="chart" />
        <ExportButtons target={el} name={`run-${runId}-o-values`} />
      </div>
      <label>
        λ <input type="range" min={0} max={0.5} step={0.005} value={lambda} aria-label="PU lambda" onChange={(e) => setLambda(Number(e.target.value))} />{' '}
        <span data-testid={`ovalues-cut-${runId}`} data-removed={cut.count} data-precision={cut.precision} data-recall={cut.recall}>
          λ = {lambda.toFixed(3)}: the {cut.count} of {tokens.length} weak-O tokens with O-value ≤{' '}
          {Number.isFinite(cut.threshold) ? cut.threshold.toFixed(3) : '—'}
          {cut.gold
            ? ` find the gold entities with precision ${(100 * cut.precision).toFixed(1)} % and recall ${(100 * cut.recall).toFixed(1)} % (${cut.hidden} gold-entity tokens among them)`
            : ' (no gold labels for these documents: precision and recall unknown)'}
        </span>
      </label>
      <ol className="compact" data-testid={`ovalues-list-${runId}`}>
        {cut.first.map((x) => (
          <li key={`${x.docId}:${x.t}`}>
            <Link href={`/annotate/${x.docId}/${x.t}`}>{x.word}</Link>{' '}
            <span className="muted">
              O-value {x.o.toFixed(3)}
              {x.gold !== null ? `, gold ${x.gold}` : ''}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

export const puView: MethodView = { id: 'pu', fields: ['oValue', 'oValueEpochs'], View: PuView };
