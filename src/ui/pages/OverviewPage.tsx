import { useState } from 'react';
import { SPLITS, TAG_SCHEMES, type Split, type TagScheme } from '../../core/types';
import type { ExportFormat } from '../../db/exportLayer';
import { queryOnce, useWorkerQuery } from '../workerQuery';
import { NextSteps } from '../components/NextSteps';
import { download, useProject, useProjectId } from '../hooks';
import { db } from '../../db/instance';
import { renameProject } from '../../db/repo';

export function OverviewPage() {
  const projectId = useProjectId();
  const project = useProject(projectId);
  // Documents per split come from the index at once; tokens and layers when every row is read.
  const counts = useWorkerQuery('projectCounts', [projectId]);
  const stats = useWorkerQuery('projectStats', [projectId]);
  const [format, setFormat] = useState<ExportFormat>('conll');
  const [scheme, setScheme] = useState<TagScheme>('BIO');
  const [exported, setExported] = useState<string | null>(null);
  if (!(stats || counts) || !project) return <p className="muted">Counting…</p>;
  const types = [...project.types.map((t) => t.name), ...(stats?.layers.some((l) => l.perType['?']) ? ['?'] : [])];
  const docsOf = (s: Split) => stats?.bySplit[s].documents ?? counts?.bySplit[s] ?? 0;
  const tokens = (n: number | undefined) => (n === undefined ? <span className="muted">counting…</span> : n.toLocaleString());

  // Built in the query worker (it reads every document), then downloaded here.
  const exportLayer = async (layerId: number, name: string) => {
    const out = await queryOnce('exportLayer', projectId, layerId, name, format, scheme);
    for (const f of out.files) download(f.name, f.text, f.type);
    setExported(out.message);
  };

  const goldOnDev = stats?.layers.some((l) => l.kind === 'gold' && l.devDocuments > 0);
  const documents = stats?.documents ?? counts?.documents ?? 0;
  return (
    <div>
      {stats && <NextSteps projectId={projectId} documents={stats.documents} hasDevGold={!!goldOnDev} />}
      <SplitTable docsOf={docsOf} tokens={tokens} stats={stats} documents={documents} />

      <h2>Label layers</h2>
      {!stats ? (
        <p className="muted">Counting the label layers…</p>
      ) : stats.layers.length === 0 ? (
        <p className="muted">No labels yet: import a labeled file, or make weak labels from gazetteers and rules.</p>
      ) : (
        <>
          <div className="row">
            <label>
              Export as{' '}
              <select value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)}>
                <option value="conll">CoNLL</option>
                <option value="lines">sentence lines + label file</option>
                <option value="jsonl">JSONL (character spans)</option>
              </select>
            </label>
            {format !== 'jsonl' && (
              <label>
                scheme{' '}
                <select value={scheme} onChange={(e) => setScheme(e.target.value as TagScheme)}>
                  {TAG_SCHEMES.map((s) => (
                    <option key={s}>{s}</option>
                  ))}
                </select>
              </label>
            )}
          </div>
          {exported && (
            <p role="status" data-testid="export-result">
              {exported}
            </p>
          )}
          <table className="grid" data-testid="layer-table">
            <thead>
              <tr>
                <th>Layer</th>
                <th>Kind</th>
                <th>Documents</th>
                <th>Entities</th>
                {types.map((t) => (
                  <th key={t}>{t === '?' ? 'unknown type' : t}</th>
                ))}
                <th />
              </tr>
            </thead>
            <tbody>
              {stats.layers.map((l) => (
                <tr key={l.id} data-layer={l.name}>
                  <td>{l.name}</td>
                  <td>{l.kind}</td>
                  <td className="num">{l.documents.toLocaleString()}</td>
                  <td className="num">{l.spans.toLocaleString()}</td>
                  {types.map((t) => (
                    <td key={t} className="num">
                      {(l.perType[t] ?? 0).toLocaleString()}
                    </td>
                  ))}
                  <td>
                    <button type="button" className="link" onClick={() => void exportLayer(l.id, `${project.name}-${l.name}`)}>
                      Export
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <ProjectBackup projectId={projectId} name={project.name} />
    </div>
  );
}

/** The whole project as one file (db/projectFile.ts), the only copy outside this browser's storage. */
function ProjectBackup({ projectId, name }: { projectId: number; name: string }) {
  const [state, setState] = useState<{ busy?: boolean; message?: string; error?: string }>({});
  const [newName, setNewName] = useState(name);
  const rename = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      await renameProject(db, projectId, newName);
      setState({ message: `Renamed the project "${newName.trim()}".` });
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  const save = async () => {
    setState({ busy: true });
    try {
      const out = await queryOnce('exportProject', projectId);
      download(out.name, out.blob);
      setState({ message: out.message });
    } catch (e) {
      setState({ error: `The project was not exported: ${(e as Error).message}` });
    }
  };
  return (
    <section className="stack" data-testid="project-backup">
      <h2>The project</h2>
      <form className="row" onSubmit={(e) => void rename(e)}>
        <label>
          Name <input aria-label="Project name" value={newName} aria-invalid={!newName.trim()} onChange={(e) => setNewName(e.target.value)} />
        </label>
        <button type="submit" disabled={!newName.trim() || newName.trim() === name}>
          Rename
        </button>
        {!newName.trim() && <span className="field-error">a project needs a name</span>}
      </form>
      <p className="muted">
        This browser's storage is the only copy of the project. The file holds its documents and splits, every gold, corrected and weak layer, the gazetteers,
        stop lists and rules, and the finished runs' records (not their models): keep it as a backup, or open it in another browser from the project list.
      </p>
      <div className="row">
        <button type="button" onClick={() => void save()} disabled={state.busy}>
          {state.busy ? 'Exporting…' : 'Export the project'}
        </button>
      </div>
      {state.message && (
        <p role="status" data-testid="project-result">
          {state.message}
        </p>
      )}
      {state.error && (
        <p role="alert" className="error">
          {state.error}
        </p>
      )}
    </section>
  );
}

/** Documents and tokens per split (tokens once every row is read). */
function SplitTable(p: {
  docsOf: (s: Split) => number;
  tokens: (n: number | undefined) => React.ReactNode;
  stats: { bySplit: Record<Split, { tokens: number }>; tokens: number } | undefined | null;
  documents: number;
}) {
  const { docsOf, tokens, stats, documents } = p;
  return (
    <table className="grid" data-testid="split-table">
      <thead>
        <tr>
          <th>Split</th>
          <th>Documents</th>
          <th>Tokens</th>
        </tr>
      </thead>
      <tbody>
        {SPLITS.map((s) => (
          <tr key={s}>
            <td>{s}</td>
            <td className="num">{docsOf(s).toLocaleString()}</td>
            <td className="num">{tokens(stats?.bySplit[s].tokens)}</td>
          </tr>
        ))}
        <tr className="total">
          <td>all</td>
          <td className="num" data-testid="doc-count">
            {documents.toLocaleString()}
          </td>
          <td className="num" data-testid="token-count">
            {tokens(stats?.tokens)}
          </td>
        </tr>
      </tbody>
    </table>
  );
}
