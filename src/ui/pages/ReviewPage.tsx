/**
 * A review queue: sentences ranked by how much a weak layer and a run's predictions disagree on
 * their tokens (a token counts when the two give it different labels, O included), each entry
 * saying why it is there and opening the annotation editor. The other noise signals of the issue
 * (RoSTER's removed tokens, PU's lowest O-values, NEEDLE's completions) are not queued yet.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useState } from 'react';
import { Link } from 'wouter';
import type { Span } from '../../core/types';
import { sentenceRanges, tokenTexts } from '../../core/types';
import { db } from '../../db/instance';
import { layerAnnotations } from '../../db/repo';
import { useProjectId } from '../hooks';

/** Per token, the label a span set gives it ('O' outside spans). */
function tokenLabels(spans: readonly Span[], n: number): string[] {
  const out = new Array<string>(n).fill('O');
  for (const s of spans) for (let t = s.start; t < s.end && t < n; t++) out[t] = s.label;
  return out;
}

export function ReviewPage() {
  const projectId = useProjectId();
  const layers = useLiveQuery(() => db.layers.where('projectId').equals(projectId).sortBy('id'), [projectId]);
  const [weakId, setWeakId] = useState<number | null>(null);
  const [predId, setPredId] = useState<number | null>(null);
  const weak = weakId ?? layers?.find((l) => l.role === 'aggregate')?.id ?? null;
  const pred = predId ?? [...(layers ?? [])].reverse().find((l) => l.kind === 'predicted')?.id ?? null;
  const queue = useLiveQuery(async () => {
    if (weak === null || pred === null) return [];
    const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
    const ids = docs.map((d) => d.id!);
    const [w, p] = await Promise.all([layerAnnotations(db, weak, ids), layerAnnotations(db, pred, ids)]);
    const out: { docId: number; name: string; sentence: number; count: number; examples: string[] }[] = [];
    docs.forEach((d, k) => {
      const n = d.offsets.length >> 1;
      const [lw, lp] = [tokenLabels(w[k].spans, n), tokenLabels(p[k].spans, n)];
      const words = tokenTexts(d);
      sentenceRanges(d).forEach(([a, b], si) => {
        const diff: string[] = [];
        for (let t = a; t < b; t++) if (lw[t] !== lp[t] && lw[t] !== '?') diff.push(`${words[t]} (weak ${lw[t]}, run ${lp[t]})`);
        if (diff.length) out.push({ docId: d.id!, name: d.name, sentence: si + 1, count: diff.length, examples: diff.slice(0, 4) });
      });
    });
    return out.sort((x, y) => y.count - x.count || x.docId - y.docId || x.sentence - y.sentence);
  }, [projectId, weak, pred]);

  return (
    <div className="stack">
      <div className="row">
        <label>
          Weak layer{' '}
          <select aria-label="Review weak layer" value={weak ?? ''} onChange={(e) => setWeakId(Number(e.target.value))}>
            {(layers ?? []).filter((l) => l.kind === 'weak').map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          against{' '}
          <select aria-label="Review run layer" value={pred ?? ''} onChange={(e) => setPredId(Number(e.target.value))}>
            {(layers ?? []).filter((l) => l.kind === 'predicted').map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">sentences where they disagree on the most tokens first</span>
      </div>
      {pred === null && <p className="muted">Train a run first: the queue compares its predictions with the weak labels.</p>}
      <ol data-testid="review-queue">
        {(queue ?? []).slice(0, 200).map((q) => (
          <li key={`${q.docId}:${q.sentence}`} data-doc={q.docId} data-count={q.count}>
            <Link href={`/annotate/${q.docId}`}>
              {q.name}, sentence {q.sentence}
            </Link>{' '}
            <span className="muted">
              — {q.count} tokens where the weak labels and the run disagree: {q.examples.join('; ')}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
