import { useMemo, useState } from 'react';
import { CORPUS_FORMATS, type CorpusFormat } from '../../core/formats/importSpec';
import { parseRatios } from '../../core/splits';
import { LAYER_KINDS, SPLITS, TAG_SCHEMES, type LayerKind, type Split, type TagScheme } from '../../core/types';
import { importWorker } from '../../worker/importClient';
import type { ImportStored } from '../../worker/import.worker';
import { useProjectId, count } from '../hooks';

const FORMAT_HELP: Record<CorpusFormat, string> = {
  conll: 'CoNLL columns: token first, tag last; blank lines between sentences; -DOCSTART- between documents.',
  lines: 'One sentence a line, tokens separated by spaces, with optional parallel label files (one tag per token).',
  jsonl: 'JSONL: {"text": …, "spans": [{"start", "end", "label"}]} with character offsets (spaCy / Prodigy).',
  text: 'Plain text: tokenized and split into sentences here, character offsets kept; one document a file.',
};

interface LabelChoice {
  file: File;
  kind: LayerKind;
  name: string;
}

export function ImportPage() {
  const projectId = useProjectId();
  const [format, setFormat] = useState<CorpusFormat>('conll');
  const [split, setSplit] = useState<Split | 'ratio'>('train');
  const [ratios, setRatios] = useState('80/10/10');
  const [splitSeed, setSplitSeed] = useState('1');
  // Checked as typed: a bad ratio or seed is shown at once and the import cannot start.
  const ratioProblem = useMemo(() => {
    if (split !== 'ratio') return null;
    try {
      parseRatios(ratios);
    } catch (e) {
      return (e as Error).message;
    }
    return /^\d+$/.test(splitSeed.trim()) ? null : `split seed: "${splitSeed}" is not a whole number`;
  }, [split, ratios, splitSeed]);
  const [scheme, setScheme] = useState<TagScheme>('BIO');
  const [files, setFiles] = useState<File[]>([]);
  const [labels, setLabels] = useState<LabelChoice[]>([]);
  const [layerKind, setLayerKind] = useState<LayerKind>('gold');
  const [layerName, setLayerName] = useState('gold');
  const job = useImportJob(projectId);
  const { result, busy, pending } = job;
  const run = (e: React.FormEvent) => {
    e.preventDefault();
    void job.run({
      projectId,
      format,
      split: split === 'ratio' ? { ratios, seed: Number(splitSeed) } : split,
      scheme,
      files,
      labels,
      layer: { kind: layerKind, name: layerName.trim() || 'gold' },
    });
  };

  return (
    <form onSubmit={run} className="stack" aria-label="Import documents">
      <div className="row">
        <label>
          Format{' '}
          <select aria-label="Format" value={format} onChange={(e) => setFormat(e.target.value as CorpusFormat)}>
            {CORPUS_FORMATS.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </label>
        <SplitFields split={split} setSplit={setSplit} ratios={ratios} setRatios={setRatios} splitSeed={splitSeed} setSplitSeed={setSplitSeed} />
        {(format === 'conll' || format === 'lines') && (
          <label>
            Tag scheme{' '}
            <select aria-label="Tag scheme" value={scheme} onChange={(e) => setScheme(e.target.value as TagScheme)}>
              {TAG_SCHEMES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <p className="muted">{FORMAT_HELP[format]} Files are read as UTF-8 text.</p>
      <label>
        {format === 'lines' ? 'Text file' : 'Files'}{' '}
        <input aria-label="Corpus files" type="file" multiple={format !== 'lines'} onChange={(e) => setFiles([...(e.target.files ?? [])])} />
      </label>
      {(format === 'conll' || format === 'jsonl') && (
        <div className="row">
          <label>
            Labels go to layer{' '}
            <select aria-label="Layer kind" value={layerKind} onChange={(e) => setLayerKind(e.target.value as LayerKind)}>
              {LAYER_KINDS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <input aria-label="Layer name" value={layerName} onChange={(e) => setLayerName(e.target.value)} />
        </div>
      )}
      {format === 'lines' && <LabelFiles labels={labels} setLabels={setLabels} />}
      <div>
        <button type="submit" disabled={busy || !files.length || !!ratioProblem}>
          {busy ? 'Importing…' : 'Import'}
        </button>
        {ratioProblem && (
          <span role="alert" className="error" data-testid="ratio-problem">
            {' '}
            {ratioProblem}
          </span>
        )}
      </div>
      {pending && <PendingChecks pending={pending} busy={busy} onConfirm={() => void job.confirm()} onCancel={job.cancel} />}
      {result && (
        <p role={result.ok ? 'status' : 'alert'} className={result.ok ? 'ok' : 'error'} data-testid="import-result">
          {result.message}
        </p>
      )}
    </form>
  );
}

/** Which split the documents go to: one, or train/dev/test by ratio with a seed. */
function SplitFields(p: {
  split: Split | 'ratio';
  setSplit: (s: Split | 'ratio') => void;
  ratios: string;
  setRatios: (s: string) => void;
  splitSeed: string;
  setSplitSeed: (s: string) => void;
}) {
  const { split, setSplit, ratios, setRatios, splitSeed, setSplitSeed } = p;
  return (
    <>
      <label>
        Split{' '}
        <select aria-label="Split" value={split} onChange={(e) => setSplit(e.target.value as Split | 'ratio')}>
          {SPLITS.map((s) => (
            <option key={s}>{s}</option>
          ))}
          <option value="ratio">split by ratio…</option>
        </select>
      </label>
      {split === 'unassigned' && (
        <span className="muted" data-testid="unassigned-hint">
          the project's unlabeled text: the encoder pre-trains on it, and the self-training of completion, BOND and RoSTER (option unlabeled) labels it for
          their students
        </span>
      )}
      {split === 'ratio' && (
        <>
          <label>
            train/dev/test <input aria-label="Split ratios" className="ratio" value={ratios} onChange={(e) => setRatios(e.target.value)} />
          </label>
          <label>
            seed <input aria-label="Split seed" className="narrow" value={splitSeed} onChange={(e) => setSplitSeed(e.target.value)} />
          </label>
        </>
      )}
    </>
  );
}

/** The label files of a text of one sentence a line, each with its layer's kind and name. */
function LabelFiles({ labels, setLabels }: { labels: LabelChoice[]; setLabels: (l: LabelChoice[]) => void }) {
  return (
    <>
      <label>
        Label files (parallel to the text){' '}
        <input
          aria-label="Label files"
          type="file"
          multiple
          onChange={(e) =>
            setLabels([...(e.target.files ?? [])].map((file, k) => ({ file, kind: k === 0 ? 'gold' : 'weak', name: file.name.replace(/\.[^.]+$/, '') })))
          }
        />
      </label>
      {labels.map((l, k) => (
        <div key={l.file.name} className="row">
          <span>{l.file.name} →</span>
          <select
            aria-label={`Kind of ${l.file.name}`}
            value={l.kind}
            onChange={(e) => setLabels(labels.map((x, j) => (j === k ? { ...x, kind: e.target.value as LayerKind } : x)))}
          >
            {LAYER_KINDS.map((kind) => (
              <option key={kind}>{kind}</option>
            ))}
          </select>
          <input
            aria-label={`Layer name of ${l.file.name}`}
            value={l.name}
            onChange={(e) => setLabels(labels.map((x, j) => (j === k ? { ...x, name: e.target.value } : x)))}
          />
        </div>
      ))}
    </>
  );
}

/** A parsed import's checks, which the user answers before anything is stored. */
function PendingChecks(p: { pending: { checks: string[]; documents: number }; busy: boolean; onConfirm: () => void; onCancel: () => void }) {
  const { pending, busy, onConfirm, onCancel } = p;
  return (
    <div role="alertdialog" aria-label="Check the import" className="error" data-testid="import-checks">
      <p>Nothing is stored yet. {count(pending.documents, 'document is', 'documents are')} ready to import, but look at these first:</p>
      <ul>
        {pending.checks.slice(0, 20).map((c) => (
          <li key={c}>{c}</li>
        ))}
        {pending.checks.length > 20 && <li>and {pending.checks.length - 20} more</li>}
      </ul>
      <div className="row">
        <button type="button" onClick={onConfirm} disabled={busy}>
          Import anyway
        </button>
        <button type="button" onClick={onCancel}>
          Cancel import
        </button>
      </div>
    </div>
  );
}

/**
 * An import in the import worker: parsed and checked there, stored at once when the checks find
 * nothing, else kept there until the user imports anyway or cancels. Nothing is stored on an error.
 */
function useImportJob(projectId: number) {
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const [busy, setBusy] = useState(false);

  // A parsed corpus (kept in the import worker) whose checks the user has to answer before it is stored.
  const [pending, setPending] = useState<{ id: number; checks: string[]; documents: number; t0: number } | null>(null);

  const done = (r: ImportStored, t0: number) =>
    setResult({
      ok: true,
      message: `Imported ${count(r.documents, 'document')} and ${count(r.spans, 'labeled span')} in ${((performance.now() - t0) / 1000).toFixed(2)} s.`,
    });

  const run = async (request: Parameters<ReturnType<typeof importWorker>['parse']>[0]) => {
    setBusy(true);
    setResult(null);
    if (pending) void importWorker().drop(pending.id);
    setPending(null);
    try {
      const t0 = performance.now();
      // Read, parsed, checked and stored in a worker: the page stays responsive at any size.
      const r = await importWorker().parse(request);
      if ('stored' in r) done(r.stored, t0);
      else setPending({ id: r.id, checks: r.checks, documents: r.documents, t0 });
    } catch (err) {
      setResult({ ok: false, message: `Nothing was imported. ${(err as Error).message}` });
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      done(await importWorker().store(projectId, pending.id), pending.t0);
    } catch (err) {
      setResult({ ok: false, message: `Nothing was imported. ${(err as Error).message}` });
    } finally {
      setPending(null);
      setBusy(false);
    }
  };
  const cancel = () => {
    if (pending) void importWorker().drop(pending.id);
    setPending(null);
    setResult({ ok: false, message: 'Import cancelled: nothing was stored.' });
  };
  return { result, busy, pending, run, confirm, cancel };
}
