import { useEffect, useState } from 'react';
import { Link, Route, Router, Switch } from 'wouter';
import { useHashLocation } from 'wouter/use-hash-location';
import { ensureDemoOnFirstStart } from '../db/demo';
import { markInterruptedRuns } from '../db/repo';
import { runLockName } from '../worker/trainClient';
import { db } from '../db/instance';
import { fetchDemoAsset } from './demoAsset';
import { ProjectLayout } from './pages/ProjectLayout';
import { ProjectsPage } from './pages/ProjectsPage';

export function App() {
  const [status, setStatus] = useState<'starting' | 'ready' | string>('starting');
  useEffect(() => {
    ensureDemoOnFirstStart(db, fetchDemoAsset)
      .then(async () => {
        // A run left "running" by a page that went away is not running: say so (it can resume).
        const held = new Set(((await navigator.locks?.query())?.held ?? []).map((l) => l.name ?? ''));
        await markInterruptedRuns(db, held, runLockName);
      })
      .then(() => setStatus('ready'))
      .catch((e: Error) => setStatus(`The demo project could not be loaded: ${e.message}`));
  }, []);
  return (
    <Router hook={useHashLocation}>
      <header className="topbar">
        <Link href="/" className="brand">
          NER Studio
        </Link>
        <span className="muted">weak supervision, in your browser; nothing leaves this machine</span>
      </header>
      <main>
        {status === 'starting' ? (
          <p className="muted" data-testid="starting">
            Opening the local database…
          </p>
        ) : (
          <>
            {status !== 'ready' && (
              <p role="alert" className="error">
                {status}
              </p>
            )}
            <Switch>
              <Route path="/" component={ProjectsPage} />
              <Route path="/p/:id" nest>
                <ProjectLayout />
              </Route>
              <Route>
                <p>
                  Nothing here. <Link href="/">Back to the projects.</Link>
                </p>
              </Route>
            </Switch>
          </>
        )}
      </main>
    </Router>
  );
}
