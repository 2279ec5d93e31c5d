/**
 * A finished run's model as one file (core/modelFile.ts): its weights, vocabularies and shifts, and
 * how to make the features it reads on new text (the dictionary, the weak labels' recipe), made in
 * the training worker; `studio predict` labels any text with it, as the run labeled the project.
 */
import { useState } from 'react';
import type { RunConfig } from '../../core/runConfig';
import { projectFileName } from '../../db/projectFile';
import { TrainJob } from '../../worker/trainClient';
import { download } from '../hooks';

/** The file's name: the project's (as its project file names it) and the run's. */
export const modelFileName = (project: string, runId: number) => projectFileName(project).replace(/\.ner-studio\.json$/, `-run-${runId}.model.json`);

export function DownloadModel({ runId, project, cfg }: { runId: number; project: string; cfg: RunConfig }) {
  const [state, setState] = useState<{ busy?: string; error?: string; done?: { name: string; bytes: number } }>({});
  if (cfg.pipeline?.kind === 'decoupled')
    return (
      <p className="muted" data-testid="download-model">
        Its model classifies the candidate spans the project makes (the decoupled method), so it labels new text here, not as a file: import the text, then
        label it with this model.
      </p>
    );
  const go = async () => {
    setState({ busy: 'starting' });
    try {
      const text = await new TrainJob().exportModel(runId, (e) => {
        if (e.kind === 'stage') setState({ busy: e.stage });
      });
      const name = modelFileName(project, runId);
      download(name, text, 'application/json');
      setState({ done: { name, bytes: text.length } });
    } catch (e) {
      setState({ error: (e as Error).message });
    }
  };
  return (
    <div className="stack" data-testid="download-model">
      <p>
        <button type="button" onClick={go} disabled={!!state.busy}>
          Download the model
        </button>{' '}
        <span className="muted">
          one file with its weights and how to make the features it reads (the dictionary, the weak labels' sources and label model), for{' '}
          <code>npm run studio -- predict --model FILE --corpus TEXT --out OUT.conll</code>
        </span>
      </p>
      {state.busy && (
        <p role="status" className="muted" data-testid="download-model-progress">
          {state.busy}…
        </p>
      )}
      {state.done && (
        <p className="muted" data-testid="download-model-done">
          Downloaded {state.done.name} ({(state.done.bytes / 1e6).toFixed(1)} MB).
        </p>
      )}
      {state.error && (
        <p role="alert" className="error" data-testid="download-model-error">
          The model could not be downloaded: {state.error}
        </p>
      )}
    </div>
  );
}
