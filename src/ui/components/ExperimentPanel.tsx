/**
 * An experiment on the training page: methods × seeds on the project's layers (the form's
 * setting), queued as runs and trained one after another. The methods are the catalog's, or an
 * experiment config's (bench/configs/*.json: its labels, ablations, model and training options;
 * its file-based settings are replaced by the project's layers). Runs already done with the same
 * config and seed are not queued again, so a stopped experiment goes on where it was.
 */
import { useState } from 'react';
import { isScoredOnly, parseExperimentMethods, parseSeeds, planExperiment, type ExperimentMethod, type ExperimentMethods } from '../../core/experimentConfig';
import { runGroupKey, type RunConfig } from '../../core/runConfig';
import { db } from '../../db/instance';
import { addRuns } from '../../db/runs';
import type { RunRow } from '../../db/schema';
import { bestOnDevBySeed, ruleCandidates } from '../../core/ruleCandidates';
import type { SpanScores } from '../../core/metrics';
import { METHOD_CATALOG } from '../../methods/catalog';
import { pct, readText, useProject, useProjectId } from '../hooks';

const catalogMethods: ExperimentMethod[] = METHOD_CATALOG.map((e) => ({
  label: e.title,
  method: e.method,
  pipeline: (e.pipeline ?? { kind: 'single' }) as ExperimentMethod['pipeline'],
  scheme: 'BIO' as const,
  model: e.head ? { head: e.head } : {},
  train: {},
}));

/** What starting an experiment did, in a sentence. */
function queuedMessage(queued: number, already: number, skipped: readonly string[]): string {
  return (
    `Queued ${queued} ${queued === 1 ? 'run' : 'runs'}` +
    (already ? `; ${already} already done with the same config and seed` : '') +
    (skipped.length ? `; not run here: ${skipped.join(', ')} (no training: the Weak labels page scores the weak layer)` : '') +
    '.'
  );
}

