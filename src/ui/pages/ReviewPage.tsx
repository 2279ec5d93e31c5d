/**
 * The review queue and annotation progress. The queue ranks sentences by one noise signal of a
 * chosen run (weak-vs-run disagreement, model uncertainty, RoSTER's removed weak labels, the PU
 * step's lowest O-values, NEEDLE's completions), each entry saying which tokens put it there and
 * opening the editor at that sentence. Below it: reviewed counts per split and type, review speed,
 * and the agreement of two annotators' gold layers.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useMemo, useRef, useState } from 'react';
import { CsvButton } from '../components/ChartExport';
import { reviewWeakLayer } from '../layerChecks';
import { Link, useLocation } from 'wouter';
import { REVIEW_SIGNALS, reviewSignal } from '../../methods/reviewSignals';
import type { Span } from '../../core/types';
import { db } from '../../db/instance';
import { decideSentenceInLayer, restoreRows, type RowBefore } from '../../db/repo';
import type { QueueItem } from '../../db/review';
import { phraseRules, STOP, type CorrectedSpans } from '../../core/guidedCorrection';
import { addPhrasesToDictionary, removeGazetteerEntries } from '../../db/repo';
import { labelWeakAgain } from './annotateTravel';
import type { LayerRow, RunRow } from '../../db/schema';
import { useProjectId, useTypeColors } from '../hooks';
import { LineChart } from '../components/LineChart';
import { useLoop, useLoopSettings } from '../reviewLoop';
import { LOOP_EPOCHS, loopCurve, runHasModel } from '../../core/reviewLoop';
import { useWorkerQuery } from '../workerQuery';

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
/** How many of the queue's entries the page shows (and the keys walk). */
const QUEUE_SHOWN = 200;

function runLabel(r: RunRow): string {
  const c = r.config as { method?: { name?: string }; pipeline?: { kind?: string } };
  const pipe = c.pipeline?.kind && c.pipeline.kind !== 'single' ? ` · ${c.pipeline.kind}` : '';
  return `run ${r.id} (${c.method?.name ?? '?'}${pipe})`;
}

/** One sentence with one layer's spans in the type colours, the tokens its queue entry names outlined; words[t − from] is token t. */
function QueueLine(props: {
  label: string;
  words: readonly string[];
  from: number;
  to: number;
  spans: readonly Span[];
  flagged: readonly number[];
  colors: Map<string, string>;
}) {
  const { words, from, to, spans, flagged, colors } = props;
  const out: React.ReactNode[] = [];
  for (let t = from; t < to; t++) {
    const span = spans.find((x) => x.start <= t && t < x.end);
    const color = span ? (colors.get(span.label) ?? '#888') : undefined;
    out.push(
      <span
        key={t}
        className={`tok${span ? ' gold' : ''}${flagged.includes(t) ? ' flag' : ''}`}
        style={color ? { background: `${color}33`, borderBottomColor: color } : undefined}
        title={span ? span.label : undefined}
      >
        {words[t - from]}
      </span>,
      ' ',
    );
  }
  return (
    <p className="sentence" data-line={props.label}>
      <span className="muted line-label">{props.label}</span> {out}
    </p>
  );
}

