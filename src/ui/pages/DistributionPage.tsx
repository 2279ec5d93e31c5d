/**
 * Label distribution (NEEDLE, Figure 4): for every label layer of the project, on a chosen split,
 * the share of spans and of tokens per entity type, O tokens included, side by side: where weak
 * labels (each source and the aggregate), corrections and each run's predictions over- or
 * under-produce a type against gold.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { useState } from 'react';
import { labelDistribution, type LabelDistribution } from '../../core/metrics';
import { spansToTags, tagsToSpans } from '../../core/tagScheme';
import { tokenCount, UNKNOWN_TYPE } from '../../core/types';
import { db } from '../../db/instance';
import { layerAnnotations } from '../../db/repo';
import { download, toCsv, useProjectId, useTypeColors } from '../hooks';

const share = (n: number | undefined, total: number) => (total ? (100 * (n ?? 0)) / total : 0);

export function DistributionPage() {
  const projectId = useProjectId();
  const colors = useTypeColors(projectId);
  const [split, setSplit] = useState('train');
  const data = useLiveQuery(async () => {
    const docs = (await db.documents.where('projectId').equals(projectId).sortBy('id')).filter((d) => split === 'all' || d.split === split);
    const ids = docs.map((d) => d.id!);
    const counts = docs.map((d) => tokenCount(d));
    const layers = await db.layers.where('projectId').equals(projectId).sortBy('id');
    const rows: { id: number; label: string; dist: LabelDistribution; annotated: number }[] = [];
    for (const l of layers) {
      const rowsOf = await db.annotations.bulkGet(ids.map((d) => [l.id!, d] as [number, number]));
      const present = ids.map((_, k) => !!rowsOf[k]);
      if (!present.some(Boolean)) continue;
      const anns = await layerAnnotations(db, l.id!, ids);
      // Only the documents this layer annotates count (a gold layer may cover dev and test only).
      const keep = present.map((p, k) => (p ? k : -1)).filter((k) => k >= 0);
      rows.push({
        id: l.id!,
        label: `${l.kind}: ${l.name}`,
        dist: labelDistribution(
          keep.map((k) => anns[k].spans),
          keep.map((k) => counts[k]),
        ),
        annotated: keep.length,
      });
    }
    // What multi-stage runs made of the weak labels: the initial model's pseudo-labels (SST,
    // NEEDLE) and the weak labels after NEEDLE's completion (its "corrected" labels).
    const runs = await db.runs
      .where('projectId')
      .equals(projectId)
      .filter((r) => r.kind === 'train' && r.status === 'done')
      .sortBy('id');
    for (const run of runs) {
      const sig = await db.signals.bulkGet(ids.map((d) => [run.id!, d] as [number, number]));
      const withPseudo = ids.map((_, k) => k).filter((k) => sig[k]?.pseudo);
      if (!withPseudo.length) continue;
      const at = (ks: number[]) => ks.map((k) => counts[k]);
      rows.push({
        id: -run.id!,
        label: `pseudo-labels: run ${run.id}`,
        dist: labelDistribution(
          withPseudo.map((k) => sig[k]!.pseudo!),
          at(withPseudo),
        ),
        annotated: withPseudo.length,
      });
      const withCompletion = withPseudo.filter((k) => sig[k]!.completion);
      const weakLayer = (run.config as { data?: { layerId?: number } }).data?.layerId;
      if (!withCompletion.length || weakLayer === undefined) continue;
      const weakAnns = await layerAnnotations(
        db,
        weakLayer,
        withCompletion.map((k) => ids[k]),
      );
      const corrected = withCompletion.map((k, j) => {
        const tags = spansToTags(
          weakAnns[j].spans.filter((x) => x.label !== UNKNOWN_TYPE),
          0,
          counts[k],
          'BIO',
        );
        for (const [t, tag] of Object.entries(sig[k]!.completion!)) if (tags[Number(t)] === 'O') tags[Number(t)] = tag;
        return tagsToSpans(tags);
      });
      rows.push({
        id: -run.id! - 0.5,
        label: `corrected: run ${run.id} (weak + completion)`,
        dist: labelDistribution(corrected, at(withCompletion)),
        annotated: withCompletion.length,
      });
    }
    return { rows, documents: docs.length };
  }, [projectId, split]);
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
      {data && (data.documents === 0 || data.rows.length === 0) && (
        <p role="status" className="muted" data-testid="distribution-empty">
          {data.documents === 0
            ? `No documents on the ${split} split: choose another split, or move documents to it when importing.`
            : `No layer annotates the ${data.documents.toLocaleString()} documents on the ${split} split yet: make weak labels, annotate, or train a model.`}
        </p>
      )}
      <table className="grid" data-testid="distribution-table">
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
