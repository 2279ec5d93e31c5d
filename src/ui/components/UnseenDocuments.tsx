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
import { layerRows, rowDocIds } from '../../db/layerStore';
import type { TrainMetrics } from '../../worker/trainJob';
import { TrainJob } from '../../worker/trainClient';
import { count } from '../hooks';

export function UnseenDocuments({ runId, projectId, cfg, metrics }: { runId: number; projectId: number; cfg: RunConfig; metrics: TrainMetrics }) {
  const layerId = metrics.predictedLayerId;
  // The decoupled model classifies candidate spans (the weak layer's among them) rather than tagging tokens.
  const spanModel = cfg.pipeline?.kind === 'decoupled';
  // The model reads the weak labels where its run did not say they were off; a span model, where it trained on a weak layer.
  // A model opened from a file makes its weak labels from its file's recipe, not from the project's layer.
  const imported = metrics.imported;
  const readsWeak =
    !imported && (spanModel ? !!metrics.weak : cfg.model?.weakFeatures && !metrics.features?.some((f) => f.startsWith('the weak labels as features: off')));
  const counts = useLiveQuery(async () => {
    if (layerId === undefined) return { unseen: 0, noWeak: 0 };
    const [docs, have] = await Promise.all([db.documents.where('projectId').equals(projectId).primaryKeys(), rowDocIds(db, layerId)]);
    const unseen = (docs as number[]).filter((d) => !have.has(d));
    if (!readsWeak || !unseen.length) return { unseen: unseen.length, noWeak: 0 };
    const aggregate = (await db.layers.where('projectId').equals(projectId).toArray()).find((l) => l.role === 'aggregate');
    const weak = aggregate ? await layerRows(db, aggregate, unseen) : unseen.map(() => undefined);
    return { unseen: unseen.length, noWeak: weak.filter((r) => !r).length };
  }, [projectId, layerId, readsWeak]);
  const [state, setState] = useState<{ busy?: string; error?: string }>({});
  if (layerId === undefined || counts === undefined) return null;
  const { unseen, noWeak } = counts;
  const later = metrics.later ?? [];
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
          {new Date(x.at).toLocaleString()}: its model labeled {count(x.documents, 'document')}
          {imported ? '' : ' that came in after it finished'} ({count(x.spans, 'span')}), into the layer <strong>run {runId}</strong>.
        </p>
      ))}
      {unseen > 0 && imported && (
        <p>
          This model came from the file {imported.file} and has not labeled {count(unseen, 'document')} of this project.{' '}
          <button type="button" onClick={label} disabled={!!state.busy}>
            Label {unseen === 1 ? 'it' : 'them'} with this model
          </button>{' '}
          <span className="muted">
            (its features made as its file says: its own dictionary, and weak labels made on this project's text by its file's sources and label model; its
            scores are then those of its predictions on this project's gold)
          </span>
        </p>
      )}
      {unseen > 0 && !imported && (
        <p>
          {count(unseen, 'document')} came into the project after this run finished, and its model has not labeled {unseen === 1 ? 'it' : 'them'}.{' '}
          <button type="button" onClick={label} disabled={!!state.busy}>
            Label {unseen === 1 ? 'it' : 'them'} with this model
          </button>{' '}
          <span className="muted">
            {spanModel
              ? `(as its run read its own: its candidates are every short span, the gazetteers' matches and the weak labels' spans as they are now${cfg.pipeline?.kind === 'decoupled' && cfg.pipeline.proposer ? ', and its token model’s' : ''}; the run's scores stay those of its end)`
              : "(as its run read its own: the gazetteers through its dictionary groups, and the weak labels as they are now; the run's scores stay those of its end)"}
          </span>
        </p>
      )}
      {noWeak > 0 && (
        <p className="warning" data-testid="unseen-no-weak">
          The model reads the weak labels {spanModel ? 'as candidates' : 'as features'}, and{' '}
          {noWeak === unseen ? (unseen === 1 ? 'it has' : 'they have') : `${noWeak} of them have`} none yet:{' '}
          <Link href="/weak">make the weak labels again</Link> first, or {noWeak === 1 ? 'it is' : 'they are'} labeled without them.
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
