import { OpenModelFile } from '../components/OpenModelFile';
import { useLiveQuery } from 'dexie-react-hooks';
import { Link } from 'wouter';
import { useMemo, useRef, useState } from 'react';
import {
  DICTIONARY_DROPOUT_CHOICES,
  modelName,
  modelSchema,
  parseRunConfig,
  runConfigSchema,
  runMethodName,
  trainSchema,
  type RunConfig,
} from '../../core/runConfig';
import { db } from '../../db/instance';
import { deleteEncoder } from '../../db/repo';
import { addRun, cancelRuns, failRunIfLive } from '../../db/runs';
import type { RunRow } from '../../db/schema';
import { DEFAULT_PRESET, METHOD_CATALOG } from '../../methods/catalog';
import { entryOptionsText, parseOptionsText } from '../../methods/options';
import { ExperimentPanel } from '../components/ExperimentPanel';
import { LayerOptions } from '../components/LayerOptions';
import { OptionsForm } from '../components/OptionsForm';
import type { TrainMetrics } from '../../worker/trainJob';
import { TrainJob } from '../../worker/trainClient';
import { pct, useProjectId } from '../hooks';
import { stageRuns } from '../runStages';
import { defaultTrainingLayer, layerProblems } from '../layerChecks';
import { useWorkerQuery } from '../workerQuery';
import { issueSentence } from '../../core/issueSentence';
import { GPU_BATCH_SCALE, gpuTraining } from '../../core/gpuBatch';
import { useKept } from '../kept';
import { type Live, LiveRun, nextLive } from '../components/LiveRun';

const MODEL_DEFAULTS = modelSchema.parse({});
const TRAIN_DEFAULTS = trainSchema.parse({});

/** The form's number fields, with the names its messages use. */
const NUMBER_FIELDS = {
  hidden: 'units',
  dropout: 'dropout',
  wordDropout: 'word dropout',
  dictDropout: 'dictionary dropout',
  pretrain: 'pre-training epochs',
  epochs: 'epochs',
  patience: 'patience',
  average: 'weight averaging',
  members: 'ensemble members',
  batch: 'batch',
  lr: 'lr',
  seed: 'seed',
  abbreviationsFollowing: 'documents a definition also holds in',
} as const;

/** A field's number, or an error that names the field and what was typed. */
function num(form: Record<keyof typeof NUMBER_FIELDS, string>, k: keyof typeof NUMBER_FIELDS): number {
  const v = form[k].trim();
  const n = Number(v);
  if (v === '' || !Number.isFinite(n)) throw new Error(`${NUMBER_FIELDS[k]}: "${form[k]}" is not a number`);
  return n;
}

/**
 * What is wrong with the form's model and training fields as typed (no layers needed): each
 * field's own message, checked by the run config's schema, so that a run never starts on a typo.
 */
