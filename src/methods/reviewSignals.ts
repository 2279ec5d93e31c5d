/**
 * The review signals: the generic ones and those each method declares in its `.def.ts` (no
 * TensorFlow.js: the review page loads this). Each reads its field of a run's stored signals (core/reviewSignals.ts
 * DocSignals, written by the method's pipeline or its `record` hook) and says why it flags a token.
 */
import { disagreementSignal, reachSignal, type ReviewSignal, sourcesSignal, uncertaintySignal, uncertaintySumSignal } from '../core/reviewSignals';
import { METHOD_DEFS } from './defs';

/** Every signal the review queue offers, the generic ones first. */
export const REVIEW_SIGNALS: readonly ReviewSignal[] = [
  disagreementSignal,
  uncertaintySignal,
  uncertaintySumSignal,
  reachSignal,
  sourcesSignal,
  ...METHOD_DEFS.flatMap((d) => d.signals ?? []),
];

export function reviewSignal(id: string): ReviewSignal {
  const s = REVIEW_SIGNALS.find((x) => x.id === id);
  if (!s) throw new Error(`unknown review signal "${id}"; known: ${REVIEW_SIGNALS.map((x) => x.id).join(', ')}`);
  return s;
}
