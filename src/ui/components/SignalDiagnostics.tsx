/**
 * A run's per-token records, drawn from its stored signals: the PU step's O-values as a histogram
 * with a draggable λ cut-off (the tokens under it, and the precision and recall of the unlabeled
 * entities it finds where the run's gold layer labels those documents, as in paper 003's
 * Figure 3); the weak labels RoSTER's threshold removed, by type, with their weak and gold
 * labels; and negative sampling's distribution over the spans (i, j) of a sentence as a heat map.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { Link } from 'wouter';
import { tokenLabels } from '../../core/reviewSignals';
import { tokenTexts } from '../../core/types';
import { db } from '../../db/instance';
import { runSignals } from '../../db/repo';
import { layerRows } from '../../db/layerStore';
import type { TrainMetrics } from '../../worker/trainJob';
import { CsvButton, ExportButtons } from './ChartExport';

interface Token {
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

export function SignalDiagnostics({ runId, metrics }: { runId: number; metrics: TrainMetrics }) {
  const data = useLiveQuery(async () => {
    const run = await db.runs.get(runId);
    const rows = await runSignals(db, runId).toArray();
    if (!run || !rows.some((r) => r.oValue || r.rosterRemoved)) return null;
    const cfg = run.config as { data?: { layerId?: number; goldLayerId?: number }; pipeline?: { lambda?: number } };
    const docs = await db.documents.bulkGet(rows.map((r) => r.docId));
    const get = (layer: number | undefined) =>
      layer === undefined
        ? Promise.resolve(rows.map(() => undefined))
        : layerRows(
            db,
            layer,
            rows.map((r) => r.docId),
          );
    const [weak, gold] = await Promise.all([get(cfg.data?.layerId), get(cfg.data?.goldLayerId)]);
    const removed: Token[] = [];
    const perDoc: { docId: number; words: string[]; weak: string[]; gold: string[] | null; oValue?: Float32Array; epochs?: Float32Array[] }[] = [];
    rows.forEach((r, k) => {
      const d = docs[k];
      if (!d) return;
      const words = tokenTexts(d);
      const wl = tokenLabels(weak[k]?.spans ?? [], words.length);
      const gl = gold[k] ? tokenLabels(gold[k]!.spans, words.length) : null;
      perDoc.push({ docId: r.docId, words, weak: wl, gold: gl, oValue: r.oValue, epochs: r.oValueEpochs });
      r.rosterRemoved?.forEach((x, t) => x && removed.push({ docId: r.docId, t, word: words[t], o: NaN, weak: wl[t], gold: gl ? gl[t] : null }));
    });
    const epochs = Math.max(0, ...perDoc.map((d) => d.epochs?.length ?? 0));
    return { perDoc, removed, epochs, lambda: cfg.pipeline?.lambda ?? 0.1 };
  }, [runId]);
  // O-tagged tokens by O-value, from the model the PU step cut with (epoch -1) or after an exploratory epoch.
  const [epoch, setEpoch] = useState(-1);
  // Kept here, not in the chart, so that choosing another epoch keeps the cut-off where the user put it.
  const [lambda, setLambda] = useState<number | null>(null);
  const oTokens = useMemo(() => {
    const out: Token[] = [];
    for (const d of data?.perDoc ?? []) {
      const o = epoch < 0 ? d.oValue : d.epochs?.[epoch];
      o?.forEach((v, t) => Number.isFinite(v) && out.push({ docId: d.docId, t, word: d.words[t], o: v, weak: d.weak[t], gold: d.gold ? d.gold[t] : null }));
    }
    return out.sort((a, b) => a.o - b.o || a.docId - b.docId || a.t - b.t);
  }, [data, epoch]);
  if (!data && !metrics.sampling?.length) return null;
  return (
    <section className="stack" data-testid={`signals-${runId}`}>
      {data && oTokens.length > 0 && (
        <>
          <h4>Run {runId}: PU learning: O-values of the weak-O tokens, and the λ cut-off</h4>
          {data.epochs > 0 && (
            <label>
              O-values of{' '}
              <select aria-label="O-value epoch" value={epoch} onChange={(e) => setEpoch(Number(e.target.value))}>
                <option value={-1}>the model the PU step cut with</option>
                {Array.from({ length: data.epochs }, (_, e) => (
                  <option key={e} value={e}>
                    exploratory epoch {e + 1}
                  </option>
                ))}
              </select>
            </label>
          )}
          <OValues runId={runId} tokens={oTokens} lambda={lambda ?? data.lambda} setLambda={setLambda} />
        </>
      )}
      {data && data.removed.length > 0 && <Removed runId={runId} tokens={data.removed} />}
      {metrics.sampling?.length ? <SamplingHeatMap runId={runId} maps={metrics.sampling} /> : null}
    </section>
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

function Removed({ runId, tokens }: { runId: number; tokens: Token[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const byType = useMemo(() => {
    const m = new Map<string, { n: number; wrong: number; gold: number }>();
    for (const x of tokens) {
      const r = m.get(x.weak) ?? { n: 0, wrong: 0, gold: 0 };
      r.n++;
      if (x.gold !== null) r.gold++, x.gold !== x.weak && r.wrong++;
      m.set(x.weak, r);
    }
    return [...m].sort((a, b) => b[1].n - a[1].n);
  }, [tokens]);
  return (
    <div className="stack" data-testid={`removed-${runId}`} ref={ref}>
      <h4>Run {runId}: Weak labels RoSTER's threshold removed (judged by the first noise-robust model)</h4>
      <CsvButton target={ref} name={`run-${runId}-roster-removed`} />
      <table className="grid">
        <thead>
          <tr>
            <th>weak label</th>
            <th>removed tokens</th>
            <th>with gold</th>
            <th>gold disagrees</th>
          </tr>
        </thead>
        <tbody>
          {byType.map(([label, r]) => (
            <tr key={label} data-label={label}>
              <td>{label}</td>
              <td className="num">{r.n}</td>
              <td className="num">{r.gold}</td>
              <td className="num">{r.wrong}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ol className="compact">
        {tokens.slice(0, 50).map((x) => (
          <li key={`${x.docId}:${x.t}`}>
            <Link href={`/annotate/${x.docId}/${x.t}`}>{x.word}</Link>{' '}
            <span className="muted">
              weak {x.weak}
              {x.gold !== null ? `, gold ${x.gold}` : ''}
            </span>
          </li>
        ))}
      </ol>
      <p className="muted">
        A weak O token is removed when the model's P(O) is at most τ. With the two-part head a weak entity token is judged by P(type | entity) and loses its
        type only: it still counts as an entity. Removal over time, by tag: the "removed" series of the method statistics above.
      </p>
    </div>
  );
}

function SamplingHeatMap({ runId, maps }: { runId: number; maps: NonNullable<TrainMetrics['sampling']> }) {
  const [k, setK] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const m = maps[Math.min(k, maps.length - 1)];
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
