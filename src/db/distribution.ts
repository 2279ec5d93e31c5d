/**
 * Label distribution (NEEDLE, Figure 4) rows of a project on a split: every label layer that
 * annotates a document there, and what multi-stage runs made of the weak labels (pseudo-labels,
 * completed labels). Read in the query worker: at 140,000 documents it reads every row.
 */
import { labelDistribution, type LabelDistribution } from '../core/metrics';
import { spansToTags, tagsToSpans } from '../core/tagScheme';
import { tokenCount, UNKNOWN_TYPE, type Span } from '../core/types';
import { eachRow } from './layerStore';
import { layerAnnotations } from './repo';
import type { StudioDB } from './schema';

export interface DistributionRow {
  id: number;
  label: string;
  dist: LabelDistribution;
  annotated: number;
}

export async function labelDistributionRows(db: StudioDB, projectId: number, split: string): Promise<{ rows: DistributionRow[]; documents: number }> {
  // On one split, the split's index; token counts from the rows (a document's text comes along).
  const docs =
    split === 'all'
      ? await db.documents.where('projectId').equals(projectId).toArray()
      : await db.documents.where('[projectId+split]').equals([projectId, split]).toArray();
  docs.sort((a, b) => a.id! - b.id!);
  const ids = docs.map((d) => d.id!);
  const counts = docs.map((d) => tokenCount(d));
  const position = new Map(ids.map((id, k) => [id, k]));
  const layers = await db.layers.where('projectId').equals(projectId).sortBy('id');
  const rows: DistributionRow[] = [];
  for (const l of layers) {
    // One range scan over the layer's rows (its key's prefix), faster than a lookup per document.
    const spans: Span[][] = [];
    const at: number[] = [];
    await eachRow(db, l, (a) => {
      const k = position.get(a.docId);
      if (k === undefined) return;
      spans.push(a.spans);
      at.push(counts[k]);
    });
    // Only the documents this layer annotates count (a gold layer may cover dev and test only).
    if (!spans.length) continue;
    rows.push({ id: l.id!, label: `${l.kind}: ${l.name}`, dist: labelDistribution(spans, at), annotated: spans.length });
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
}
