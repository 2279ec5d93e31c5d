/**
 * What a run's method recorded, drawn by the method's own view (src/methods/*.view.tsx): this
 * loads the run's config and, where a view reads per-token records that the run has, its
 * training documents with their weak and gold labels per token, once for every view.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { tokenLabels } from '../../core/reviewSignals';
import { tokenTexts } from '../../core/types';
import { db } from '../../db/instance';
import { layerRows } from '../../db/layerStore';
import { runSignals } from '../../db/repo';
import type { MethodViewProps, RunDocument } from '../../methods/view';
import { METHOD_VIEWS } from '../../methods/views';
import type { TrainMetrics } from '../../worker/trainJob';

const FIELDS = [...new Set(METHOD_VIEWS.flatMap((v) => v.fields ?? []))];

/** The run's config, and its documents that carry a per-token record some view draws (null: none). */
async function loadRun(runId: number): Promise<Pick<MethodViewProps, 'config' | 'docs'> | null> {
  const run = await db.runs.get(runId);
  if (!run) return null;
  const cfg = run.config as MethodViewProps['config'] & { data?: { layerId?: number; goldLayerId?: number } };
  const rows = (await runSignals(db, runId).toArray()).filter((r) => FIELDS.some((f) => r[f] !== undefined));
  if (!rows.length) return { config: cfg, docs: null };
  const ids = rows.map((r) => r.docId);
  const labelsOf = (layer: number | undefined) => (layer === undefined ? Promise.resolve(rows.map(() => undefined)) : layerRows(db, layer, ids));
  const [docs, weak, gold] = await Promise.all([db.documents.bulkGet(ids), labelsOf(cfg.data?.layerId), labelsOf(cfg.data?.goldLayerId)]);
  const out: RunDocument[] = [];
  rows.forEach((r, k) => {
    const d = docs[k];
    if (!d) return;
    const words = tokenTexts(d);
    const g = gold[k];
    out.push({ docId: r.docId, words, weak: tokenLabels(weak[k]?.spans ?? [], words.length), gold: g ? tokenLabels(g.spans, words.length) : null, signals: r });
  });
  return { config: cfg, docs: out };
}

export function SignalDiagnostics({ runId, metrics }: { runId: number; metrics: TrainMetrics }) {
  const data = useLiveQuery(() => loadRun(runId), [runId]);
  if (!data) return null;
  return (
    <section className="stack" data-testid={`signals-${runId}`}>
      {METHOD_VIEWS.map((v) => (
        <v.View key={v.id} runId={runId} metrics={metrics} config={data.config} docs={data.docs} />
      ))}
    </section>
  );
}
