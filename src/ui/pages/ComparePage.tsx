/**
 * Run comparison: every training run of the project with its scores overall and per type,
 * sortable and filterable; runs that differ only in the seed grouped as mean ± std; the dev-F1
 * curves of chosen runs overlaid; their test-split span errors by kind; and, for two runs, the
 * sentences where their predictions differ. Everything comes from stored runs and layers.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { meanStd, spanErrors, type SpanErrors, type SpanScores } from '../../core/metrics';
import { modelName, runGroupKey, runMethodName, type RunConfig } from '../../core/runConfig';
import type { Span } from '../../core/types';
import { importRunRecords, layerAnnotations } from '../../db/repo';
import { db } from '../../db/instance';
import type { DocumentRow, RunRow } from '../../db/schema';
import { LineChart } from '../components/LineChart';
import { RunDiagnostics } from '../components/RunDiagnostics';
import { SignalDiagnostics } from '../components/SignalDiagnostics';
import { SpanText } from '../components/SpanText';
import type { TrainMetrics } from '../../worker/trainJob';
import { download, pct, readText, toCsv, useProjectId, useTypeColors } from '../hooks';

interface RunView {
  id: number;
  metrics: TrainMetrics;
  status: string;
  method: string;
  model: string;
  seed: number;
  /** The config without name and seed: runs with the same group differ only in the seed. */
  group: string;
  dev?: number;
  test?: SpanScores;
  history: { epoch: number; devF1: number }[];
  predictedLayerId?: number;
  goldLayerId?: number;
}

function viewOf(r: RunRow): RunView {
  const cfg = r.config as RunConfig;
  const m = (r.metrics ?? {}) as { dev?: SpanScores; test?: SpanScores; history?: { epoch: number; devF1: number }[]; predictedLayerId?: number };
  const imported = (cfg as unknown as { imported?: { file: string; setting: string; label: string; seed: number } }).imported;
  if (imported) {
    return {
      id: r.id!,
      metrics: (r.metrics ?? { history: [] }) as TrainMetrics,
      status: r.status,
      method: `${imported.setting} · ${imported.label}`,
      model: cfg.model ? modelName(cfg as RunConfig) : 'imported',
      seed: imported.seed,
      group: JSON.stringify([imported.file, imported.setting, imported.label]),
      dev: m.dev?.overall.f1,
      test: m.test,
      history: m.history ?? [],
    };
  }
  return {
    id: r.id!,
    metrics: (r.metrics ?? { history: [] }) as TrainMetrics,
    status: r.status,
    method: runMethodName(cfg),
    model: modelName(cfg),
    seed: cfg.train?.seed ?? 0,
    group: runGroupKey(cfg),
    dev: m.dev?.overall.f1,
    test: m.test,
    history: m.history ?? [],
    predictedLayerId: m.predictedLayerId,
    goldLayerId: cfg.data?.kind === 'project' ? cfg.data.goldLayerId : undefined,
  };
}

type SortKey = 'id' | 'method' | 'seed' | 'dev' | 'p' | 'r' | 'f1' | `type:${string}`;

function sortValue(r: RunView, k: SortKey): number | string {
  if (k === 'id' || k === 'seed') return r[k];
  if (k === 'method') return r.method;
  if (k === 'dev') return r.dev ?? -1;
  if (k === 'p') return r.test?.overall.precision ?? -1;
  if (k === 'r') return r.test?.overall.recall ?? -1;
  if (k === 'f1') return r.test?.overall.f1 ?? -1;
  return r.test?.perType[k.slice(5)]?.f1 ?? -1;
}

const COLORS = ['#2456c7', '#c0392b', '#1e6b32', '#8e44ad', '#d35400', '#16a085'];

