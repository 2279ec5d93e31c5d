/**
 * A layer as files to download, built in the query worker (src/worker/query.worker.ts): it reads
 * every document of the project and writes the whole file, which at scale held the page's thread.
 */
import { writeConll } from '../core/formats/conll';
import { writeJsonl } from '../core/formats/jsonl';
import { writeLinesLabels, writeLinesText } from '../core/formats/lines';
import type { TagScheme } from '../core/types';
import { layerRows } from './layerStore';
import { layerAnnotations, toParsedDoc } from './repo';
import type { StudioDB } from './schema';

export type ExportFormat = 'conll' | 'jsonl' | 'lines';

export interface LayerExport {
  files: { name: string; text: string; type: string }[];
  /** What was exported, in a sentence. */
  message: string;
}

/** Only the documents the layer annotates: a gold layer's unannotated documents are unknown, not all O. */
export async function exportLayer(
  db: StudioDB,
  projectId: number,
  layerId: number,
  name: string,
  format: ExportFormat,
  scheme: TagScheme,
): Promise<LayerExport> {
  const all = await db.documents.where('projectId').equals(projectId).sortBy('id');
  const rows = await layerRows(
    db,
    layerId,
    all.map((d) => d.id!),
  );
  const docs = all.filter((_, k) => rows[k] !== undefined);
  if (!docs.length) return { files: [], message: `Nothing to export: layer "${name}" annotates no document.` };
  const anns = await layerAnnotations(
    db,
    layerId,
    docs.map((d) => d.id!),
  );
  const parsed = docs.map(toParsedDoc);
  const safe = name.replace(/[^\w.-]+/g, '_');
  const files =
    format === 'conll'
      ? [{ name: `${safe}.conll`, text: writeConll(parsed, anns, scheme), type: 'text/plain' }]
      : format === 'jsonl'
        ? [{ name: `${safe}.jsonl`, text: writeJsonl(parsed, anns), type: 'application/jsonl' }]
        : [
            { name: `${safe}_text.txt`, text: writeLinesText(parsed), type: 'text/plain' },
            { name: `${safe}_labels.txt`, text: writeLinesLabels(parsed, anns, scheme), type: 'text/plain' },
          ];
  const message =
    docs.length === all.length
      ? `Exported all ${docs.length.toLocaleString()} documents of "${name}".`
      : `Exported the ${docs.length.toLocaleString()} documents "${name}" annotates; the other ${(all.length - docs.length).toLocaleString()} have no annotation in it and were left out.`;
  return { files, message };
}
