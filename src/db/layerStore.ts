/**
 * Where a layer's annotations live. Layers people edit (gold, corrected) and run predictions keep
 * a row per document in `annotations`, so one edit writes one row. A layer a machine writes whole
 * and never edits (the weak labels: each source and the aggregate) is packed: one `layerChunks`
 * row holds the annotations of up to 256 documents (those whose ids share `docId >> 8`).
 * Chromium's IndexedDB pays about 60 µs a row, so the weak labels of 140,000 documents took 17 s
 * to store as 280,000 rows; packed they are 1,100 rows. Every reader goes through this module,
 * which reads both kinds, so layers stored before packing existed (schema v6) read as they are.
 */
import Dexie from 'dexie';
import type { Annotation } from '../core/types';
import type { AnnotationRow, LayerChunkRow, LayerRow, StudioDB } from './schema';

const BUCKET_BITS = 8;
const bucketOf = (docId: number) => Math.floor(docId / (1 << BUCKET_BITS));

/** Writes a new layer's annotations packed; the layer row must say `packed: true`. Call inside a transaction over layerChunks. */
export async function writePackedLayer(db: StudioDB, layerId: number, docIds: readonly number[], anns: readonly Annotation[]): Promise<void> {
  const chunks = new Map<number, LayerChunkRow>();
  docIds.forEach((docId, k) => {
    const b = bucketOf(docId);
    let c = chunks.get(b);
    if (!c) chunks.set(b, (c = { layerId, bucket: b, docIds: [], anns: [] }));
    c.docIds.push(docId);
    c.anns.push(anns[k]);
  });
  await db.layerChunks.bulkPut([...chunks.values()]);
}

function chunksOf(db: StudioDB, layerId: number) {
  return db.layerChunks.where('[layerId+bucket]').between([layerId, Dexie.minKey], [layerId, Dexie.maxKey], true, true);
}

/** A layer's per-document rows: the prefix of the [layerId+docId] key. */
function rowsOf(db: StudioDB, layerId: number) {
  return db.annotations.where('[layerId+docId]').between([layerId, Dexie.minKey], [layerId, Dexie.maxKey], true, true);
}

async function isPacked(db: StudioDB, layer: number | LayerRow): Promise<boolean> {
  const row = typeof layer === 'number' ? await db.layers.get(layer) : layer;
  return !!row?.packed;
}

/** A layer's rows for a list of documents, in that order; undefined where the layer does not annotate the document. */
export async function layerRows(db: StudioDB, layer: number | LayerRow, docIds: readonly number[]): Promise<(AnnotationRow | undefined)[]> {
  const layerId = typeof layer === 'number' ? layer : layer.id!;
  if (!(await isPacked(db, layer))) {
    // Many documents, most of the layer's: one range read of its rows beats a read per document
    // (the review queue's read of a run's 14,041 predicted rows in Chromium: 592 → 96 ms with
    // everything else it reads, bench/review-queue-browser.ts).
    if (docIds.length < 1000 || 2 * docIds.length < (await rowsOf(db, layerId).count()))
      return db.annotations.bulkGet(docIds.map((d) => [layerId, d] as [number, number]));
    const byDoc = new Map((await rowsOf(db, layerId).toArray()).map((r) => [r.docId, r]));
    return docIds.map((d) => byDoc.get(d));
  }
  const buckets = [...new Set(docIds.map(bucketOf))];
  const chunks = await db.layerChunks.bulkGet(buckets.map((b) => [layerId, b] as [number, number]));
  const byDoc = new Map<number, Annotation>();
  for (const c of chunks) if (c) c.docIds.forEach((d, k) => byDoc.set(d, c.anns[k]));
  return docIds.map((docId) => {
    const a = byDoc.get(docId);
    return a ? { ...a, layerId, docId } : undefined;
  });
}

/** The documents a layer of per-document rows annotates (a run's predictions, gold, corrections): its keys only. */
export async function rowDocIds(db: StudioDB, layerId: number): Promise<Set<number>> {
  return new Set((await rowsOf(db, layerId).keys()).map((k) => (k as unknown as [number, number])[1]));
}

/** One document's row in each of the layers, in their order. */
export async function docRows(db: StudioDB, layers: readonly LayerRow[], docId: number): Promise<(AnnotationRow | undefined)[]> {
  return Promise.all(layers.map(async (l) => (await layerRows(db, l, [docId]))[0]));
}

/** Visits every row of a layer, in document id order: one range scan. */
export async function eachRow(db: StudioDB, layer: number | LayerRow, visit: (row: AnnotationRow) => void): Promise<void> {
  const layerId = typeof layer === 'number' ? layer : layer.id!;
  if (!(await isPacked(db, layer))) return rowsOf(db, layerId).each(visit);
  await chunksOf(db, layerId).each((c) => c.docIds.forEach((docId, k) => visit({ ...c.anns[k], layerId, docId })));
}

/** Deletes a layer's annotations, both kinds (the layer row is the caller's). Inside a transaction over annotations and layerChunks. */
export async function deleteLayerRows(db: StudioDB, layerId: number): Promise<void> {
  await rowsOf(db, layerId).delete();
  await chunksOf(db, layerId).delete();
}
