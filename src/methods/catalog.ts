/**
 * The methods the UI offers, without loading them: each module registers its loss in the worker,
 * where TensorFlow.js lives. A name here that no module registers fails the run with a clear error.
 */
export const METHOD_CATALOG: { name: string; title: string }[] = [
  { name: 'supervised', title: 'Supervised: the strong (gold) sentences only' },
  { name: 'wsl', title: 'WSL: strong and weak labels, the weak as if gold' },
  { name: 'weighted-wsl', title: 'Weighted WSL: weak loss times \u03b3' },
  { name: 'partial-wsl', title: 'Partial WSL: weak O tokens left out' },
  { name: 'noise-aware', title: 'NEEDLE noise-aware loss (CRF)' },
  { name: 'roster', title: 'RoSTER noise-robust training (softmax or two-part head)' },
];
