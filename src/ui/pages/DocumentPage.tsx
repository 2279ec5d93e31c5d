import { useLiveQuery } from 'dexie-react-hooks';
import { useMemo } from 'react';
import { Link, useParams } from 'wouter';
import type { Span } from '../../core/types';
import { UNKNOWN_TYPE } from '../../core/types';
import { db } from '../../db/instance';
import { moveDocuments } from '../../db/repo';
import { docRows } from '../../db/layerStore';
import { SPLITS, type Split } from '../../core/types';
import { SpanText } from '../components/SpanText';
import { routeId, useProjectId, useTypeColors } from '../hooks';
import { useUi } from '../store';
import { LayerOptions } from '../components/LayerOptions';

/** Tokens that two weak sources label with different known types. */
function conflicts(bySource: { spans: Span[] }[]): Set<number> {
  const seen = new Map<number, string>();
  const out = new Set<number>();
  for (const { spans } of bySource) {
    for (const s of spans) {
      if (s.label === UNKNOWN_TYPE) continue;
      for (let t = s.start; t < s.end; t++) {
        const prev = seen.get(t);
        if (prev !== undefined && prev !== s.label) out.add(t);
        seen.set(t, s.label);
      }
    }
  }
  return out;
}

export function DocumentPage() {
  const projectId = useProjectId();
  const rawId = useParams<{ docId: string }>().docId;
  const docId = routeId(rawId);
  const colors = useTypeColors(projectId);
  const chosen = useUi((s) => s.layerByProject[projectId]);
  const setLayer = useUi((s) => s.setLayer);
  const data = useLiveQuery(async () => {
    const doc = await db.documents.get(docId);
    if (!doc || doc.projectId !== projectId) return null;
    const layers = await db.layers.where('projectId').equals(projectId).sortBy('id');
    const anns = await docRows(db, layers, docId);
    const byLayer = new Map(anns.flatMap((a) => (a ? [[a.layerId, a] as const] : [])));
    const ids = await db.documents.where('projectId').equals(projectId).primaryKeys();
    const at = ids.indexOf(docId);
    return { doc, layers, byLayer, prev: ids[at - 1], next: ids[at + 1] };
  }, [docId, projectId]);

  const sources = useMemo(
    () =>
      data ? data.layers.filter((l) => l.kind === 'weak' && l.role === 'source').map((l) => ({ layer: l, spans: data.byLayer.get(l.id!)?.spans ?? [] })) : [],
    [data],
  );
  const flagged = useMemo(() => conflicts(sources), [sources]);

  if (data === undefined) return <p className="muted">Loading…</p>;
  if (data === null)
    return (
      <p role="alert" className="error">
        Document {JSON.stringify(decodeURIComponent(rawId))} is not in this project.
      </p>
    );
  const { doc, layers, byLayer } = data;
  const layerId = chosen !== undefined && layers.some((l) => l.id === chosen) ? chosen : layers.find((l) => byLayer.has(l.id!))?.id;
  const ann = layerId !== undefined ? byLayer.get(layerId) : undefined;

  return (
    <div>
      <div className="row">
        {data.prev !== undefined && <Link href={`/docs/${data.prev}`}>← previous</Link>}
        <strong data-testid="doc-title">{doc.name}</strong>
        <select
          aria-label="Document split"
          className={`split split-${doc.split}`}
          value={doc.split}
          onChange={(e) => void moveDocuments(db, projectId, [{ docId, split: e.target.value as Split }])}
        >
          {SPLITS.map((sp) => (
            <option key={sp}>{sp}</option>
          ))}
        </select>
        <span className="muted">
          {doc.tokenCount} tokens · {doc.sentenceStarts.length} sentences
        </span>
        {data.next !== undefined && <Link href={`/docs/${data.next}`}>next →</Link>}
        <Link href={`/annotate/${docId}`}>Annotate</Link>
        <label className="push">
          Layer{' '}
          <select aria-label="Label layer" value={layerId ?? ''} onChange={(e) => setLayer(projectId, Number(e.target.value))}>
            <LayerOptions layers={layers} withKind />
          </select>
        </label>
      </div>
      <SpanText text={doc.text} offsets={doc.offsets} spans={ann?.spans ?? []} colors={colors} flagged={flagged} />
      {sources.length > 0 && (
        <>
          <h2>Weak sources</h2>
          {flagged.size > 0 && <p className="muted">Tokens underlined in red are labeled with different types by different sources.</p>}
          <table className="grid" data-testid="source-spans">
            <thead>
              <tr>
                <th>Source</th>
                <th>Spans in this document</th>
              </tr>
            </thead>
            <tbody>
              {sources.map(({ layer, spans }) => (
                <tr key={layer.id}>
                  <td>{layer.name}</td>
                  <td>
                    {spans.length === 0 ? (
                      <span className="muted">none</span>
                    ) : (
                      spans.map((s, k) => (
                        <span
                          key={k}
                          className={`chip${[...Array(s.end - s.start).keys()].some((i) => flagged.has(s.start + i)) ? ' conflict' : ''}`}
                          style={{ borderColor: colors.get(s.label) ?? '#888' }}
                        >
                          {doc.text.slice(doc.offsets[2 * s.start], doc.offsets[2 * s.end - 1])}{' '}
                          <small>{s.candidates ? s.candidates.join('/') : s.label}</small>
                        </span>
                      ))
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
