import Dexie, { type Table } from 'dexie';
import type { Annotation, EntityType, LayerKind, Split, TagScheme } from '../core/types';
import type { CaseMode } from '../core/weak/normalize';
import type { Rule } from '../core/weak/rules';
import type { DocSignals } from '../core/reviewSignals';

export interface ProjectRow {
  id?: number;
  name: string;
  types: EntityType[];
  scheme: TagScheme;
  createdAt: number;
  demo?: boolean;
}

export interface DocumentRow {
  id?: number;
  projectId: number;
  name: string;
  text: string;
  /** Flattened [start, end) character offsets (a typed array since schema version 2). */
  offsets: Uint32Array;
  sentenceStarts: number[];
  split: Split;
  tokenCount: number;
}

export interface LayerRow {
  id?: number;
  projectId: number;
  kind: LayerKind;
  /** Annotator for gold, source or "aggregate" for weak, run id for predicted. */
  name: string;
  /** For weak layers: which aggregation made the aggregate, or that this is one source. */
  role?: 'source' | 'aggregate';
  createdAt: number;
  /** Its annotations are stored 256 documents a row in layerChunks (layerStore.ts); absent: a row a document. */
  packed?: boolean;
}

export interface AnnotationRow extends Annotation {
  layerId: number;
  docId: number;
}

/** The annotations of a packed layer for the documents whose ids share `bucket` (docId >> 8). */
export interface LayerChunkRow {
  layerId: number;
  bucket: number;
  docIds: number[];
  anns: Annotation[];
}

export interface GazetteerRow {
  id?: number;
  projectId: number;
  name: string;
  mode: CaseMode;
  priority: number;
  createdAt: number;
  /** A stop list: its phrases are never entities; weak labeling drops every source's match of one (absent: an ordinary gazetteer). */
  stop?: boolean;
  /**
   * Entries of at most this many characters match only in their own case in the weak labels,
   * whatever `mode` says (GazetteerSpec.caseUpTo: "Mg" is not "mg"). Absent: none.
   */
  caseUpTo?: number;
  /**
   * A list of the public gazetteer library (core/publicGazetteers), mapped onto `type`: its
   * matches are dictionary features of a group of their own; `featuresOnly`: not a weak source.
   */
  public?: { list: string; type: string; featuresOnly: boolean; source: string };
}

export interface GazetteerEntryRow {
  id?: number;
  gazetteerId: number;
  phrase: string;
  type: string | null;
}

export interface RuleRow {
  id?: number;
  projectId: number;
  priority: number;
  rule: Rule;
  enabled: boolean;
}

/** interrupted: it was running when its page went away (reload, closed tab); it can resume from its checkpoints. */
export type RunStatus = 'queued' | 'running' | 'interrupted' | 'done' | 'failed' | 'cancelled';

export interface RunRow {
  id?: number;
  projectId: number;
  kind: 'weak' | 'train';
  config: unknown;
  status: RunStatus;
  metrics?: unknown;
  error?: string;
  createdAt: number;
  finishedAt?: number;
}

export interface ModelRow {
  id?: number;
  runId: number;
  /**
   * 'checkpoint': a single run's state to resume from, as written before the run engine (now every
   * run keeps its checkpoints as 'stage' rows); 'stage': what a run has finished (a
   * stage's model, the running stage's last epoch), under `key`; 'final': the trained model.
   */
  kind: 'checkpoint' | 'stage' | 'final';
  key?: string;
  state: unknown;
  createdAt: number;
}

/** A project's GloVe rows, trimmed to its vocabulary (lower-cased words). */
export interface EmbeddingRow {
  projectId: number;
  /** The words with a row in `vectors`, in row order. */
  words: string[];
  /** Words of the project that GloVe lacks. */
  absent: string[];
  dims: number;
  vectors: Float32Array;
  /** Rows from this one on are spelled from characters for words GloVe lacks (src/model/spelling.ts); absent in rows written before v6. */
  spelledFrom?: number;
}

/**
 * A project's pre-trained encoder (src/model/pretrain.ts): the BiLSTM trained as a language model
 * on the text of the train split and the unassigned documents, kept so that every run of a model of the same shape starts from it.
 */
export interface EncoderRow {
  id?: number;
  projectId: number;
  /** encoderKey: the model shape, the pre-training settings and the text's fingerprint. */
  key: string;
  weights: Record<string, { shape: number[]; data: Float32Array }>;
  losses: number[];
  sentences: number;
  tokens: number;
  seconds: number;
  createdAt: number;
  /** The language model's word heads and vocabulary (RoSTER augments with them); absent from encoders kept before they were. */
  lm?: { words: string[]; heads: Record<string, { shape: number[]; data: Float32Array }> };
}

