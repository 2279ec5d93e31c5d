/**
 * Where a word or phrase occurs in the project's documents (the search box on every page, or /):
 * each match in its context, opening the editor at it; j / k move, Enter opens.
 */
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { SEARCH_LIMIT } from '../../db/search';
import { count, useProjectId } from '../hooks';
import { useWorkerQuery } from '../workerQuery';

export function SearchPage() {
  const projectId = useProjectId();
  const q = decodeURIComponent(useParams<{ q: string }>().q ?? '');
  const found = useWorkerQuery('searchDocuments', [projectId, q]);
  const [cursor, setCursor] = useState(0);
  const [, navigate] = useLocation();
  const list = useRef<HTMLOListElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at its first match.
  useEffect(() => setCursor(0), [q]);
  if (!found) return <p className="muted">Searching…</p>;
  const m = found.matches;
  return (
    <div className="stack">
      <p data-testid="search-summary">
        {count(found.total, 'match', 'matches')} of “{q}” in {count(found.documents, 'document')}
        {found.total > SEARCH_LIMIT ? ` (the first ${SEARCH_LIMIT} listed)` : ''}. <kbd>j</kbd> / <kbd>k</kbd> move, <kbd>Enter</kbd> opens the editor there.
      </p>
      {m.length > 0 && (
        <ol
          ref={list}
          className="review-queue"
          data-testid="search-results"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the list takes j, k and Enter
          tabIndex={0}
          aria-label="Search results: j and k move, Enter opens"
          onKeyDown={(e) => {
            if (e.key === 'j' || e.key === 'ArrowDown') setCursor(Math.min(cursor + 1, m.length - 1));
            else if (e.key === 'k' || e.key === 'ArrowUp') setCursor(Math.max(0, cursor - 1));
            else if (e.key === 'Enter') navigate(`/annotate/${m[cursor].docId}/${m[cursor].start}`);
            else return;
            e.preventDefault();
          }}
        >
          {m.map((x, k) => (
            <li key={`${x.docId}:${x.start}`} id={`match-${k}`} aria-current={k === cursor} className={k === cursor ? 'current' : undefined} data-doc={x.docId}>
              <Link href={`/annotate/${x.docId}/${x.start}`}>{x.name}</Link> <span className="muted">({x.split})</span> {x.before} <mark>{x.match}</mark>{' '}
              {x.after}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** The search box of every project page; / focuses it from anywhere but a text field. */
export function SearchBox() {
  const [, navigate] = useLocation();
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key !== '/' || t.closest('input, textarea, select, [contenteditable="true"]')) return;
      e.preventDefault();
      input.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) navigate(`/search/${encodeURIComponent(text.trim())}`);
      }}
    >
      <input ref={input} aria-label="Search documents" placeholder="Search documents ( / )" value={text} onChange={(e) => setText(e.target.value)} />
    </form>
  );
}
