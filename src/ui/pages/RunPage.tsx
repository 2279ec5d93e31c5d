/**
 * One run on its own page: what it was (method, model, training, data), how it went (status,
 * epochs and wall time over its attempts, the loss and dev-F1 curves, its O shift), how it scored
 * (dev and test, per type), what its method recorded (diagnostics), and where its predictions are
 * (the predicted layer, the review queue).
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { Link, useParams } from 'wouter';
import type { SpanScores } from '../../core/metrics';
import { describeTypeShifts, modelName, runMethodName, type RunConfig } from '../../core/runConfig';
import { compareToWeak } from '../../core/weakComparison';
import { db } from '../../db/instance';
import type { TrainMetrics } from '../../worker/trainJob';
import { LineChart } from '../components/LineChart';
import { RunDiagnostics } from '../components/RunDiagnostics';
import { SignalDiagnostics } from '../components/SignalDiagnostics';
import { UnseenDocuments } from '../components/UnseenDocuments';
import { DownloadModel } from '../components/DownloadModel';
import { pct, routeId, useProject, useProjectId } from '../hooks';
import { bestEpochOfStage, keptStageIndex } from '../../methods/stages';
import { stageRuns, stageSeries } from '../runStages';

function ScoreTable({ title, scores, testId, pending }: { title: string; scores?: SpanScores; testId: string; pending?: boolean }) {
  if (!scores)
    return (
      <p className="muted">
        {title}: {pending ? 'not scored yet: it scores once it has labeled the documents' : 'not scored (no gold labels on this split)'}.
      </p>
    );
  const rows: [string, SpanScores['overall']][] = [['all types', scores.overall], ...Object.entries(scores.perType).sort(([a], [b]) => a.localeCompare(b))];
  return (
    <table className="grid" data-testid={testId}>
      <caption>{title}</caption>
      <thead>
        <tr>
          <th>Type</th>
          <th>P</th>
          <th>R</th>
          <th>F1</th>
          <th>Correct / predicted / gold</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([t, s]) => (
          <tr key={t}>
            <td>{t}</td>
            <td className="num">{pct(s.precision)}</td>
            <td className="num">{pct(s.recall)}</td>
            <td className="num">{pct(s.f1)}</td>
            <td className="num">
              {s.tp} / {s.tp + s.fp} / {s.tp + s.fn}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The model beside the weak labels it learned from, per type, with what the difference means. */