export function ReviewPage() {
  const projectId = useProjectId();
  const colors = useTypeColors(projectId);
  const layers = useLiveQuery(() => db.layers.where('projectId').equals(projectId).sortBy('id'), [projectId]);
  const runs = useLiveQuery(
    () =>
      db.runs
        .where('projectId')
        .equals(projectId)
        .filter((r) => r.kind === 'train' && r.status === 'done' && runHasModel(r))
        .sortBy('id'),
    [projectId],
  );
  const loop = useLoopSettings(projectId);
  const setLoop = useLoop((s) => s.setSettings);
  // The chosen weak layer, else the aggregate, else the first weak layer: the select shows what is
  // ranked, and the editor judges reviewed sentences against the same layer (reviewWeakLayer).
  const weak = (layers ? reviewWeakLayer(layers, loop.weak)?.id : undefined) ?? null;
  const setWeakId = (id: number) => setLoop(projectId, { ...loop, weak: id });
  const [runId, setRunId] = useState<number | null>(null);
  const [signalChoice, setSignal] = useState<string | null>(null);
  const run = runs?.find((r) => r.id === runId) ?? runs?.at(-1) ?? null;
  const predLayer = (run?.metrics as { predictedLayerId?: number } | undefined)?.predictedLayerId ?? null;

  const [allSplits, setAllSplits] = useState(false);
  // Read and ranked in the query worker, again whenever the documents, the weak layer, the run's
  // predictions or its signals change (not on a decision, which writes the corrections layer):
  // ranking CoNLL-2003's 14,041 sentences takes 100 ms or more. Train sentences only, unless the
  // user asks for dev and test too: their gold selects and scores models.
  const view = useWorkerQuery('reviewQueue', [{ projectId, weak, predLayer, runId: run?.id ?? null, signal: signalChoice, allSplits, limit: QUEUE_SHOWN }]);
  const signal = reviewSignal(view?.signal ?? signalChoice ?? 'disagreement');
  const queue = view?.entries ?? [];
  const have = useMemo(() => (view ? new Set(view.have) : undefined), [view]);
  const [, navigate] = useLocation();
  const [cursor, setCursor] = useState(0);
  const layerName = loop.layer;
  const { decisions, decide, undo, error } = useDecisions({ projectId, layerName, cursor, setCursor, queueLength: queue.length });
  const box = useRef<HTMLDivElement>(null);
  // The queue takes keys as soon as it has entries, without a click into it first.
  const hasQueue = queue.length > 0;
  useEffect(() => {
    if (hasQueue && !box.current?.contains(document.activeElement) && document.activeElement?.tagName !== 'SELECT') box.current?.focus();
  }, [hasQueue]);

  // With no run yet, weak labels aggregated from sources still queue: where the sources disagree.
  const hasSources = !!layers?.some((l) => l.kind === 'weak' && l.role === 'source');
  if (layers && runs && (!layers.some((l) => l.kind === 'weak') || (!runs.length && !hasSources)))
    return <ReviewEmpty projectId={projectId} hasWeak={layers.some((l) => l.kind === 'weak')} />;

  return (
    <div className="stack">
      <QueueChoices
        layers={layers ?? []}
        weak={weak}
        setWeakId={setWeakId}
        runs={runs ?? []}
        run={run}
        setRunId={setRunId}
        signal={signal.id}
        setSignal={setSignal}
        have={have}
      />
      <p
        className="muted"
        data-testid="review-summary"
        data-ranked-at={view?.rankedAt}
        data-rank-ms={view?.rankMs}
        data-read-ms={view?.readMs}
        aria-busy={view === undefined}
      >
        {view ? (
          <>
            {view.total} {allSplits ? '' : 'training '}sentences queued: {signal.title} (by {signal.rankedBy})
            {view.elsewhere > 0 && ` · ${view.elsewhere} more on dev and test, left out: their gold selects and scores the models`}
          </>
        ) : view === null ? (
          'Choose the weak layer to compare the run against.'
        ) : (
          'Ranking the sentences…'
        )}{' '}
        <label>
          <input type="checkbox" aria-label="Include every split" checked={allSplits} onChange={(e) => setAllSplits(e.target.checked)} /> include every split
          (dev, test, and documents of no split)
        </label>
      </p>
      <p className="muted">
        Keys, as in the editor: <kbd>j</kbd> / <kbd>k</kbd> next / previous, <kbd>a</kbd> accept the run&apos;s labels, <kbd>x</kbd> keep the weak labels (each
        writes the sentence, marked reviewed, to the corrections layer, which training can read as strong labels), <kbd>u</kbd> undo, <kbd>Enter</kbd> open it
        in the editor (writing to the same corrections layer).{' '}
        <label>
          corrections layer{' '}
          <input
            aria-label="Corrections layer"
            className="name-field"
            value={layerName}
            onChange={(e) => setLoop(projectId, { ...loop, layer: e.target.value.trim() || 'corrections' })}
          />
        </label>
      </p>
      <LoopPanel projectId={projectId} runs={runs ?? []} weak={weak} />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div
        role="application"
        aria-label="Review queue: j and k move, a accepts the run, x keeps the weak labels, u undoes, Enter opens"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the queue is a keyboard application (role="application") that takes focus
        tabIndex={0}
        ref={box}
        data-testid="review-box"
        onKeyDown={(e) => {
          const q = queue[cursor];
          if (e.key === 'u' || ((e.key === 'z' || e.key === 'Z') && (e.ctrlKey || e.metaKey))) void undo();
          else if (e.key === 'j' || e.key === 'ArrowDown') setCursor(Math.min(cursor + 1, queue.length - 1));
          else if (e.key === 'k' || e.key === 'ArrowUp') setCursor(Math.max(0, cursor - 1));
          else if (q && (e.key === 'a' || e.key === 'x')) void decide(q, e.key === 'a' ? 'run' : 'weak');
          else if (q && e.key === 'Enter') navigate(`/annotate/${q.docId}/${q.from}/corrections`);
          else return;
          e.preventDefault();
        }}
      >
        <QueueItems queue={queue} cursor={cursor} decisions={decisions} colors={colors} />
      </div>
      <DictionaryPanel projectId={projectId} decisions={decisions} />
      <ProgressPanel projectId={projectId} />
    </div>
  );
}

