/** RoSTER's records drawn: the weak labels its threshold removed, by type, with their weak and gold labels. */
import { useMemo, useRef } from 'react';
import { Link } from 'wouter';
import { CsvButton } from '../ui/components/ChartExport';
import type { MethodView, MethodViewProps } from './view';

function Removed({ runId, docs }: MethodViewProps) {
  const ref = useRef<HTMLDivElement>(null);
  const tokens = useMemo(
    () =>
      (docs ?? []).flatMap((d) =>
        [...(d.signals.rosterRemoved ?? [])].flatMap((x, t) =>
          x ? [{ docId: d.docId, t, word: d.words[t], weak: d.weak[t], gold: d.gold ? d.gold[t] : null }] : [],
        ),
      ),
    [docs],
  );
  const byType = useMemo(() => {
    const m = new Map<string, { n: number; wrong: number; gold: number }>();
    for (const x of tokens) {
      const r = m.get(x.weak) ?? { n: 0, wrong: 0, gold: 0 };
      r.n++;
      if (x.gold !== null) r.gold++, x.gold !== x.weak && r.wrong++;
      m.set(x.weak, r);
    }
    return [...m].sort((a, b) => b[1].n - a[1].n);
  }, [tokens]);
  if (!tokens.length) return null;
  return (
    <div className="stack" data-testid={`removed-${runId}`} ref={ref}>
      <h4>Run {runId}: Weak labels RoSTER's threshold removed (judged by the first noise-robust model)</h4>
      <CsvButton target={ref} name={`run-${runId}-roster-removed`} />
      <table className="grid">
        <thead>
          <tr>
            <th>weak label</th>
            <th>removed tokens</th>
            <th>with gold</th>
            <th>gold disagrees</th>
          </tr>
        </thead>
        <tbody>
          {byType.map(([label, r]) => (
            <tr key={label} data-label={label}>
              <td>{label}</td>
              <td className="num">{r.n}</td>
              <td className="num">{r.gold}</td>
              <td className="num">{r.wrong}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ol className="compact">
        {tokens.slice(0, 50).map((x) => (
          <li key={`${x.docId}:${x.t}`}>
            <Link href={`/annotate/${x.docId}/${x.t}`}>{x.word}</Link>{' '}
            <span className="muted">
              weak {x.weak}
              {x.gold !== null ? `, gold ${x.gold}` : ''}
            </span>
          </li>
        ))}
      </ol>
      <p className="muted">
        A weak O token is removed when the model's P(O) is at most τ. With the two-part head a weak entity token is judged by P(type | entity) and loses its
        type only: it still counts as an entity. Removal over time, by tag: the "removed" series of the method statistics above.
      </p>
    </div>
  );
}

export const rosterView: MethodView = { id: 'roster', fields: ['rosterRemoved'], View: Removed };
