/**
 * Label distribution (NEEDLE, Figure 4): for every label layer of the project, on a chosen split,
 * the share of spans and of tokens per entity type, O tokens included, side by side: where weak
 * labels (each source and the aggregate), corrections and each run's predictions over- or
 * under-produce a type against gold.
 */
import { useState } from 'react';
import { UNKNOWN_TYPE } from '../../core/types';
import { download, toCsv, useProjectId, useTypeColors, count } from '../hooks';
import { useWorkerQuery } from '../workerQuery';

const share = (n: number | undefined, total: number) => (total ? (100 * (n ?? 0)) / total : 0);

export function DistributionPage() {
  const projectId = useProjectId();
  const colors = useTypeColors(projectId);
  const [split, setSplit] = useState('train');
  const data = useWorkerQuery('labelDistribution', [projectId, split]);
  const rowsOf = data?.rows;
  const types = [...new Set((rowsOf ?? []).flatMap((r) => Object.keys(r.dist.tokens)))]
    .filter((t) => t !== 'O')
    .sort((a, b) => (a === UNKNOWN_TYPE ? 1 : b === UNKNOWN_TYPE ? -1 : a.localeCompare(b)));

  const csv = () => {
    const head = ['layer', 'documents', 'spans', 'tokens', ...types.flatMap((t) => [`span_share_${t}`, `token_share_${t}`]), 'token_share_O'];
    const lines = (rowsOf ?? []).map((r) => [
      r.label,
      r.annotated,
      r.dist.totalSpans,
      r.dist.totalTokens,
      ...types.flatMap((t) => [share(r.dist.spans[t], r.dist.totalSpans).toFixed(2), share(r.dist.tokens[t], r.dist.totalTokens).toFixed(2)]),
      share(r.dist.tokens.O, r.dist.totalTokens).toFixed(2),
    ]);
    download(`label-distribution-${split}.csv`, toCsv([head, ...lines]), 'text/csv');
  };

  return (
    <div className="stack">
      <div className="row">
        <label>
          Split{' '}
          <select aria-label="Distribution split" value={split} onChange={(e) => setSplit(e.target.value)}>
            {['train', 'dev', 'test', 'all'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={csv}>
          Export CSV
        </button>
        <span className="muted">share of spans / share of tokens per type; a layer counts only the documents it annotates</span>
      </div>
      {!data && (
        <p role="status" className="muted" data-testid="distribution-loading">
          Counting labels per type over the split's documents…
        </p>
      )}
      {data && (data.documents === 0 || data.rows.length === 0) && (
        <p role="status" className="muted" data-testid="distribution-empty">
          {data.documents === 0
            ? `No documents on the ${split} split: choose another split, or move documents to it when importing.`
            : `No layer annotates ${data.documents === 1 ? 'the document' : `the ${count(data.documents, 'document')}`} on the ${split} split yet: make weak labels, annotate, or train a model.`}
        </p>
      )}
      <table className="grid" data-testid="distribution-table" hidden={!data?.rows.length}>
        <thead>
          <tr>
            <th>Layer</th>
            <th>Docs</th>
            <th>Spans</th>
            {types.map((t) => (
              <th key={t}>{t === UNKNOWN_TYPE ? 'unknown type' : t}</th>
            ))}
            <th>O tokens</th>
          </tr>
        </thead>
        <tbody>
          {(rowsOf ?? []).map((r) => (
            <tr key={r.id} data-layer={r.label}>
              <td>{r.label}</td>
              <td className="num">{r.annotated}</td>
              <td className="num">{r.dist.totalSpans}</td>
              {types.map((t) => {
                const sp = share(r.dist.spans[t], r.dist.totalSpans);
                const tk = share(r.dist.tokens[t], r.dist.totalTokens);
                return (
                  <td key={t} className="num" title={`${r.dist.spans[t] ?? 0} spans, ${r.dist.tokens[t] ?? 0} tokens`}>
                    <div className="bar" style={{ width: `${sp}%`, background: colors.get(t) ?? '#888' }} />
                    {sp.toFixed(1)} / {tk.toFixed(1)}
                  </td>
                );
              })}
              <td className="num">{share(r.dist.tokens.O, r.dist.totalTokens).toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
