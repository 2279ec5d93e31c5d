/**
 * A model file (downloaded from a run's page, or written by `studio train --out`) opened into this
 * project as a finished run (db/runs.ts openModelFile): its run page then labels the project's
 * documents with it, its features made as its file says, and scores it on the project's gold.
 */
import { useState } from 'react';
import { Link } from 'wouter';
import { checkModelFile } from '../../core/modelFile';
import { readFileText } from '../../core/formats/text';
import { db } from '../../db/instance';
import { openModelFile } from '../../db/runs';

export function OpenModelFile({ projectId, busy }: { projectId: number; busy: boolean }) {
  const [state, setState] = useState<{ reading?: boolean; error?: string; opened?: number }>({});
  const open = async (input: HTMLInputElement) => {
    const f = input.files?.[0];
    if (!f) return;
    setState({ reading: true });
    try {
      const { text } = await readFileText(f);
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        throw new Error(`${f.name}: not a model file (${(e as Error).message})`);
      }
      const opened = await openModelFile(db, projectId, f.name, checkModelFile(raw, f.name));
      setState({ opened });
    } catch (e) {
      setState({ error: (e as Error).message });
    } finally {
      input.value = '';
    }
  };
  return (
    <div className="stack" data-testid="open-model-file">
      <p className="row">
        <label>
          Open a model file{' '}
          <input
            type="file"
            accept=".json,application/json"
            aria-label="Model file"
            disabled={busy || state.reading}
            onChange={(e) => void open(e.currentTarget)}
          />
        </label>
        <span className="muted">
          a model downloaded from a run's page, here or in another project (or written by <code>studio train --out</code>): a run of its own, which labels this
          project's documents with the dictionary and weak labels its file carries
        </span>
      </p>
      {state.opened !== undefined && (
        <p role="status" data-testid="open-model-result">
          Opened as run {state.opened}: <Link href={`/runs/${state.opened}`}>label the documents with it</Link>.
        </p>
      )}
      {state.error && (
        <p role="alert" className="error" data-testid="open-model-error">
          {state.error}
        </p>
      )}
    </div>
  );
}
