import { useVirtualizer } from '@tanstack/react-virtual';
import { useLiveQuery } from 'dexie-react-hooks';
import { useRef } from 'react';
import { Link } from 'wouter';
import { SPLITS, type Split } from '../../core/types';
import { db } from '../../db/instance';
import { useProjectId } from '../hooks';
import { useUi } from '../store';

const ROW = 34;

/** One row, loaded on its own when it scrolls into view: the list holds only keys. */
function DocRow({ id }: { id: number }) {
  const doc = useLiveQuery(() => db.documents.get(id), [id]);
  if (!doc) return <span className="muted">…</span>;
  return (
    <Link href={`/docs/${id}`} className="doc-row">
      <span className={`split split-${doc.split}`}>{doc.split}</span>
      <span className="doc-name">{doc.name}</span>
      <span className="doc-snippet">{doc.text.slice(0, 160)}</span>
      <span className="num muted">{doc.tokenCount}</span>
    </Link>
  );
}

export function DocumentsPage() {
  const projectId = useProjectId();
  const split = useUi((s) => s.splitFilter);
  const setSplit = useUi((s) => s.setSplitFilter);
  const ids = useLiveQuery(
    () =>
      split === 'all'
        ? db.documents.where('projectId').equals(projectId).primaryKeys()
        : db.documents.where('[projectId+split]').equals([projectId, split]).primaryKeys(),
    [projectId, split],
  );
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: ids?.length ?? 0, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 12 });

  return (
    <div>
      <div className="row">
        <label>
          Split{' '}
          <select value={split} onChange={(e) => setSplit(e.target.value as Split | 'all')} aria-label="Split filter">
            <option value="all">all</option>
            {SPLITS.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <span className="muted" data-testid="doc-list-count">
          {ids ? `${ids.length.toLocaleString()} documents` : 'loading…'}
        </span>
      </div>
      <div ref={parent} className="virtual-list" data-testid="doc-list">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => (
            <div key={v.key} className="virtual-row" style={{ transform: `translateY(${v.start}px)`, height: ROW }}>
              <DocRow id={ids![v.index]} />
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
