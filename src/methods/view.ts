/**
 * How a method's run records are drawn: each method with records of its own has a `.view.tsx` (the
 * page's side of its `.def.ts`) whose component draws them from the run's stored metrics and, where
 * it reads per-token records, the run's documents with their weak and gold labels.
 */
import type { DocSignals } from '../core/reviewSignals';
import type { TrainMetrics } from '../worker/trainJob';

/** A training document of the run, with its words, weak and gold labels per token and what the run recorded on it. */
export interface RunDocument {
  docId: number;
  words: string[];
  weak: string[];
  /** Gold labels where the run's gold layer annotates the document, else null. */
  gold: string[] | null;
  signals: DocSignals;
}

export interface MethodViewProps {
  runId: number;
  metrics: TrainMetrics;
  /** The run's config as stored. */
  config: { pipeline?: Record<string, unknown>; method?: Record<string, unknown> };
  /** The documents with per-token records (null: the run has none, or they are loading). */
  docs: RunDocument[] | null;
}

export interface MethodView {
  id: string;
  /** The per-token record fields it reads: the page loads the run's documents only where a run has one. */
  fields?: readonly (keyof DocSignals)[];
  View: (props: MethodViewProps) => React.ReactNode;
}
