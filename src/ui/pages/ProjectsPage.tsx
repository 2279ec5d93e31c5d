import { useLiveQuery } from 'dexie-react-hooks';
import { count } from '../hooks';
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { loadDemo } from '../../db/demo';
import { db } from '../../db/instance';
import { createProject, deleteProject } from '../../db/repo';
import { fetchDemoAsset } from '../demoAsset';
import { importWorker } from '../../worker/importClient';

export function ProjectsPage() {
  const [, navigate] = useLocation();
  const projects = useLiveQuery(async () => {
    const rows = await db.projects.orderBy('id').toArray();
    return Promise.all(rows.map(async (p) => ({ ...p, documents: await db.documents.where('projectId').equals(p.id!).count() })));
  });
  const [name, setName] = useState('');
  const [types, setTypes] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [imported, setImported] = useState<{ id: number; text: string } | null>(null);
  const [reading, setReading] = useState(false);
  const openFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setError(null);
    setImported(null);
    setReading(true);
    try {
      const r = await importWorker().importProject(file);
      const n = (k: number, what: string, many = `${what}s`) => `${k.toLocaleString('en-US')} ${k === 1 ? what : many}`;
      setImported({
        id: r.projectId,
        text: `Imported "${r.name}": ${n(r.documents, 'document')}, ${n(r.layers, 'label layer')}, ${n(r.gazetteers, 'gazetteer')}, ${n(r.rules, 'rule')} and ${n(r.runs, "run's record", "runs' records")}.`,
      });
    } catch (err) {
      setError(`Nothing was imported. ${(err as Error).message}`);
    } finally {
      setReading(false);
      input.value = '';
    }
  };

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createProject(
        db,
        name,
        types
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      );
      setName('');
      setTypes('');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const demo = async () => {
    setBusy(true);
    setError(null);
    try {
      // The demo is one project: when it is here already, open it rather than make a second copy.
      const existing = await db.projects.filter((p) => !!p.demo).first();
      navigate(`/p/${existing ? existing.id : await loadDemo(db, await fetchDemoAsset())}`);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>Projects</h1>
      {projects === undefined ? (
        <p className="muted">Loading…</p>
      ) : projects.length === 0 ? (
        <p className="muted">No project yet: create one, load the demo, or open a project file.</p>
      ) : (
        <ul className="cards" data-testid="project-list">
          {projects.map((p) => (
            <li key={p.id} className="card">
              <Link href={`/p/${p.id}`} className="card-title">
                {p.name}
              </Link>
              <div className="muted">
                {count(p.documents, 'document')} · {p.types.map((t) => t.name).join(', ') || 'no types yet'}
              </div>
              <button
                type="button"
                className="link danger"
                onClick={() => {
                  if (confirm(`Delete project "${p.name}" and everything in it?`)) void deleteProject(db, p.id!);
                }}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={create} className="row">
        <input aria-label="Project name" placeholder="New project name" value={name} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Entity types" placeholder="Types, comma-separated (PER, ORG, …)" value={types} onChange={(e) => setTypes(e.target.value)} />
        <button type="submit">Create project</button>
        <button type="button" onClick={demo} disabled={busy}>
          {busy ? 'Loading demo…' : projects?.some((p) => p.demo) ? 'Open the demo project' : 'Load the demo project'}
        </button>
      </form>
      <div className="row">
        <label>
          Open a project file{' '}
          <input type="file" accept=".json,application/json" aria-label="Project file" disabled={reading} onChange={(e) => void openFile(e.currentTarget)} />
        </label>
        <span className="muted" data-testid="project-file-hint">
          {reading ? 'Reading and checking the file, then storing it…' : "a file the project's Overview exported: a new project, nothing here changed"}
        </span>
      </div>
      <StorageStatus />
      {imported && (
        <p role="status" data-testid="project-import-result">
          {imported.text} <Link href={`/p/${imported.id}`}>Open it</Link>
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}

/** Bytes as a person reads them. */
const size = (b: number) => (b >= 1e9 ? `${(b / 1e9).toFixed(1)} GB` : b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${Math.ceil(b / 1e3)} kB`);

/**
 * Where the projects live and whether the browser may clear them: its storage is "best-effort"
 * unless the site asks for it to be kept (navigator.storage.persist) and the browser grants it.
 * Under storage pressure a best-effort site's IndexedDB can be evicted whole, with no warning.
 */
interface StorageState {
  persisted: boolean | null;
  usage?: number;
  quota?: number;
  asked?: boolean;
}

async function readStorage(asked = false): Promise<StorageState> {
  const storage = globalThis.navigator?.storage;
  if (!storage?.persisted) return { persisted: null, asked };
  const [persisted, estimate] = await Promise.all([storage.persisted(), storage.estimate?.() ?? Promise.resolve<StorageEstimate>({})]);
  return { persisted, usage: estimate.usage, quota: estimate.quota, asked };
}

function StorageStatus() {
  const [state, setState] = useState<StorageState>({ persisted: null });
  useEffect(() => {
    void readStorage().then(setState);
  }, []);
  const ask = async () => {
    await globalThis.navigator.storage.persist();
    setState(await readStorage(true));
  };
  const used = state.usage !== undefined && state.quota ? ` It holds ${size(state.usage)} of the ${size(state.quota)} the browser allows this site.` : '';
  return (
    <p className="muted" data-testid="storage-status" data-persisted={String(state.persisted)}>
      {state.persisted === null ? (
        <>This browser does not say whether it keeps the studio's storage: export projects you cannot lose.</>
      ) : state.persisted ? (
        <>The projects live in this browser's storage, which it keeps (persistent).{used}</>
      ) : (
        <>
          The projects live in this browser's storage, which it may clear when the disk runs short (best-effort): export projects you cannot lose, or{' '}
          <button type="button" className="link" onClick={() => void ask()}>
            ask it to keep them
          </button>
          .{used}
          {state.asked ? ' The browser did not grant it this time (Chromium grants it to sites used often or installed).' : ''}
        </>
      )}
    </p>
  );
}