function formProblems(form: Form): string[] {
  const problems: string[] = [];
  for (const k of Object.keys(NUMBER_FIELDS) as (keyof typeof NUMBER_FIELDS)[]) {
    if (k === 'dictDropout' && (!form.dictionary || form.dictDropout.trim() === 'dev')) continue;
    if (k === 'abbreviationsFollowing' && !form.abbreviations) continue;
    try {
      num(form, k);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  if (problems.length) return problems;
  const r = runConfigSchema.safeParse({ data: { kind: 'project', projectId: 0, layerId: 0, goldLayerId: 0 }, ...formSettings(form) });
  if (!r.success) for (const issue of r.error.issues) problems.push(`${FIELD_OF[issue.path.join('.')] ?? issue.path.join('.')}: ${issueSentence(issue)}`);
  return problems;
}

/** The model and training settings as typed (numbers read by `num`, which throws on a typo): what a run is made from and what the form checks. */
function formSettings(form: Form) {
  return {
    model: {
      encoder: form.encoder,
      head: form.head,
      hidden: num(form, 'hidden'),
      dropout: num(form, 'dropout'),
      wordDropout: num(form, 'wordDropout'),
      dictionary: form.dictionary,
      dictionaryDropout: dictDropout(form),
      spelling: form.spelling,
      pretrain: num(form, 'pretrain'),
      weakFeatures: form.weakFeatures,
      starter: form.starter,
      publicLibrary: form.publicLibrary,
      sourceReliability: form.sourceReliability,
      ...(form.abbreviations ? { abbreviations: { following: num(form, 'abbreviationsFollowing') } } : {}),
    },
    train: {
      epochs: num(form, 'epochs'),
      patience: num(form, 'patience'),
      average: num(form, 'average'),
      members: num(form, 'members'),
      shareDropout: form.shareDropout,
      batchSize: num(form, 'batch'),
      lr: num(form, 'lr'),
      seed: num(form, 'seed'),
      typeShifts: form.typeShifts,
    },
  };
}

/**
 * The dictionary dropout as typed ("dev": chosen on dev, see runConfig's dictionaryDropout); the
 * default when dictionary features are off (then it plays no part).
 */
const dictDropout = (form: Record<keyof typeof NUMBER_FIELDS, string> & { dictionary: boolean }) =>
  !form.dictionary ? MODEL_DEFAULTS.dictionaryDropout : form.dictDropout.trim() === 'dev' ? 'dev' : num(form, 'dictDropout');

const FIELD_OF: Record<string, string> = {
  'model.hidden': 'units',
  'model.dropout': 'dropout',
  'model.wordDropout': 'word dropout',
  'model.dictionaryDropout': 'dictionary dropout',
  'model.pretrain': 'pre-training epochs',
  'train.epochs': 'epochs',
  'train.patience': 'patience',
  'train.average': 'weight averaging',
  'train.members': 'ensemble members',
  'train.batchSize': 'batch',
  'train.lr': 'lr',
  'train.seed': 'seed',
  'model.abbreviations.following': 'documents a definition also holds in',
};

function NumberInput({ invalid, ...props }: { 'aria-label': string; value: string; onChange: React.ChangeEventHandler<HTMLInputElement>; invalid: boolean }) {
  return <input className="narrow" aria-invalid={invalid} {...props} />;
}

/** A run's epochs for the runs table: with its best epoch on dev, or, for a multi-stage run, its stages' count (its page says which it kept). */
function epochsCell(m: TrainMetrics): string {
  if (m.imported) return 'from a file';
  const stages = stageRuns(m.history).length;
  if (stages > 1) return `${m.history.length} in ${stages} stages`;
  return m.bestEpoch ? `${m.history.length} (${m.bestEpoch})` : String(m.history.length);
}

function RunsTable({ runs, onResume, busy }: { runs: RunRow[]; onResume: (id: number) => void; busy: boolean }) {
  return (
    <table className="grid" data-testid="runs-table">
      <thead>
        <tr>
          <th>Run</th>
          <th>Status</th>
          <th>Method</th>
          <th>Model</th>
          <th>Backend</th>
          <th title="A single-stage run: its epochs, and in brackets the one kept (best on dev). A multi-stage run: its epochs over all its stages.">
            Epochs (best)
          </th>
          <th>Dev F1</th>
          <th>Test P</th>
          <th>Test R</th>
          <th>Test F1</th>
          <th>Tokens/s</th>
          <th>Wall s</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const cfg = r.config as RunConfig;
          const m = (r.metrics ?? { history: [] }) as TrainMetrics;
          return (
            <tr key={r.id} data-run={r.id}>
              <td>
                <Link href={`/runs/${r.id}`}>{r.id}</Link>
              </td>
              {/* A run that predicts no entity is marked here; its page and the live run say why. */}
              <td title={r.error ?? m.warning} className={m.warning ? 'warn' : undefined} data-warning={m.warning}>
                {r.status}
                {r.error ? `: ${r.error}` : ''}
                {(r.status === 'running' || r.status === 'interrupted') && !busy && (
                  <>
                    {' '}
                    <button type="button" className="link" onClick={() => onResume(r.id!)}>
                      resume
                    </button>
                  </>
                )}
              </td>
              <td title={cfg.label ? `${cfg.pipeline?.kind ?? 'single'} · ${cfg.method?.name}` : undefined}>{runMethodName(cfg)}</td>
              <td>{modelName(cfg)}</td>
              <td title={m.backendReason}>{m.backend || '–'}</td>
              <td className="num">{epochsCell(m)}</td>
              <td className="num">{pct(m.dev?.overall.f1)}</td>
              <td className="num">{pct(m.test?.overall.precision)}</td>
              <td className="num">{pct(m.test?.overall.recall)}</td>
              <td className="num">{pct(m.test?.overall.f1)}</td>
              <td className="num">{m.tokensPerSecond ? Math.round(m.tokensPerSecond).toLocaleString() : '–'}</td>
              <td className="num">{m.wallSeconds ? m.wallSeconds.toFixed(0) : '–'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

type Form = ReturnType<typeof trainFormDefaults>;

/** The form's starting values: the method and options chosen on dev (BENCHMARKS.md says where each comes from). */
function trainFormDefaults() {
  return {
    layer: '',
    gold: '',
    strong: '',
    // The schema's default run (methods/catalog.ts DEFAULT_PRESET), chosen leave-one-corpus-out (BENCHMARKS.md).
    method: DEFAULT_PRESET.id,
    encoder: MODEL_DEFAULTS.encoder,
    hidden: String(MODEL_DEFAULTS.hidden),
    head: MODEL_DEFAULTS.head as string,
    dropout: String(MODEL_DEFAULTS.dropout),
    wordDropout: String(MODEL_DEFAULTS.wordDropout),
    dictionary: MODEL_DEFAULTS.dictionary,
    // "dev" (the schema's) trains the first stage at 0, 0.5 and 0.75 and keeps the best (BENCHMARKS.md).
    dictDropout: String(MODEL_DEFAULTS.dictionaryDropout),
    // On: a stated exception to the leave-one-corpus-out rule (runConfig.ts and BENCHMARKS.md say why).
    spelling: MODEL_DEFAULTS.spelling,
    // A project's weak labels cover every document, so they can be read as features (the schema's default, chosen on dev).
    weakFeatures: MODEL_DEFAULTS.weakFeatures,
    // Off: the starter gained on tweets and web pages, cost on biomedical text (BENCHMARKS.md); the project's dev decides.
    starter: MODEL_DEFAULTS.starter,
    // Off: the rule keeps the library for WSL with the priors, not for the page's pipeline (BENCHMARKS.md).
    publicLibrary: MODEL_DEFAULTS.publicLibrary,
    // The schema's default (runConfig.ts says what it was measured on).
    sourceReliability: MODEL_DEFAULTS.sourceReliability,
    // Off, as on the Weak labels page: a stated exception to the rule, which keeps them for this
    // pipeline with every corpus voting (BENCHMARKS.md, the rule decides the abbreviations too; its
    // candidates read them, with the window measured where the documents hold one sentence each).
    // The demo's own dev says no (−0.94 over ten seeds), and they were measured only on corpora of
    // one sentence a document: a project turns them on and compares on dev.
    abbreviations: false,
    abbreviationsFollowing: '0',
    // Off, chosen on dev (BENCHMARKS.md, thirty-first session): in the page's completion pipeline the encoder adds dev
    // −0.08 on conll03 distant 1k with the other training text to self-train on, +0.10 with none; it costs minutes.
    pretrain: String(MODEL_DEFAULTS.pretrain),
    typeShifts: TRAIN_DEFAULTS.typeShifts,
    epochs: String(TRAIN_DEFAULTS.epochs),
    patience: String(TRAIN_DEFAULTS.patience),
    average: String(TRAIN_DEFAULTS.average),
    members: String(TRAIN_DEFAULTS.members),
    shareDropout: TRAIN_DEFAULTS.shareDropout,
    batch: String(TRAIN_DEFAULTS.batchSize),
    lr: String(TRAIN_DEFAULTS.lr),
    seed: String(TRAIN_DEFAULTS.seed),
    backend: 'auto',
  };
}

/**
 * The training form's state, kept across reloads per project (kept.ts; a field the page no longer
 * has is dropped), with the layers it would train on and every problem that stops a run.
 */
function useTrainForm(projectId: number) {
  const layers = useLiveQuery(() => db.layers.where('projectId').equals(projectId).sortBy('id'), [projectId]);
  const [form, setForm] = useKept(`train-form/${projectId}`, trainFormDefaults());
  // The chosen method's options (method and pipeline, every default filled in): the ablations' switches.
  const [options, setOptions] = useKept(`train-options/${projectId}`, entryOptionsText(DEFAULT_PRESET));
  const problems = useMemo(() => formProblems(form), [form]);
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setForm({ ...form, [k]: e.target.value });
  /** A number field of the form, marked invalid when its check fails (the message names it). */
  const numField = (k: keyof typeof NUMBER_FIELDS) => ({
    value: form[k],
    onChange: set(k),
    invalid: problems.some((p) => p.startsWith(`${NUMBER_FIELDS[k]}:`)),
  });
  const check = (
    k: 'dictionary' | 'weakFeatures' | 'starter' | 'spelling' | 'typeShifts' | 'publicLibrary' | 'sourceReliability' | 'abbreviations' | 'shareDropout',
  ) => ({
    checked: form[k],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [k]: e.target.checked }),
  });
  /** Batches sized for the GPU (gpuBatch.ts): what the form holds, the batch and lr × 4, the epochs and patience × 2. */
  const sizeForGpu = () => {
    const t = gpuTraining({ batchSize: num(form, 'batch'), lr: num(form, 'lr'), epochs: num(form, 'epochs'), patience: num(form, 'patience') });
    setForm({ ...form, batch: String(t.batchSize), lr: String(t.lr), epochs: String(t.epochs), patience: String(t.patience) });
  };
  const chooseMethod = (e: React.ChangeEvent<HTMLSelectElement>) => {
    set('method')(e);
    setOptions(entryOptionsText(METHOD_CATALOG.find((m) => m.id === e.target.value) ?? METHOD_CATALOG[0]));
  };
  const gold = layers?.filter((l) => l.kind === 'gold') ?? [];
  // Strong labels: an annotator's gold layer, or the review queue's corrections (their reviewed sentences).
  const strongChoices = layers?.filter((l) => l.kind === 'gold' || l.kind === 'corrected') ?? [];
  // Entity counts per layer and split: the layers a run would use are checked before it starts.
  const stats = useWorkerQuery('projectStats', [projectId]);
  // A layer kept from an earlier visit that no longer exists counts as none chosen.
  const exists = (id: string) => !!id && (!layers || layers.some((l) => String(l.id) === id));
  const layerId = exists(form.layer)
    ? Number(form.layer)
    : stats
      ? defaultTrainingLayer(stats.layers)
      : (layers?.find((l) => l.role === 'aggregate')?.id ?? layers?.[0]?.id);
  const goldId = exists(form.gold) ? Number(form.gold) : gold[0]?.id;
  const dataProblems = stats ? layerProblems(stats.layers, { layerId, goldId, strongId: exists(form.strong) ? Number(form.strong) : undefined }) : [];
  /** The run settings the form gives (layers, model, training, backend); the method comes apart. */
  const baseConfig = (): Pick<RunConfig, 'data' | 'model' | 'train' | 'backend'> => {
    if (layerId === undefined || goldId === undefined) throw new Error('choose a training layer and a gold layer (the dev split is scored on it)');
    const c = parseRunConfig({
      data: { kind: 'project', projectId, layerId, goldLayerId: goldId, ...(exists(form.strong) ? { strongLayerId: Number(form.strong) } : {}) },
      ...formSettings(form),
      backend: form.backend,
    });
    return { data: c.data, model: c.model, train: c.train, backend: c.backend };
  };
  return {
    form,
    options,
    setOptions,
    problems,
    dataProblems,
    set,
    numField,
    check,
    sizeForGpu,
    chooseMethod,
    layers,
    gold,
    strongChoices,
    layerId,
    goldId,
    baseConfig,
    // A corpus of one sentence a document (files of lines): the rule's candidates read the abbreviations' window as measured.
    oneSentenceDocuments: stats ? stats.sentences === stats.documents : undefined,
  };
}
type TrainForm = ReturnType<typeof useTrainForm>;

/**
 * Runs the page trains, one at a time, in the training worker: a single run, or an experiment's
 * queue one after another (cancelling the queue cancels the current run and marks the ones not
 * started as cancelled).
 */
function useRunner() {
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<string | null>(null);
  const job = useRef<TrainJob | null>(null);
  const queueCancelled = useRef(false);
  // Between two runs of a queue nothing is live: this keeps a second queue from starting then.
  const [queueBusy, setQueueBusy] = useState(false);
  const execute = async (runId: number, queue?: Live['queue']) => {
    setError(null);
    const t = new TrainJob();
    job.current = t;
    setLive({ runId, steps: [], epochs: [], queue });
    try {
      await t.run(runId, (e) => setLive((prev) => prev && nextLive(prev, e, Date.now())));
    } catch (e) {
      setError((e as Error).message);
      await failRunIfLive(db, runId, (e as Error).message);
    } finally {
      job.current = null;
      setLive(null);
    }
  };
  const runQueue = async (ids: readonly number[]) => {
    queueCancelled.current = false;
    setQueueBusy(true);
    try {
      for (const [k, id] of ids.entries()) {
        if (queueCancelled.current) {
          await cancelRuns(db, ids.slice(k), 'the experiment was cancelled before this run');
          break;
        }
        const row = await db.runs.get(id);
        if (row?.status !== 'queued') continue;
        await execute(id, { k: k + 1, n: ids.length, label: (row.config as RunConfig).label });
      }
    } finally {
      setQueueBusy(false);
    }
  };
  const cancelQueue = () => {
    queueCancelled.current = true;
    job.current?.cancel();
  };
  return { live, error, setError, job, execute, runQueue, cancelQueue, busy: !!live || queueBusy };
}

export function TrainPage() {
  const projectId = useProjectId();
  const runs = useLiveQuery(
    () =>
      db.runs
        .where('projectId')
        .equals(projectId)
        .filter((r) => r.kind === 'train')
        .reverse()
        .sortBy('id'),
    [projectId],
  );
  const f = useTrainForm(projectId);
  const r = useRunner();
  const { form, problems, dataProblems, busy } = { ...f, busy: r.busy };
  const start = async (e: React.FormEvent) => {
    e.preventDefault();
    r.setError(null);
    try {
      const entry = METHOD_CATALOG.find((m) => m.id === form.method) ?? METHOD_CATALOG[0];
      const { method, pipeline } = parseOptionsText(f.options);
      const base = f.baseConfig();
      const config = parseRunConfig({ ...base, name: `project ${projectId}`, model: { ...base.model, head: entry.head ?? form.head }, method, pipeline });
      const runId = await addRun(db, { projectId, kind: 'train', config, status: 'queued', createdAt: Date.now() });
      await r.execute(runId);
    } catch (err) {
      r.setError((err as Error).message);
    }
  };
  const queued =
    runs
      ?.filter((x) => x.status === 'queued')
      .map((x) => x.id!)
      .reverse() ?? [];

  return (
    <div className="stack">
      <form onSubmit={start} className="stack" aria-label="Train a model">
        <LayerFields f={f} />
        <p className="muted" data-testid="method-when">
          When to use it: {(METHOD_CATALOG.find((m) => m.id === form.method) ?? METHOD_CATALOG[0]).when}
        </p>
        <ModelFields f={f} disabled={busy || problems.length > 0 || dataProblems.length > 0} />
        <FormProblems problems={problems} dataProblems={dataProblems} />
        <details>
          <summary>Method options (the ablations: switch a stage or a loss term off here)</summary>
          <OptionsForm text={f.options} onChange={f.setOptions} />
        </details>
      </form>
      {r.live && (
        <LiveRun
          live={r.live}
          maxEpochs={Number(form.epochs) || 1}
          controls={
            <>
              <button type="button" onClick={() => r.job.current?.stop()}>
                Stop (keep best)
              </button>
              <button type="button" onClick={() => r.job.current?.cancel()}>
                Cancel
              </button>
              {r.live.queue && (
                <button type="button" onClick={r.cancelQueue}>
                  Cancel experiment
                </button>
              )}
            </>
          }
        />
      )}
      <ExperimentPanel
        baseConfig={f.baseConfig}
        runs={runs ?? []}
        busy={busy}
        blocked={dataProblems.length > 0}
        onQueued={r.runQueue}
        onError={r.setError}
        {...(f.oneSentenceDocuments === undefined ? {} : { oneSentenceDocuments: f.oneSentenceDocuments })}
      />
      {r.error && (
        <p role="alert" className="error" data-testid="train-error">
          {r.error}
        </p>
      )}
      <h2>Runs</h2>
      {queued.length > 0 && !busy && (
        <p className="row">
          {queued.length} queued {queued.length === 1 ? 'run' : 'runs'} (an experiment stopped by a reload)
          <button type="button" onClick={() => void r.runQueue(queued)}>
            Run the queued runs
          </button>
        </p>
      )}
      {runs?.length ? <RunsTable runs={runs} busy={busy} onResume={(id) => void r.execute(id)} /> : <p className="muted">No training run yet.</p>}
      <OpenModelFile projectId={projectId} busy={busy} />
      <ProjectEncoders projectId={projectId} busy={busy} />
    </div>
  );
}

/** Which layers the run learns from and is scored on, and the method. */
function LayerFields({ f }: { f: TrainForm }) {
  const { form, set, layers, gold, strongChoices, layerId, goldId, chooseMethod } = f;
  return (
    <div className="row">
      <label>
        Learn from{' '}
        <select aria-label="Training layer" value={layerId ?? ''} onChange={set('layer')}>
          <LayerOptions layers={layers ?? []} withKind />
        </select>
      </label>
      <label>
        Score on{' '}
        <select aria-label="Gold layer" value={goldId ?? ''} onChange={set('gold')}>
          <LayerOptions layers={gold} />
        </select>
      </label>
      <label>
        Strong labels from{' '}
        <select aria-label="Strong layer" value={form.strong} onChange={set('strong')}>
          <option value="">none</option>
          <LayerOptions layers={strongChoices} />
        </select>
      </label>
      <label>
        Method{' '}
        <select aria-label="Method" value={form.method} onChange={chooseMethod}>
          {METHOD_CATALOG.map((m) => (
            <option key={m.id} value={m.id}>
              {m.title}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** The model's and the training's settings, and the Train button. */
function ModelFields({ f, disabled }: { f: TrainForm; disabled: boolean }) {
  const { form, set, numField, check, sizeForGpu } = f;
  // Offered on WebGPU while the batch is smaller than the GPU's (a second click would scale it again).
  const offerGpuBatch = form.backend === 'webgpu' && !f.problems.length && Number(form.batch) < TRAIN_DEFAULTS.batchSize * GPU_BATCH_SCALE;
  return (
    <div className="row">
      <select aria-label="Encoder" value={form.encoder} onChange={set('encoder')}>
        <option value="bilstm">BiLSTM</option>
        <option value="idcnn">ID-CNN</option>
      </select>
      <label>
        units <NumberInput aria-label="Hidden units" {...numField('hidden')} />
      </label>
      <select aria-label="Head" value={form.head} onChange={set('head')}>
        <option value="crf">CRF</option>
        <option value="softmax">softmax</option>
        <option value="span">span classifier</option>
      </select>
      <label>
        dropout <NumberInput aria-label="Dropout" {...numField('dropout')} />
      </label>
      <label title="In training, each token reads as a word the model does not know with this probability (its spelling and casing kept), so that it learns to tag names it never saw by their spelling and context. 0.1 by default: over the suite's corpora it gained on dev, most on biomedical text (+2 F1), level on tweets; 0: off (BENCHMARKS.md)">
        word dropout <NumberInput aria-label="Word dropout" {...numField('wordDropout')} />
      </label>
      <label title="The project's gazetteer matches as model input, so the model uses the dictionaries at prediction time">
        <input type="checkbox" aria-label="Dictionary features" {...check('dictionary')} /> dictionary features
      </label>
      {form.dictionary && (
        <label
          title={`The share of dictionary matches left out of each training batch, so the model also learns from context; "dev": the first stage trains at each of ${DICTIONARY_DROPOUT_CHOICES.join(', ')} and the best on dev is kept`}
        >
          dropped <NumberInput aria-label="Dictionary dropout" {...numField('dictDropout')} />
        </label>
      )}
      {form.dictionary && (
        <label title="The public gazetteer library (cities, countries, parts of people's names, brands) as dictionary features of their own groups, for this run only: each list whose kind maps onto one of your types by name (LOC or geo-loc, PER or person, ORG or company); a list you added on the Gazetteers page is read as you added it. With WSL and the priors it gained dev F1 on tweets (+1.2) and web pages and lost a little on news, so the rule's candidates run it there; with this page's pipeline it lost dev on news and web pages and only tied on tweets (BENCHMARKS.md, the public gazetteer library): compare a run with and without it on dev">
          <input type="checkbox" aria-label="Public gazetteer library" {...check('publicLibrary')} /> public gazetteer library
        </label>
      )}
      {form.dictionary && (
        <label title="Each gazetteer's and rule's matches read as that source's trust (the Weak labels page's column: how far the HMM, fitted without gold, believes the source where it fires) instead of 1, so a match of a source the label model distrusts reads weaker. Needs weak labels made by the HMM">
          <input type="checkbox" aria-label="Sources' trust" {...check('sourceReliability')} /> sources' trust
        </label>
      )}
      <label title="The project's weak labels (their aggregate) as model input too, so the model starts from what they say and learns from context where to differ">
        <input type="checkbox" aria-label="Weak labels as features" {...check('weakFeatures')} /> weak labels as features
      </label>
      <label title="A short form in parentheses right after a weak span ('chloroacetaldehyde ( CAA )', its letters read in order out of the span's words) takes the span's type, there and at its later occurrences, where the weak layer says O: read into the layer this run trains on (and its weak-label features), for this run only. For a layer imported without them, or an aggregate made without them; the Weak labels page does the same to a new aggregate">
        <input type="checkbox" aria-label="Abbreviations the text defines" {...check('abbreviations')} /> abbreviations the text defines
      </label>
      {form.abbreviations && (
        <label title="For documents of one sentence each (a file of lines, CoNLL without -DOCSTART-) in the text's order: how many following documents a definition also holds in. 0 for real documents">
          also in the next <NumberInput aria-label="Documents a definition also holds in" {...numField('abbreviationsFollowing')} /> documents
        </label>
      )}
      <label title="The starter model (the studio's tagger trained on CoNLL-2003 news: PER, LOC, ORG, MISC) reads every document, and its predictions are model input of their own: the model learns on your labels what each is worth. It helped on tweets and web pages and cost a point on biomedical text (BENCHMARKS.md): compare a run with and without it on dev">
        <input type="checkbox" aria-label="Starter model features" {...check('starter')} /> starter model features
      </label>
      <label title="Words GloVe lacks get a vector spelled from their characters (n-grams trained to reproduce GloVe) instead of the unknown-word vector. On by default: it gains where names are words GloVe lacks (biomedical text, the demo) and loses a little on news; over the suite's four corpora its dev gain is slightly negative (BENCHMARKS.md, spelling vectors): compare a run with and without it on dev">
        <input type="checkbox" aria-label="Spelling vectors" {...check('spelling')} /> spelling vectors
      </label>
      <label title="Epochs of pre-training the encoder as a language model on the text of the train split and of the unassigned documents (0: off); done once and kept for the project's later runs">
        pre-train encoder <NumberInput aria-label="Pre-training epochs" {...numField('pretrain')} /> epochs
      </label>
      <label title="After the O shift, each entity type's tags get a shift of their own, chosen on dev (weak labels miss each type at its own rate); completion's teacher decodes with them too">
        <input type="checkbox" aria-label="Type shifts" {...check('typeShifts')} /> shift per type
      </label>
      <label>
        epochs <NumberInput aria-label="Epochs" {...numField('epochs')} />
      </label>
      <label title="Stop after this many epochs without a better dev F1">
        patience <NumberInput aria-label="Patience" {...numField('patience')} />
      </label>
      <label title="The decay of a moving average of the weights, which dev scores, early stopping and the final model read (0.99: about the last 100 steps; 0: off). An average forgets less of what a noisy batch has just undone (BENCHMARKS.md, weight averaging)">
        weight averaging <NumberInput aria-label="Weight averaging" {...numField('average')} />
      </label>
      <label title="Train the model this many times (seed, seed + 1000, ...) and decode them as one: the mean of their scores, its O shift chosen on dev again. Each member costs a run's training; 1: one model (BENCHMARKS.md, a test-time ensemble)">
        ensemble members <NumberInput aria-label="Ensemble members" {...numField('members')} />
      </label>
      {form.members.trim() !== '1' && form.dictionary && form.dictDropout.trim() === 'dev' ? (
        <label title="Members after the first train at the dictionary dropout the first chose on dev instead of trying each value again: each then trains one teacher, not three (BENCHMARKS.md, a test-time ensemble)">
          <input type="checkbox" aria-label="Share the first member's dropout" {...check('shareDropout')} /> members share its dictionary dropout
        </label>
      ) : null}
      <label>
        batch <NumberInput aria-label="Batch size" {...numField('batch')} />
      </label>
      <label>
        lr <NumberInput aria-label="Learning rate" {...numField('lr')} />
      </label>
      <label>
        seed <NumberInput aria-label="Seed" {...numField('seed')} />
      </label>
      <select aria-label="Backend" value={form.backend} onChange={set('backend')}>
        <option value="auto">backend: auto</option>
        <option value="webgpu">WebGPU</option>
        <option value="wasm">WASM</option>
        <option value="webgl">WebGL</option>
        <option value="cpu">CPU</option>
      </select>
      {offerGpuBatch && (
        <button
          type="button"
          onClick={sizeForGpu}
          title="On WebGPU a step costs its GPU programs, not its sentences: four times the batch at four times the learning rate, with twice the epochs and patience, trains an epoch in a quarter of the programs. It kept dev F1 for WSL on two corpora; for the multi-stage default, dev rose 1.5 on conll03 and fell 2.1 on twitter (BENCHMARKS.md, batch for the GPU)"
        >
          Batch for the GPU
        </button>
      )}
      <button type="submit" disabled={disabled}>
        Train
      </button>
    </div>
  );
}

function FormProblems({ problems, dataProblems }: { problems: string[]; dataProblems: ReturnType<typeof layerProblems> }) {
  if (problems.length + dataProblems.length === 0) return null;
  return (
    <ul role="alert" className="error" data-testid="form-problems">
      {dataProblems.map((p) => (
        <li key={p.text} data-problem="layers">
          {p.text}
          {p.fix && (
            <>
              {' '}
              <Link href={p.fix.href}>{p.fix.label}</Link>
            </>
          )}
        </li>
      ))}
      {problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

/** The project's pre-trained encoders (kept by runs with encoder pre-training on), each removable. */
function ProjectEncoders({ projectId, busy }: { projectId: number; busy: boolean }) {
  const encoders = useLiveQuery(() => db.encoders.where('projectId').equals(projectId).toArray(), [projectId]);
  if (!encoders?.length) return null;
  return (
    <>
      <h2>Pre-trained encoders</h2>
      <p className="muted">Kept for later runs of a model of the same shape on the same train text; a run with other settings pre-trains its own.</p>
      <table className="grid" data-testid="encoders-table">
        <thead>
          <tr>
            <th>model</th>
            <th>text</th>
            <th>epochs</th>
            <th>last loss</th>
            <th title="RoSTER's augmentation uses the encoder's language model instead of training one per run">language model</th>
            <th>time</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {encoders.map((e) => {
            const k = JSON.parse(e.key) as { encoder: string; hidden: number; spelling: boolean };
            return (
              <tr key={e.id}>
                <td>
                  {k.encoder} {k.hidden}
                  {k.spelling ? ' · spelling' : ''}
                </td>
                <td>
                  {e.sentences.toLocaleString()} sentences, {e.tokens.toLocaleString()} tokens
                </td>
                <td>{e.losses.length}</td>
                <td>{e.losses[e.losses.length - 1]?.toFixed(3)}</td>
                <td>{e.lm ? `${e.lm.words.length.toLocaleString()} words` : 'not kept'}</td>
                <td>{Math.round(e.seconds)} s</td>
                <td>
                  <button
                    type="button"
                    className="link danger"
                    disabled={busy}
                    onClick={() => confirm('Delete this encoder? A later run with pre-training trains it again.') && void deleteEncoder(db, e.id!)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