/** A run's noise signals over one document's tokens (the review queue reads them). */
export interface SignalRow extends DocSignals {
  runId: number;
  docId: number;
}

export const DB_NAME = 'ner-studio';

/**
 * The schema, version by version. A version is never edited once released; a change is a new
 * version with an upgrade function, tested on data written by the version before it.
 */
export const SCHEMA_V1 = {
  projects: '++id, name',
  documents: '++id, projectId, [projectId+split]',
  layers: '++id, projectId, [projectId+kind]',
  annotations: '[layerId+docId], layerId, docId',
  gazetteers: '++id, projectId',
  gazetteerEntries: '++id, gazetteerId, [gazetteerId+phrase]',
  rules: '++id, projectId',
  runs: '++id, projectId, status',
  models: '++id, runId',
};

export const SCHEMA_V3 = { ...SCHEMA_V1, annotations: '[layerId+docId]' };

export const SCHEMA_V4 = { ...SCHEMA_V3, embeddings: 'projectId' };

export const SCHEMA_V5 = { ...SCHEMA_V4, signals: '[runId+docId]' };

export const SCHEMA_V6 = { ...SCHEMA_V5, encoders: '++id, projectId, key' };

export const SCHEMA_V7 = { ...SCHEMA_V6, layerChunks: '[layerId+bucket]' };

export class StudioDB extends Dexie {
  projects!: Table<ProjectRow, number>;
  documents!: Table<DocumentRow, number>;
  layers!: Table<LayerRow, number>;
  annotations!: Table<AnnotationRow, [number, number]>;
  gazetteers!: Table<GazetteerRow, number>;
  gazetteerEntries!: Table<GazetteerEntryRow, number>;
  rules!: Table<RuleRow, number>;
  runs!: Table<RunRow, number>;
  models!: Table<ModelRow, number>;
  embeddings!: Table<EmbeddingRow, number>;
  signals!: Table<SignalRow, [number, number]>;
  encoders!: Table<EncoderRow, number>;
  layerChunks!: Table<LayerChunkRow, [number, number]>;

  constructor(name = DB_NAME) {
    super(name, { chromeTransactionDurability: 'relaxed' });
    this.version(1).stores(SCHEMA_V1);
    // v2: token offsets as Uint32Array (half the size of a JS number array in structured clone,
    // and much faster to write on bulk import) and a stored token count for overview totals.
    this.version(2)
      .stores(SCHEMA_V1)
      .upgrade((tx) =>
        tx
          .table('documents')
          .toCollection()
          .modify((doc: { offsets: ArrayLike<number>; tokenCount?: number }) => {
            doc.offsets = Uint32Array.from(doc.offsets as ArrayLike<number>);
            doc.tokenCount = doc.offsets.length >> 1;
          }),
      );
    // v3: annotations keep only their compound key. Each index entry is one more write per row,
    // and Chromium's IndexedDB pays per write: a layer of 14,041 documents imported in 0.91 s
    // with the two single-field indexes and 0.65 s without. Queries by layer use the key's
    // prefix; a document's layers are fetched by key, one per layer.
    this.version(3).stores(SCHEMA_V3);
    // v4: trimmed word vectors per project.
    this.version(4).stores(SCHEMA_V4);
    // v5: per-run noise signals per document (uncertainty, RoSTER removals, PU O-values, NEEDLE
    // completions), keyed by run and document; a run's rows are read by the key's prefix.
    this.version(5).stores(SCHEMA_V5);
    // v6: pre-trained encoders per project.
    this.version(6).stores(SCHEMA_V6);
    // v7: weak layers packed, 256 documents a row (layerStore.ts). Layers written before keep their
    // rows and read as they are, so nothing is migrated.
    this.version(7).stores(SCHEMA_V7);
    // v8: word dropout's default became 0.1 (runConfig.ts). A training run stored before read 0 (or
    // had no such option), so it keeps 0: resumed, fine-tuned or re-run, it trains as it was started.
    this.version(8)
      .stores(SCHEMA_V7)
      .upgrade((tx) =>
        tx
          .table('runs')
          .toCollection()
          .modify((run: RunRow) => {
            if (run.kind === 'weak' || !run.config || typeof run.config !== 'object' || Array.isArray(run.config)) return;
            const cfg = run.config as { model?: Record<string, unknown> };
            if (cfg.model && 'wordDropout' in cfg.model) return;
            cfg.model = { ...cfg.model, wordDropout: 0 };
          }),
      );
  }
}