export function ExperimentPanel(props: {
  baseConfig: () => Pick<RunConfig, 'data' | 'model' | 'train' | 'backend'>;
  runs: readonly RunRow[];
  busy: boolean;
  /** The form's layers cannot train (the page says why): nothing may be queued. */
  blocked?: boolean;
  onQueued: (ids: number[]) => Promise<void>;
  onError: (message: string | null) => void;
  /** Whether the project's documents hold one sentence each (its stats; absent while they are read). */
  oneSentenceDocuments?: boolean;
}) {
  const projectId = useProjectId();
  const project = useProject(projectId);
  const [file, setFile] = useState<(ExperimentMethods & { file: string }) | null>(null);
  const methods = file ? file.methods : catalogMethods;
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [seeds, setSeeds] = useState('1, 2, 3');
  const [message, setMessage] = useState<string | null>(null);

  /** The leave-one-corpus-out rule's candidates (core/ruleCandidates.ts), as if their config were loaded. */
  const loadCandidates = () => {
    props.onError(null);
    setMessage(null);
    // A prior that cannot apply to the project's types (the gazetteer library) gives way to what the rule keeps there instead.
    const candidates = ruleCandidates(
      (project?.types ?? []).map((t) => t.name),
      props.oneSentenceDocuments === undefined ? {} : { oneSentenceDocuments: props.oneSentenceDocuments },
    );
    setFile(candidates);
    setChosen(new Set(candidates.methods.map((m) => m.label)));
  };

  const load = async (f: File) => {
    props.onError(null);
    setMessage(null);
    try {
      const { file: name, text } = await readText(f);
      const exp = parseExperimentMethods(text, name);
      setFile({ ...exp, file: name });
      setSeeds(exp.seeds.join(', '));
      setChosen(new Set(exp.methods.filter((m) => !isScoredOnly(m.method.name)).map((m) => m.label)));
    } catch (err) {
      props.onError((err as Error).message);
    }
  };

  const start = async () => {
    props.onError(null);
    setMessage(null);
    try {
      // Methods that train nothing are planned too, to be said as not run here.
      const picked = methods.filter((m) => chosen.has(m.label) || isScoredOnly(m.method.name));
      if (!picked.some((m) => !isScoredOnly(m.method.name))) throw new Error('experiment: choose at least one method');
      const exp = file ? { ...file, methods: picked, seeds: parseSeeds(seeds) } : { name: 'experiment', methods: picked, seeds: parseSeeds(seeds) };
      const { runs, skipped } = planExperiment(exp, props.baseConfig());
      const done = new Set(
        props.runs.filter((r) => r.status === 'done').map((r) => `${runGroupKey(r.config as RunConfig)}#${(r.config as RunConfig).train?.seed}`),
      );
      const todo = runs.filter((r) => !done.has(`${runGroupKey(r.config)}#${r.seed}`));
      const now = Date.now();
      const ids = await addRuns(
        db,
        todo.map((r) => ({ projectId, kind: 'train' as const, config: r.config, status: 'queued' as const, createdAt: now })),
      );
      const already = runs.length - todo.length;
      setMessage(queuedMessage(todo.length, already, skipped));
      await props.onQueued(ids);
    } catch (err) {
      props.onError((err as Error).message);
    }
  };

  const toggle = (label: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(label);
    else next.delete(label);
    setChosen(next);
  };
  let seedCount = 0;
  try {
    seedCount = parseSeeds(seeds).length;
  } catch {
    // Said when the experiment starts.
  }
  const n = methods.filter((m) => chosen.has(m.label) && !isScoredOnly(m.method.name)).length * seedCount;

  return (
    <section className="stack" aria-label="Experiment">
      <h2>Experiment</h2>
      <p className="muted">
        Methods × seeds on the layers chosen above, trained one after another; each run is listed below, and Compare runs shows the runs of one method that
        differ only in the seed as mean ± std. Load an experiment config (bench/configs/*.json) for its methods, ablations and model; its settings are replaced
        by this project&apos;s layers.
      </p>
      <div className="row">
        <label>
          Experiment config{' '}
          <input
            type="file"
            aria-label="Experiment config"
            accept=".json,application/json"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) void load(f);
            }}
          />
        </label>
        <button
          type="button"
          onClick={loadCandidates}
          title="The rows the leave-one-corpus-out rule chooses among, as measured (bench/configs/corpora.json): on every corpus of the suite the rule chose to train them and keep the one best on the corpus's own dev (BENCHMARKS.md)"
        >
          The default rule&apos;s candidates
        </button>
        {file && (
          <>
            <span data-testid="experiment-file">
              {file.file}: {file.name}
            </span>
            <button type="button" className="link" onClick={() => (setFile(null), setChosen(new Set()))}>
              use the catalog&apos;s methods
            </button>
          </>
        )}
      </div>
      <MethodChoices methods={methods} chosen={chosen} toggle={toggle} />
      <div className="row">
        <label>
          seeds <input aria-label="Experiment seeds" value={seeds} onChange={(e) => setSeeds(e.target.value)} />
        </label>
        <button type="button" onClick={() => void start()} disabled={props.busy || props.blocked || n === 0}>
          Run experiment ({n} {n === 1 ? 'run' : 'runs'})
        </button>
      </div>
      {message && (
        <p role="status" data-testid="experiment-result">
          {message}
        </p>
      )}
      <BestOnDev runs={props.runs} labels={methods.filter((m) => !isScoredOnly(m.method.name)).map((m) => m.label)} />
    </section>
  );
}

/** The experiment's methods, each a checkbox; those that train nothing are shown, not chosen. */
function MethodChoices({
  methods,
  chosen,
  toggle,
}: {
  methods: readonly ExperimentMethod[];
  chosen: ReadonlySet<string>;
  toggle: (label: string, on: boolean) => void;
}) {
  return (
    <fieldset className="stack" aria-label="Experiment: what to run">
      <legend>Methods</legend>
      {methods.map((m) => (
        <label key={m.label} title={JSON.stringify({ method: m.method, pipeline: m.pipeline, model: m.model, train: m.train })}>
          <input type="checkbox" disabled={isScoredOnly(m.method.name)} checked={chosen.has(m.label)} onChange={(e) => toggle(m.label, e.target.checked)} />{' '}
          {m.label}
          {isScoredOnly(m.method.name) ? <span className="muted"> (no training: the weak labels or the dictionary, scored as they are)</span> : null}
        </label>
      ))}
    </fieldset>
  );
}

/** Per seed, the experiment's run best on dev: the model the leave-one-corpus-out rule keeps. */
function BestOnDev({ runs, labels }: { runs: readonly RunRow[]; labels: readonly string[] }) {
  const choices = bestOnDevBySeed(
    runs.map((r) => {
      const cfg = r.config as RunConfig;
      const m = (r.metrics ?? {}) as { dev?: SpanScores; test?: SpanScores };
      return { id: r.id!, status: r.status, label: cfg.label, seed: cfg.train?.seed, dev: m.dev?.overall.f1, test: m.test?.overall.f1 };
    }),
    labels,
  );
  if (!choices.length) return null;
  return (
    <table data-testid="best-on-dev">
      <caption>Best on dev, per seed (the model to keep: the rule&apos;s choice)</caption>
      <thead>
        <tr>
          <th>seed</th>
          <th>run</th>
          <th>method</th>
          <th className="num">dev F1</th>
          <th className="num">test F1</th>
          <th>chosen among</th>
        </tr>
      </thead>
      <tbody>
        {choices.map((c) => (
          <tr key={c.seed} data-run={c.best.id}>
            <td className="num">{c.seed}</td>
            <td className="num">{c.best.id}</td>
            <td>{c.best.label}</td>
            <td className="num">{pct(c.best.dev)}</td>
            <td className="num">{pct(c.best.test)}</td>
            <td>
              {c.done} of {labels.length} methods
              {c.missing.length ? <span className="muted"> (not run yet: {c.missing.join('; ')})</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
