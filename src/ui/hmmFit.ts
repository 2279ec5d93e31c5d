import type { EmFit } from '../core/weak/hmm';

/** How EM ended, in a sentence for the Weak labels page (empty for a run made before it was kept). */
export function emSentence(em?: EmFit): string {
  if (!em) return '';
  const its = (n: number) => `${n.toLocaleString('en-US')} iteration${n === 1 ? '' : 's'}`;
  return em.converged
    ? ` EM settled in ${its(em.iterations)}.`
    : ` EM stopped at its cap of ${its(em.cap)} before it settled: these weak labels can still move with more text or more iterations.`;
}