/** What the queue ranks: the weak layer, the run, and the signal (those the run does not carry are greyed out). */
function QueueChoices(p: {
  layers: readonly LayerRow[];
  weak: number | null;
  setWeakId: (id: number) => void;
  runs: readonly RunRow[];
  run: RunRow | null;
  setRunId: (id: number) => void;
  signal: string;
  setSignal: (id: string) => void;
  have: ReadonlySet<string> | undefined;
}) {
  const { layers, weak, setWeakId, runs, run, setRunId, signal, setSignal, have } = p;
  return (
    <div className="row">
      <label>
        Weak layer{' '}
        <select aria-label="Review weak layer" value={weak ?? ''} onChange={(e) => setWeakId(Number(e.target.value))}>
          {layers
            .filter((l) => l.kind === 'weak')
            .map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
        </select>
      </label>
      <label>
        Run{' '}
        <select aria-label="Review run" value={run?.id ?? ''} onChange={(e) => setRunId(Number(e.target.value))}>
          {!runs.length && <option value="">none yet</option>}
          {runs.map((r) => (
            <option key={r.id} value={r.id}>
              {runLabel(r)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Signal{' '}
        <select aria-label="Review signal" value={signal} onChange={(e) => setSignal(e.target.value)}>
          {REVIEW_SIGNALS.map((s) => (
            <option key={s.id} value={s.id} disabled={!have?.has(s.id)}>
              {s.title}
              {have?.has(s.id) ? '' : s.id === 'sources' ? ' (the weak layer aggregates no sources)' : ' (not in this run)'}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** The queue's first entries (QUEUE_SHOWN): why each is there, what was decided, the first 50 drawn as the editor draws them. */
function QueueItems({
  queue,
  cursor,
  decisions,
  colors,
}: {
  queue: readonly QueueItem[];
  cursor: number;
  decisions: Record<string, { which: 'run' | 'weak' }>;
  colors: Map<string, string>;
}) {
  return (
    <ol data-testid="review-queue" className="review-queue">
      {queue.map((q, k) => {
        const id = `q-${q.docId}-${q.sentence}`;
        const done = decisions[id]?.which;
        return (
          <li
            key={id}
            id={id}
            aria-current={k === cursor}
            className={k === cursor ? 'current' : undefined}
            data-doc={q.docId}
            data-sentence={q.sentence}
            data-count={q.count}
            data-score={q.score}
            data-decided={done}
          >
            <Link href={`/annotate/${q.docId}/${q.from}/corrections`}>
              {q.name}, sentence {q.sentence}
            </Link>{' '}
            <span className="muted">
              — {q.count} {q.count === 1 ? 'token' : 'tokens'}
              {q.marked.length < q.count ? ' flagged, the strongest' : ''}: {q.reasons.join('; ')}
            </span>
            {done && <strong className="ok"> ✓ {done === 'run' ? "the run's labels accepted" : 'the weak labels kept'}</strong>}
            {/* The first sentences drawn as the editor draws them: the weak labels over the run's, the flagged tokens marked. */}
            {k < 50 && (
              <div className="queue-lines">
                <QueueLine label="weak" words={q.words} from={q.from} to={q.to} spans={q.weak} flagged={q.marked} colors={colors} />
                {q.predicted && <QueueLine label="run" words={q.words} from={q.from} to={q.to} spans={q.predicted} flagged={q.marked} colors={colors} />}
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The queue's decisions into the dictionary: what the sentences decided here teach about their
 * words (a phrase the run found where the weak labels missed or mistyped it goes to the
 * corrections gazetteer with its type; a weak span the decision dropped, to the stop list), added
 * in one step, and the weak layer labelled again, as the editor's g and s do one phrase at a time.
 * In the simulated annotator this gained the most of any arm (BENCHMARKS.md). One undo takes them out.
 */
function DictionaryPanel({ projectId, decisions }: { projectId: number; decisions: Record<string, { taught: CorrectedSpans }> }) {
  /** The decisions already sent (their phrases are in the dictionary), and the last sending, which Undo takes back. */
  const [sent, setSent] = useState<ReadonlySet<string>>(new Set());
  const [added, setAdded] = useState<{ entries: number[]; ids: string[] } | null>(null);
  const fresh = Object.entries(decisions).filter(([id]) => !sent.has(id));
  // A few dozen sentences at most: computed on each render.
  const rules = phraseRules(fresh.map(([, d]) => d.taught));
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const typed = [...rules].filter(([, a]) => a !== STOP);
  const stopped = [...rules].filter(([, a]) => a === STOP);
  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      setNote(await what());
    } catch (e) {
      setNote(`Not done: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const add = () =>
    run(async () => {
      const r = await addPhrasesToDictionary(db, projectId, rules);
      const ids = fresh.map(([id]) => id);
      setAdded({ entries: r.entries, ids });
      setSent((x) => new Set([...x, ...ids]));
      const skipped = r.skipped.length ? `; ${r.skipped.length} already listed` : '';
      setNote(`${r.entries.length} added${skipped}; labelling the weak layer again…`);
      return `${r.entries.length} ${r.entries.length === 1 ? 'phrase' : 'phrases'} added${skipped}; the weak layer is labelled again (${await labelWeakAgain(projectId)}).`;
    });
  const undo = () =>
    run(async () => {
      if (!added) return 'Nothing to undo.';
      await removeGazetteerEntries(db, added.entries);
      setSent((x) => new Set([...x].filter((id) => !added.ids.includes(id))));
      setAdded(null);
      return `Taken out again; the weak layer is labelled again (${await labelWeakAgain(projectId)}).`;
    });
  return (
    <section className="stack" data-testid="queue-dictionary">
      <h3>Into the dictionary</h3>
      <p className="muted">
        {rules.size === 0
          ? 'Where a decision here accepts labels that differ from the weak ones, its words can go to the dictionary: found phrases to the corrections gazetteer, dropped ones to the stop list.'
          : `The decisions made here teach ${typed.length} ${typed.length === 1 ? 'phrase' : 'phrases'} for the corrections gazetteer and ${stopped.length} for the stop list. Adding them labels the weak layer again, every document, as g and s do in the editor.`}
      </p>
      {rules.size > 0 && (
        <ul className="phrase-list" data-testid="queue-dictionary-phrases">
          {[...rules].slice(0, 30).map(([phrase, answer]) => (
            <li key={phrase} data-phrase={phrase} data-answer={answer === STOP ? 'stop' : answer}>
              {phrase} <span className="muted">→ {answer === STOP ? 'stop list' : answer}</span>
            </li>
          ))}
          {rules.size > 30 && <li className="muted">and {rules.size - 30} more</li>}
        </ul>
      )}
      <p>
        <button type="button" disabled={busy || rules.size === 0} onClick={() => void add()}>
          Add {rules.size} {rules.size === 1 ? 'phrase' : 'phrases'} to the dictionary
        </button>{' '}
        {added && (
          <button type="button" disabled={busy} onClick={() => void undo()}>
            Undo
          </button>
        )}
      </p>
      {note && (
        <p role="status" data-testid="queue-dictionary-note">
          {note}
        </p>
      )}
    </section>
  );
}

/**
 * The review loop: its setting (fine-tune after every N corrections), what it is doing, and the
 * curve the annotator watches, dev F1 against the corrections each model trained with.
 */
function LoopPanel({ projectId, runs, weak }: { projectId: number; runs: readonly RunRow[]; weak: number | null }) {
  const loop = useLoopSettings(projectId);
  // Read in the query worker, again on every decision (it reads the corrections layer).
  const found = useWorkerQuery('correctionYield', [projectId, loop.layer, weak]);
  const setLoop = useLoop((s) => s.setSettings);
  const status = useLoop((s) => s.status[projectId]);
  const [every, setEvery] = useState(String(loop.every));
  const n = Number(every);
  const invalid = every.trim() === '' || !(Number.isInteger(n) && n >= 0 && n <= 10_000);
  const curve = loopCurve(runs.map((r) => ({ ...r, id: r.id! })));
  return (
    <section className="stack" data-testid="loop">
      <h3>Review loop</h3>
      <p className="muted">
        <label>
          Fine-tune the current model after every{' '}
          <input
            aria-label="Fine-tune every"
            aria-invalid={invalid}
            className="narrow"
            value={every}
            onChange={(e) => {
              setEvery(e.target.value);
              const v = Number(e.target.value);
              if (e.target.value.trim() !== '' && Number.isInteger(v) && v >= 0 && v <= 10_000) setLoop(projectId, { ...loop, every: v });
            }}
          />{' '}
          corrections
        </label>{' '}
        (0 turns it off). Each fine-tune trains the newest finished run for up to {LOOP_EPOCHS} epochs on the weak labels and the corrections layer&apos;s
        reviewed sentences, in the background; the queue then ranks by it.
      </p>
      <p className="muted">
        <label>
          <input type="checkbox" checked={loop.keepStart} onChange={(e) => setLoop(projectId, { ...loop, keepStart: e.target.checked })} /> Keep the current
          model when a fine-tune does not beat it on dev
        </label>{' '}
        (off by default: the fine-tune&apos;s best epoch is kept even so, since a dev set of another kind of text than the one you correct can refuse every
        fine-tune while the corrections help).
      </p>
      {invalid && (
        <p role="alert" className="error">
          Fine-tune every: a whole number of corrections from 0 (off) to 10,000, not {JSON.stringify(every)}.
        </p>
      )}
      <p data-testid="loop-status">{status ?? ''}</p>
      {found && found.reviewed > 0 && (
        <p className="muted" data-testid="loop-yield" data-reviewed={found.reviewed} data-changed={found.changed}>
          What reviewing found: {found.changed} of the {found.reviewed} training {found.reviewed === 1 ? 'sentence' : 'sentences'} reviewed in &ldquo;
          {loop.layer}&rdquo; changed {found.changed === 1 ? 'its' : 'their'} weak labels ({pct(found.changed / found.reviewed)})
          {found.reviewed > found.recent.reviewed &&
            `; the newest ${found.recent.reviewed}: ${found.recent.changed} (${pct(found.recent.changed / found.recent.reviewed)})`}
          . Where the share falls, the queue is running out of the errors it finds: the next fine-tune, or another signal, ranks them again.
        </p>
      )}
      {curve.length > 0 && (
        <>
          <LineChart
            title="Dev F1 against corrections"
            x={curve.map((p) => p.corrections)}
            series={[{ label: 'dev F1', values: curve.map((p) => 100 * p.devF1), color: '#1f77b4' }]}
            xLabel="corrections"
            testId="loop-chart"
          />
          <table className="grid" data-testid="loop-curve">
            <thead>
              <tr>
                <th>corrections</th>
                <th>dev F1</th>
                <th>run</th>
              </tr>
            </thead>
            <tbody>
              {curve.map((p) => (
                <tr key={p.runId} data-corrections={p.corrections}>
                  <td>{p.corrections}</td>
                  <td>{(100 * p.devF1).toFixed(2)}</td>
                  <td>
                    <Link href={`/runs/${p.runId}`}>run {p.runId}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function ProgressPanel({ projectId }: { projectId: number }) {
  const golds = useLiveQuery(() => db.layers.where('[projectId+kind]').equals([projectId, 'gold']).sortBy('id'), [projectId]);
  const tableRef = useRef<HTMLDivElement>(null);
  const [aId, setA] = useState<number | null>(null);
  const [bId, setB] = useState<number | null>(null);
  const a = aId ?? golds?.[0]?.id ?? null;
  const b = bId ?? golds?.find((g) => g.id !== a)?.id ?? null;
  // Read in the query worker: it reads every document and the annotator's rows.
  const stats = useWorkerQuery('reviewProgress', [projectId, a, b]);
  if (!golds?.length) return <p className="muted">No gold layer yet: annotate a document to start one.</p>;
  const name = (id: number | null) => golds.find((g) => g.id === id)?.name ?? '';
  return (
    <section className="stack" data-testid="progress">
      <h3>Annotation progress</h3>
      <label>
        Annotator{' '}
        <select aria-label="Progress annotator" value={a ?? ''} onChange={(e) => setA(Number(e.target.value))}>
          {golds.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </select>
      </label>
      {stats && (
        <>
          <div ref={tableRef}>
            <CsvButton target={tableRef} name="annotation-progress" />
            <table className="grid" data-testid="progress-splits">
              <thead>
                <tr>
                  <th>split</th>
                  <th>sentences reviewed</th>
                  <th>tokens reviewed</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(stats.progress.bySplit).map(([split, r]) => (
                  <tr key={split} data-split={split}>
                    <td>{split}</td>
                    <td>
                      {r.reviewed} / {r.sentences} ({pct(r.reviewed / Math.max(1, r.sentences))})
                    </td>
                    <td>
                      {r.reviewedTokens} / {r.tokens}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted" data-testid="progress-types">
            Spans in reviewed sentences:{' '}
            {Object.entries(stats.progress.byType)
              .map(([t, n]) => `${t} ${n}`)
              .join(' · ') || 'none'}
          </p>
          <p className="muted" data-testid="progress-speed">
            {stats.speed.reviews} sentences marked reviewed in the editor
            {stats.speed.perHour !== null
              ? `; ${stats.speed.perHour.toFixed(0)} an hour over ${stats.speed.activeMinutes.toFixed(1)} active minutes (pauses over 5 minutes left out)`
              : ''}
          </p>
        </>
      )}
      {golds.length > 1 && (
        <div className="stack">
          <label>
            Agreement with{' '}
            <select aria-label="Agreement annotator" value={b ?? ''} onChange={(e) => setB(Number(e.target.value))}>
              {golds
                .filter((g) => g.id !== a)
                .map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
            </select>
          </label>
          {stats?.agreement && (
            <p data-testid="agreement" data-kappa={stats.agreement.kappa} data-f1={stats.agreement.spanF1}>
              {name(a)} and {name(b)} on the {stats.agreement.sentences} sentences both reviewed ({stats.agreement.tokens} tokens): Cohen's κ{' '}
              <strong>{Number.isFinite(stats.agreement.kappa) ? stats.agreement.kappa.toFixed(3) : '—'}</strong> (observed {pct(stats.agreement.observed || 0)},
              by chance {pct(stats.agreement.expected || 0)}), span F1 <strong>{pct(stats.agreement.spanF1)}</strong>
            </p>
          )}
        </div>
      )}
    </section>
  );
}

/** Nothing to rank until there are weak labels and a finished run: which is missing, and where to get it. */
function ReviewEmpty({ projectId, hasWeak }: { projectId: number; hasWeak: boolean }) {
  return (
    <div className="stack">
      <p className="muted" data-testid="review-empty">
        {!hasWeak ? (
          <>
            No weak labels yet: the queue ranks the sentences where they and a trained model disagree. <Link href="/weak">Make weak labels</Link>
          </>
        ) : (
          <>
            No finished training run yet: the queue reads what a run&apos;s method learned about the weak labels (or, for weak labels made here from gazetteers
            and rules, where their sources disagree). <Link href="/train">Train a model</Link>
          </>
        )}
      </p>
      <ProgressPanel projectId={projectId} />
    </div>
  );
}

/**
 * The queue's decisions: accept the run's labels or keep the weak ones for a sentence, written to
 * the corrections layer (marked reviewed), then on to the next; each with the row it replaced, so
 * that u or ctrl+z takes back the last.
 */
function useDecisions(o: {
  projectId: number;
  layerName: string;
  cursor: number;
  setCursor: React.Dispatch<React.SetStateAction<number>>;
  queueLength: number;
}) {
  const { projectId, layerName, cursor, setCursor, queueLength } = o;
  /** Each decision made here: which labels it kept, and what it says about its words (for "into the dictionary"). */
  const [decisions, setDecisions] = useState<Record<string, { which: 'run' | 'weak'; taught: CorrectedSpans }>>({});
  /** The decisions made here, newest last, each with the row it replaced: u or ctrl+z takes back the last. */
  const undoStack = useRef<{ id: string; cursor: number; before: RowBefore }[]>([]);
  const [error, setError] = useState<string | null>(null);
  /** Accept the run's labels or keep the weak ones for a queued sentence, then go to the next. */
  const decide = async (q: Pick<QueueItem, 'docId' | 'sentence' | 'from' | 'to' | 'words' | 'weak' | 'predicted'>, which: 'run' | 'weak') => {
    // A queue ranked with no run (the weak sources' disagreement) has no run's labels to accept.
    if (which === 'run' && !q.predicted) {
      setError("no run's labels to accept here: x keeps the weak labels, Enter corrects the sentence in the editor");
      return;
    }
    const spans = (which === 'run' ? (q.predicted ?? []) : q.weak).filter((x) => x.label !== '?');
    const id = `q-${q.docId}-${q.sentence}`;
    try {
      const before = await decideSentenceInLayer(db, projectId, layerName, q.docId, q.from, q.to, spans, q.weak);
      undoStack.current.push({ id, cursor, before });
      // In the sentence's own coordinates, the typed spans inside it (those a decision writes). An
      // untyped weak match ('?') is left out of both: the decision types it or says nothing of it,
      // so it is never stop-listed.
      const inside = (xs: readonly Span[]) =>
        xs.filter((x) => x.start >= q.from && x.end <= q.to && x.label !== '?').map((x) => ({ start: x.start - q.from, end: x.end - q.from, type: x.label }));
      setDecisions((d) => ({ ...d, [id]: { which, taught: { words: q.words, weak: inside(q.weak), gold: inside(spans) } } }));
      setCursor((c) => Math.min(c + 1, queueLength - 1));
      setError(null);
    } catch (e) {
      setError(`not saved: ${(e as Error).message}`);
    }
  };
  const undo = async () => {
    const last = undoStack.current.pop();
    if (!last) return;
    await restoreRows(db, [last.before]);
    setDecisions(({ [last.id]: _, ...rest }) => rest);
    setCursor(last.cursor);
  };
  return { decisions, decide, undo, error };
}
