/**
 * The review signals the methods record, declared where the methods live (no TensorFlow.js: the
 * review page loads this). Each reads its field of a run's stored signals (core/reviewSignals.ts
 * DocSignals, written by the method's pipeline or its `record` hook) and says why it flags a token.
 */
import { disagreementSignal, fmt, type ReviewSignal, uncertaintySignal } from '../core/reviewSignals';

/** RoSTER (Eq. 5): the weak labels its noisy-label removal drops, judged by the first noise-robust model. */
const rosterSignal: ReviewSignal = {
  id: 'roster',
  title: "RoSTER's threshold removed weak labels",
  score: 'count',
  rankedBy: 'how many tokens',
  present: (sg) => !!sg.rosterRemoved,
  flag: (t, { word, weak, signals }) => (signals?.rosterRemoved?.[t] ? { value: 1, why: `${word} (weak ${weak[t]} removed by the threshold)` } : undefined),
};

/** PU learning (paper 003): the weak-O tokens the PU step took out of the loss, lowest O-value first. */
const puSignal: ReviewSignal = {
  id: 'pu',
  title: 'lowest O-values of the PU step',
  score: 'max',
  rankedBy: 'the lowest O-value removed',
  present: (sg) => !!sg.puRemoved,
  flag: (t, { word, signals }) =>
    signals?.puRemoved?.[t]
      ? { value: -(signals.oValue?.[t] ?? 0), why: `${word} (O-value ${fmt(signals.oValue?.[t] ?? NaN)}, removed as a likely unlabeled entity)` }
      : undefined,
};

/** NEEDLE's weak label completion (Eq. 2), and the completion method's: weak-O tokens given an entity tag. */
const completionSignal: ReviewSignal = {
  id: 'needle',
  title: 'weak-label completion (NEEDLE, or the completion method) gave weak O tokens an entity type',
  score: 'count',
  rankedBy: 'how many tokens',
  present: (sg) => !!sg.completion,
  flag: (t, { word, signals }) => {
    const c = signals?.completion?.[t];
    return c !== undefined ? { value: 1, why: `${word} (weak O, completed as ${c})` } : undefined;
  },
};

/** Every signal the review queue offers, the generic ones first. */
export const REVIEW_SIGNALS: readonly ReviewSignal[] = [disagreementSignal, uncertaintySignal, rosterSignal, puSignal, completionSignal];

export function reviewSignal(id: string): ReviewSignal {
  const s = REVIEW_SIGNALS.find((x) => x.id === id);
  if (!s) throw new Error(`unknown review signal "${id}"; known: ${REVIEW_SIGNALS.map((x) => x.id).join(', ')}`);
  return s;
}