export function ComparePage() {
  const projectId = useProjectId();
  const colors = useTypeColors(projectId);
  const rows = useLiveQuery(
    () =>
      db.runs
        .where('projectId')
        .equals(projectId)
        .filter((r) => r.kind === 'train')
        .sortBy('id'),
    [projectId],
  );
  const runs = useMemo(() => (rows ?? []).map(viewOf), [rows]);
  const types = useMemo(() => [...new Set(runs.flatMap((r) => Object.keys(r.test?.perType ?? {})))].sort(), [runs]);
  const [filter, setFilter] = useState('');
  const [onlyDone, setOnlyDone] = useState(true);
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: true });
  const [chosen, setChosen] = useState<number[]>([]);
  const [importMsg, setImportMsg] = useState<{ ok: boolean; text: string } | null>(null);

  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const list = runs.filter((r) => (!onlyDone || r.status === 'done') && (!f || `${r.id} ${r.method} ${r.model}`.toLowerCase().includes(f)));
    return list.sort((a, b) => {
      const [x, y] = [sortValue(a, sort.key), sortValue(b, sort.key)];
      const c = typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number);
      return sort.desc ? -c : c;
    });
  }, [runs, filter, onlyDone, sort]);

  const groups = useMemo(() => {
    const by = new Map<string, RunView[]>();
    for (const r of shown) if (r.test) by.set(r.group, [...(by.get(r.group) ?? []), r]);
    return [...by.values()].map((rs) => ({
      runs: rs,
      f1: rs.map((r) => r.test!.overall.f1),
      perType: Object.fromEntries(types.map((t) => [t, rs.map((r) => r.test!.perType[t]?.f1 ?? 0)])),
    }));
  }, [shown, types]);

  const { picked, errors, curveX, curves } = useChosenRuns(projectId, runs, chosen);

  const header = (key: SortKey, label: string) => (
    <th aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="link" onClick={() => setSort({ key, desc: sort.key === key ? !sort.desc : true })}>
        {label}
        {sort.key === key ? (sort.desc ? ' ▼' : ' ▲') : ''}
      </button>
    </th>
  );

  const importRecords = async (e: React.ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    if (!f) return;
    setImportMsg(null);
    try {
      const { file, text } = await readText(f);
      const n = await importRunRecords(db, projectId, file, text);
      setImportMsg({ ok: true, text: `Imported ${n} runs from ${file}.` });
    } catch (err) {
      setImportMsg({ ok: false, text: (err as Error).message });
    }
    e.target.value = '';
  };

  const diff =
    errors && errors.out.length === 2
      ? errors.test
          .map((d, k) => ({ d, a: errors.out[0].pred[k], b: errors.out[1].pred[k] }))
          .filter(({ a, b }) => JSON.stringify(a.map((s) => [s.start, s.end, s.label])) !== JSON.stringify(b.map((s) => [s.start, s.end, s.label])))
      : null;

  return (
    <div className="stack">
      <div className="row">
        <input aria-label="Filter runs" placeholder="filter: method, model, run" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <label>
          <input type="checkbox" checked={onlyDone} onChange={(e) => setOnlyDone(e.target.checked)} /> finished runs only
        </label>
        <button type="button" onClick={() => exportCsv(projectId, shown, types)}>
          Export CSV
        </button>
        <label>
          Import experiment records <input type="file" aria-label="Experiment records" accept=".jsonl,.json,text/plain" onChange={importRecords} />
        </label>
      </div>
      {importMsg && (
        <p role={importMsg.ok ? 'status' : 'alert'} className={importMsg.ok ? '' : 'error'} data-testid="records-result">
          {importMsg.text}
        </p>
      )}
      {rows && shown.length === 0 && (
        <p className="muted" data-testid="compare-empty">
          {runs.length === 0 ? (
            <>
              No training run yet: runs are compared here as they finish, or from a CLI experiment&apos;s records (the file above).{' '}
              <Link href="/train">Train a model</Link>
            </>
          ) : (
            `No run to show: the ${runs.length} ${runs.length === 1 ? 'run is' : 'runs are'} unfinished or left out by the filter.`
          )}
        </p>
      )}
      <RunsTable shown={shown} types={types} header={header} chosen={chosen} setChosen={setChosen} />

      <SeedGroups groups={groups} types={types} />

      <ChosenRuns picked={picked} errors={errors?.out ?? []} curveX={curveX} curves={curves} />

      {diff && errors && <RunDiff diff={diff} runs={[errors.out[0].run.id, errors.out[1].run.id]} colors={colors} />}
    </div>
  );
}

type Group = { runs: RunView[]; f1: number[]; perType: Record<string, number[]> };