function WeakComparison({ split, weak, model, layer }: { split: string; weak?: SpanScores; model?: SpanScores; layer: string }) {
  if (!weak || !model) return null;
  const rows = compareToWeak(weak, model);
  return (
    <table className="grid" data-testid={`run-weak-${split.toLowerCase()}`}>
      <caption>
        {split}: the model against its weak labels ({layer})
      </caption>
      <thead>
        <tr>
          <th>Type</th>
          <th>Weak P / R / F1</th>
          <th>Model P / R / F1</th>
          <th>What it means</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.type}>
            <td>{r.type}</td>
            <td className="num">
              {pct(r.weak.precision)} / {pct(r.weak.recall)} / {pct(r.weak.f1)}
            </td>
            <td className="num">
              {pct(r.model.precision)} / {pct(r.model.recall)} / {pct(r.model.f1)}
            </td>
            <td>{r.reading}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A multi-stage run's stages in order: what each trained on, for how long, and how it scored on dev. */
function StageTable({ stages, kept }: { stages: NonNullable<TrainMetrics['stages']>; kept: number | null }) {
  return (
    <table className="grid" data-testid="run-stages">
      <caption>Its stages, in order</caption>
      <thead>
        <tr>
          <th>Stage</th>
          <th>Epochs</th>
          <th>Dev F1 (before the O shift)</th>
          <th>Training sentences</th>
          <th>Seconds</th>
        </tr>
      </thead>
      <tbody>
        {stages.map((st, k) => (
          <tr key={`${k}-${st.stage}`} className={k === kept ? 'current' : undefined}>
            <td>
              {st.stage}
              {k === kept ? ' (the run keeps its model)' : ''}
            </td>
            <td className="num">{st.epochs}</td>
            <td className="num">{pct(st.devF1)}</td>
            <td className="num">{st.trainSentences.toLocaleString()}</td>
            <td className="num">{st.seconds.toFixed(0)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RunPage() {
  const projectId = useProjectId();
  const raw = useParams<{ runId: string }>().runId;
  const runId = routeId(raw);
  const project = useProject(projectId);
  const run = useLiveQuery(async () => {
    const r = await db.runs.get(runId);
    return r && r.projectId === projectId ? r : null;
  }, [runId, projectId]);
  if (run === undefined) return <p className="muted">Loading…</p>;
  if (run === null)
    return (
      <p role="alert" className="error">
        Run {JSON.stringify(decodeURIComponent(raw))} is not in this project.
      </p>
    );
  const cfg = run.config as RunConfig;
  const m = (run.metrics ?? { history: [] }) as TrainMetrics;
  const history = m.history ?? [];
  const x = history.map((_, k) => k + 1);
  const runs = stageRuns(history);
  const staged = runs.length > 1;
  const keptAt = m.stages ? keptStageIndex(m.stages, m) : null;
  const kept = keptAt === null ? undefined : m.stages![keptAt];
  return (
    <div className="stack" data-testid="run-page">
      <h2>
        Run {run.id}: {runMethodName(cfg)}
      </h2>
      <p>
        <span data-testid="run-status">{run.status}</span>
        {run.error ? `: ${run.error}` : ''} · {modelName(cfg)} · {cfg.train?.epochs} epochs at most, batch {cfg.train?.batchSize}, lr {cfg.train?.lr}, seed{' '}
        {cfg.train?.seed}
        {cfg.train?.average ? ` · weight averaging ${cfg.train.average} (dev scores and the model read the averaged weights)` : ''} · backend {m.backend || '–'}
      </p>
      {m.imported && (
        <p data-testid="run-imported">
          Opened from the file <strong>{m.imported.file}</strong>
          {m.imported.provenance
            ? `: trained in project “${m.imported.provenance.project}”, run ${m.imported.provenance.run}${m.imported.provenance.trained ? `, ${new Date(m.imported.provenance.trained).toLocaleString()}` : ''}`
            : ''}
          . Its scores here are those of its predictions on this project&apos;s gold
          {m.imported.unknownTypes ? `; it labels ${m.imported.unknownTypes.join(', ')}, which this project has no type for` : ''}.
        </p>
      )}
      {m.pruned && (
        <p className="muted" data-testid="run-pruned">
          This run&apos;s predictions and model are not here: {m.pruned}. Its scores and curves are.
        </p>
      )}
      {m.warning && (
        <p role="alert" className="error">
          {m.warning}
        </p>
      )}
      <p className="muted" data-testid="run-facts">
        {m.imported ? 'trained elsewhere' : `${history.length} epochs`}
        {staged ? ` in ${runs.length} stages` : ''}
        {staged
          ? kept && bestEpochOfStage(kept)
            ? ` (the model kept: epoch ${bestEpochOfStage(kept)} of its stage “${kept.stage}”, the best on dev)`
            : ''
          : m.bestEpoch
            ? ` (best on dev: ${m.bestEpoch})`
            : ''}
        {m.attempts && m.attempts > 1 ? ` over ${m.attempts} attempts` : ''}
        {m.wallSeconds !== undefined ? ` · ${m.wallSeconds.toFixed(0)} s` : ''}
        {m.tokensPerSecond ? ` · ${Math.round(m.tokensPerSecond).toLocaleString()} tokens/s` : ''}
        {m.members
          ? ` · an ensemble of ${m.members.length} models decoded as one (members' dev F1 ${m.members.map((x) => (x.devF1 === null ? '–' : pct(x.devF1))).join(', ')}; seeds ${m.members.map((x) => x.seed).join(', ')})`
          : ''}
        {m.oShift !== undefined ? ` · decodes with O shift ${m.oShift} (chosen on dev)` : ''}
        {m.typeShifts ? ` · type shifts ${describeTypeShifts(m.typeShifts)} (chosen on dev)` : ''}
        {m.dictionaryDropout !== undefined
          ? ` · dictionary dropout ${m.dictionaryDropout} (chosen on dev${m.members ? (cfg.train?.shareDropout ? ' by the first member, at which every member trained' : ' by the last member; each chose its own') : ''})`
          : ''}
        {m.features?.map((f) => ` · ${f}`).join('')}
        {m.starter
          ? ` · read the starter model's ${Object.entries(m.starter.spans)
              .map(([t, n]) => `${n.toLocaleString()} ${t}`)
              .join(', ')} spans in ${m.starter.sentences.toLocaleString()} sentences`
          : ''}
        {m.publicLibrary
          ? ` · ${m.publicLibrary.length ? `read the public gazetteer library's ${m.publicLibrary.map((x) => `${x.id} as ${x.type}`).join(', ')}` : "the public gazetteer library: no list maps onto the project's types"}`
          : ''}
        {m.encoder
          ? ` · started from the project's encoder (${m.encoder.epochs} epochs on ${m.encoder.sentences.toLocaleString()} sentences, ${Math.round(m.encoder.seconds)} s, loss ${m.encoder.loss.toFixed(2)})`
          : ''}
      </p>
      {history.length > 0 && (
        <div className="charts">
          <LineChart
            title={`Dev F1 by epoch${cfg.train?.average ? ' (averaged weights)' : ''}${staged ? ', a line per stage' : ''}`}
            x={x}
            series={stageSeries(history, (k) => 100 * history[k].devF1, { label: 'dev F1', color: '#1e6b32' })}
            xLabel={staged ? 'epoch of the run' : 'epoch'}
            testId="run-dev-chart"
          />
          <LineChart
            title={`Training loss by epoch${staged ? ', a line per stage' : ''}`}
            x={x}
            series={stageSeries(history, (k) => history[k].loss, { label: 'loss', color: '#2456c7' })}
            xLabel={staged ? 'epoch of the run' : 'epoch'}
            testId="run-loss-chart"
          />
        </div>
      )}
      {m.stages && m.stages.length > 1 && <StageTable stages={m.stages} kept={keptAt} />}
      {m.weak && (m.test ?? m.dev) && !m.weak.dev && !m.weak.test && (
        <p className="muted" data-testid="run-vs-weak">
          The weak layer “{m.weak.layer}” labels no dev or test document, so the model cannot be set against it there (its own score is on the train split,
          where the model learned it).
        </p>
      )}
      {m.weak && (m.test ?? m.dev) && (m.weak.dev || m.weak.test) && (
        <p data-testid="run-vs-weak">
          {m.test && m.weak.test ? (
            <>
              Test F1 <strong>{pct(m.test.overall.f1)}</strong> against the weak labels' <strong>{pct(m.weak.test.overall.f1)}</strong>
              {' · '}
            </>
          ) : null}
          {m.dev && m.weak.dev ? (
            <>
              dev F1 {pct(m.dev.overall.f1)} against {pct(m.weak.dev.overall.f1)}
            </>
          ) : null}
        </p>
      )}
      <div className="row">
        <ScoreTable title="Dev" scores={m.dev} testId="run-dev-scores" pending={!!m.imported && !m.later?.length} />
        <ScoreTable title="Test" scores={m.test} testId="run-test-scores" pending={!!m.imported && !m.later?.length} />
      </div>
      {m.weak && (
        <div className="stack">
          <WeakComparison split="Dev" weak={m.weak.dev} model={m.dev} layer={m.weak.layer} />
          <WeakComparison split="Test" weak={m.weak.test} model={m.test} layer={m.weak.layer} />
        </div>
      )}
      <p>
        {m.predictedLayerId !== undefined && (
          <>
            Its predictions are the layer <strong>run {run.id}</strong>: <Link href="/docs">open the documents</Link> and choose it, or{' '}
          </>
        )}
        <Link href="/review">review where it disagrees with the weak labels</Link>.
      </p>
      {run.status === 'done' && !m.pruned && <UnseenDocuments runId={run.id!} projectId={projectId} cfg={cfg} metrics={m} />}
      {run.status === 'done' && !m.pruned && m.predictedLayerId !== undefined && project && <DownloadModel runId={run.id!} project={project.name} cfg={cfg} />}
      <RunDiagnostics runId={run.id!} metrics={m} />
      <SignalDiagnostics runId={run.id!} metrics={m} />
      <details>
        <summary>Its config</summary>
        <pre data-testid="run-config">{JSON.stringify(cfg, null, 2)}</pre>
      </details>
    </div>
  );
}
