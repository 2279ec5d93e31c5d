import { useVirtualizer } from '@tanstack/react-virtual';
import { useLiveQuery } from 'dexie-react-hooks';
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { SPLITS, type Split } from '../../core/types';
import { parseRatios, splitByRatio } from '../../core/splits';
import { db } from '../../db/instance';
import { moveDocuments } from '../../db/repo';
import { useProjectId, count } from '../hooks';
import { useWorkerQuery } from '../workerQuery';
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

/** Splits the listed documents anew by ratio (seeded): one file becomes train, dev and test. */
function Resplit({ projectId, ids }: { projectId: number; ids: ArrayLike<number> }) {
  const [ratios, setRatios] = useState('80/10/10');
  const [seed, setSeed] = useState('1');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  let problem: string | null = null;
  try {
    parseRatios(ratios);
    if (!/^\d+$/.test(seed.trim())) problem = `split seed: "${seed}" is not a whole number`;
  } catch (e) {
    problem = (e as Error).message;
  }
  const go = async () => {
    try {
      const splits = splitByRatio(ids.length, parseRatios(ratios), Number(seed));
      const moved = await moveDocuments(
        db,
        projectId,
        Array.from(ids, (docId, k) => ({ docId, split: splits[k] })),
      );
      const inSplit = (s: string) => splits.filter((x) => x === s).length;
      setMessage({
        ok: true,
        text: `Split ${count(ids.length, 'document')}: ${inSplit('train')} train, ${inSplit('dev')} dev, ${inSplit('test')} test (${moved} moved).`,
      });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <fieldset className="row plain" aria-label="Split these documents by ratio">
      <label>
        split these by ratio train/dev/test <input aria-label="Resplit ratios" className="ratio" value={ratios} onChange={(e) => setRatios(e.target.value)} />
      </label>
      <label>
        seed <input aria-label="Resplit seed" className="narrow" value={seed} onChange={(e) => setSeed(e.target.value)} />
      </label>
      <button type="button" onClick={() => void go()} disabled={!!problem}>
        Split
      </button>
      {(problem || message) && (
        <span role={problem || !message?.ok ? 'alert' : 'status'} className={problem || !message?.ok ? 'error' : 'ok'} data-testid="resplit-result">
          {problem ?? message?.text}
        </span>
      )}
    </fieldset>
  );
}

export function DocumentsPage() {
  const projectId = useProjectId();
  const split = useUi((s) => s.splitFilter);
  const setSplit = useUi((s) => s.setSplitFilter);
  // Ids only, read in the query worker: 140,000 of them reach the page as one moved typed array.
  const ids = useWorkerQuery('documentIds', [projectId, split]);
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
          {ids ? count(ids.length, 'document') : 'loading…'}
        </span>
      </div>
      {ids && ids.length > 0 && <Resplit projectId={projectId} ids={ids} />}
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
