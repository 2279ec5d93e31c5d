import { useLiveQuery } from 'dexie-react-hooks';
import { count } from '../hooks';
import { useState } from 'react';
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
      const n = (k: number, what: string) => `${k.toLocaleString('en-US')} ${what}${k === 1 ? '' : 's'}`;
      setImported({
        id: r.projectId,
        text: `Imported "${r.name}": ${n(r.documents, 'document')}, ${n(r.layers, 'label layer')}, ${n(r.gazetteers, 'gazetteer')} and ${n(r.rules, 'rule')}.`,
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
        <p className="muted">No project yet: create one, or load the demo.</p>
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
        <span className="muted">a file the project's Overview exported: a new project, nothing here changed</span>
      </div>
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
