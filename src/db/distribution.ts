/**
 * Label distribution (NEEDLE, Figure 4) rows of a project on a split: every label layer that
 * annotates a document there, and what multi-stage runs made of the weak labels (pseudo-labels,
 * completed labels). Read in the query worker: at 140,000 documents it reads every row.
 */
import { labelDistribution, type LabelDistribution } from '../core/metrics';
import { spansToTags, tagsToSpans } from '../core/tagScheme';
import { tokenCount, UNKNOWN_TYPE } from '../core/types';
import { layerAnnotations } from './repo';
import type { StudioDB } from './schema';

export interface DistributionRow {
  id: number;
  label: string;
  dist: LabelDistribution;
  annotated: number;
}

export async function labelDistributionRows(db: StudioDB, projectId: number, split: string): Promise<{ rows: DistributionRow[]; documents: number }> {
  const docs = (await db.documents.where('projectId').equals(projectId).sortBy('id')).filter((d) => split === 'all' || d.split === split);
  const ids = docs.map((d) => d.id!);
  const counts = docs.map((d) => tokenCount(d));
  const layers = await db.layers.where('projectId').equals(projectId).sortBy('id');
  const rows: DistributionRow[] = [];
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
}