/** Runs that differ only in the seed, as mean ± std. */
function SeedGroups({ groups, types }: { groups: Group[]; types: string[] }) {
  return (
    <>
      {groups.length > 0 && <h2>Across seeds</h2>}
      <table className="grid" data-testid="group-table" hidden={groups.length === 0}>
        <thead>
          <tr>
            <th>Method</th>
            <th>Model</th>
            <th>Runs</th>
            <th>Test F1, mean ± std</th>
            {types.map((t) => (
              <th key={t}>{t} F1</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.runs[0].group}>
              <td>{g.runs[0].method}</td>
              <td>{g.runs[0].model}</td>
              <td>
                {g.runs.length} {g.runs.length === 1 ? 'run' : 'runs'}: {g.runs.map((r) => `#${r.id} seed ${r.seed}`).join(', ')}
              </td>
              <td className="num">
                {(100 * meanStd(g.f1).mean).toFixed(1)} ± {(100 * meanStd(g.f1).std).toFixed(1)}
              </td>
              {types.map((t) => (
                <td key={t} className="num">
                  {(100 * meanStd(g.perType[t]).mean).toFixed(1)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Every run shown, with its scores overall and per type; a checkbox picks it for the views below. */
function RunsTable(p: {
  shown: RunView[];
  types: string[];
  header: (key: SortKey, label: string) => React.ReactNode;
  chosen: number[];
  setChosen: (ids: number[]) => void;
}) {
  const { shown, types, header, chosen, setChosen } = p;
  return (
    <table className="grid" data-testid="compare-table" hidden={shown.length === 0}>
      <thead>
        <tr>
          <th>Compare</th>
          {header('id', 'Run')}
          {header('method', 'Method')}
          <th>Model</th>
          {header('seed', 'Seed')}
          {header('dev', 'Dev F1')}
          {header('p', 'Test P')}
          {header('r', 'Test R')}
          {header('f1', 'Test F1')}
          <th title="The weak labels the run learned from, scored on the same test split: what the model must beat">Weak labels' test F1</th>
          {types.map((t) => header(`type:${t}`, `${t} F1`))}
        </tr>
      </thead>
      <tbody>
        {shown.map((r) => (
          <tr key={r.id} data-run={r.id}>
            <td>
              <input
                type="checkbox"
                aria-label={`compare run ${r.id}`}
                checked={chosen.includes(r.id)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, r.id] : chosen.filter((x) => x !== r.id))}
              />
            </td>
            <td>{r.id}</td>
            <td>{r.method}</td>
            <td>{r.model}</td>
            <td className="num">{r.seed}</td>
            <td className="num">{pct(r.dev)}</td>
            <td className="num">{pct(r.test?.overall.precision)}</td>
            <td className="num">{pct(r.test?.overall.recall)}</td>
            <td className="num">{pct(r.test?.overall.f1)}</td>
            <td className="num" data-testid="compare-weak-f1">
              {pct(r.metrics.weak?.test?.overall.f1)}
            </td>
            {types.map((t) => (
              <td key={t} className="num">
                {pct(r.test?.perType[t]?.f1)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The chosen runs: their dev curves overlaid, their test errors by kind, and each run's diagnostics under its own heading. */
function ChosenRuns(p: {
  picked: RunView[];
  errors: { run: RunView; errors: SpanErrors }[];
  curveX: number[];
  curves: { label: string; color: string; values: (number | null)[] }[];
}) {
  const { picked, curveX, curves } = p;
  if (!picked.length) return null;
  return (
    <>
      <h2>Chosen runs</h2>
      <LineChart
        title="Dev F1 by epoch (a multi-stage run's stages one after another)"
        x={curveX}
        series={curves}
        xLabel="epoch of the run"
        testId="compare-curves"
      />
      <table className="grid" data-testid="error-table">
        <thead>
          <tr>
            <th>Run (test split)</th>
            <th>Correct</th>
            <th>Wrong type</th>
            <th>Wrong boundary</th>
            <th>Missed</th>
            <th>Spurious</th>
          </tr>
        </thead>
        <tbody>
          {p.errors.map(({ run, errors: e }) => (
            <tr key={run.id} data-run={run.id}>
              <td>run {run.id}</td>
              <td className="num">{e.correct}</td>
              <td className="num">{e.wrongType}</td>
              <td className="num">{e.wrongBoundary}</td>
              <td className="num">{e.missed}</td>
              <td className="num">{e.spurious}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {picked.map((r) => (
        <div key={r.id} className="stack">
          <RunDiagnostics runId={r.id} metrics={r.metrics} />
          <SignalDiagnostics runId={r.id} metrics={r.metrics} />
        </div>
      ))}
    </>
  );
}

/** The test documents where two runs' predictions differ, both shown. */
function RunDiff({ diff, runs, colors }: { diff: { d: DocumentRow; a: Span[]; b: Span[] }[]; runs: [number, number]; colors: Map<string, string> }) {
  return (
    <section data-testid="run-diff">
      <h2>
        Where run {runs[0]} and run {runs[1]} disagree ({diff.length} test documents)
      </h2>
      {diff.slice(0, 50).map(({ d, a, b }) => (
        <div key={d.id} className="diff-pair" data-doc={d.id}>
          <div className="muted">{d.name}</div>
          <div>
            <strong>run {runs[0]}: </strong>
            <SpanText text={d.text} offsets={d.offsets} spans={a} colors={colors} />
          </div>
          <div>
            <strong>run {runs[1]}: </strong>
            <SpanText text={d.text} offsets={d.offsets} spans={b} colors={colors} />
          </div>
        </div>
      ))}
    </section>
  );
}

/** The chosen runs, their predictions and errors on the test split (from their stored layers), and their dev curves. */
function useChosenRuns(projectId: number, runs: RunView[], chosen: number[]) {
  const picked = runs.filter((r) => chosen.includes(r.id));
  const errors = useLiveQuery(async () => {
    // The test split's index: reading every document of the project for its test part cost the page's thread at scale.
    const test = await db.documents.where('[projectId+split]').equals([projectId, 'test']).sortBy('id');
    const ids = test.map((d) => d.id!);
    const out: { run: RunView; errors: SpanErrors; pred: Span[][]; gold: Span[][] }[] = [];
    for (const r of picked) {
      if (r.predictedLayerId === undefined || r.goldLayerId === undefined) continue;
      const [pred, gold] = await Promise.all([layerAnnotations(db, r.predictedLayerId, ids), layerAnnotations(db, r.goldLayerId, ids)]);
      const [p, g] = [pred.map((a) => a.spans), gold.map((a) => a.spans)];
      out.push({ run: r, errors: spanErrors(g, p), pred: p, gold: g });
    }
    return { test, out };
  }, [projectId, chosen.join(','), runs.length]);

  // A multi-stage run's epochs are numbered within each stage: the curve counts them in order over the whole run.
  const curveX = useMemo(() => Array.from({ length: Math.max(0, ...picked.map((r) => r.history.length)) }, (_, k) => k + 1), [picked]);
  const curves = useMemo(
    () =>
      picked.map((r, k) => ({
        label: `run ${r.id}`,
        color: COLORS[k % COLORS.length],
        values: curveX.map((e) => r.history[e - 1]?.devF1 ?? null).map((v) => (v === null ? null : 100 * v)),
      })),
    [picked, curveX],
  );
  return { picked, errors, curveX, curves };
}

/** The shown runs as a CSV file: scores overall, the weak labels' test F1, and F1 per type. */
function exportCsv(projectId: number, shown: RunView[], types: string[]) {
  const head = ['run', 'status', 'method', 'model', 'seed', 'dev_f1', 'test_p', 'test_r', 'test_f1', 'weak_test_f1', ...types.map((t) => `test_f1_${t}`)];
  const lines = shown.map((r) => [
    r.id,
    r.status,
    r.method,
    r.model,
    r.seed,
    r.dev ?? '',
    r.test?.overall.precision ?? '',
    r.test?.overall.recall ?? '',
    r.test?.overall.f1 ?? '',
    r.metrics.weak?.test?.overall.f1 ?? '',
    ...types.map((t) => r.test?.perType[t]?.f1 ?? ''),
  ]);
  download(`runs-project-${projectId}.csv`, toCsv([head, ...lines]), 'text/csv');
}
