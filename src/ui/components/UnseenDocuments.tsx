/**
 * A finished run's model on the documents that came into the project after it finished: how many
 * there are, one button that labels them into the run's predicted layer (in the training worker),
 * and each time it did. The run's scores stay those of its end.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useState } from 'react';
import { Link } from 'wouter';
import type { RunConfig } from '../../core/runConfig';
import { db } from '../../db/instance';
import { rowDocIds } from '../../db/layerStore';
import type { TrainMetrics } from '../../worker/trainJob';
import { TrainJob } from '../../worker/trainClient';
import { count } from '../hooks';

export function UnseenDocuments({ runId, projectId, cfg, metrics }: { runId: number; projectId: number; cfg: RunConfig; metrics: TrainMetrics }) {
  const layerId = metrics.predictedLayerId;
  const unseen = useLiveQuery(async () => {
    if (layerId === undefined) return 0;
    const [docs, have] = await Promise.all([db.documents.where('projectId').equals(projectId).primaryKeys(), rowDocIds(db, layerId)]);
    return docs.filter((d) => !have.has(d as number)).length;
  }, [projectId, layerId]);
  const [state, setState] = useState<{ busy?: string; error?: string }>({});
  if (layerId === undefined || unseen === undefined) return null;
  const later = metrics.later ?? [];
  // The decoupled model proposes spans from its own candidates and keeps no tagger: it labels the documents of its run only.
  const spanModel = cfg.pipeline?.kind === 'decoupled';
  const label = async () => {
    setState({ busy: 'starting the model' });
    try {
      await new TrainJob().predictUnseen(runId, (e) => {
        if (e.kind === 'stage') setState({ busy: e.stage });
      });
      setState({});
    } catch (e) {
      setState({ error: (e as Error).message });
    }
  };
  if (!unseen && !later.length && !state.error) return null;
  return (
    <div className="stack" data-testid="unseen-documents">
      {later.map((x) => (
        <p key={x.at} className="muted">
          {new Date(x.at).toLocaleString()}: its model labeled {count(x.documents, 'document')} that came in after it finished ({count(x.spans, 'span')}), into
          the layer <strong>run {runId}</strong>.
        </p>
      ))}
      {unseen > 0 && (
        <p>
          {count(unseen, 'document')} came into the project after this run finished, and its model has not labeled {unseen === 1 ? 'it' : 'them'}.{' '}
          {spanModel ? (
            'This method’s model proposes spans from its own candidates and keeps no tagger to label new text with: train a run to label them.'
          ) : (
            <>
              <button type="button" onClick={label} disabled={!!state.busy}>
                Label {unseen === 1 ? 'it' : 'them'} with this model
              </button>{' '}
              <span className="muted">
                (as its run read its own: the gazetteers through its dictionary groups, and the weak labels as they are now, so{' '}
                <Link href="/weak">make weak labels</Link> first where the model reads them; the run's scores stay those of its end)
              </span>
            </>
          )}
        </p>
      )}
      {state.busy && (
        <p role="status" className="muted" data-testid="unseen-progress">
          {state.busy}…
        </p>
      )}
      {state.error && (
        <p role="alert" className="error" data-testid="unseen-error">
          Labeling failed: {state.error}
        </p>
      )}
    </div>
  );
}
