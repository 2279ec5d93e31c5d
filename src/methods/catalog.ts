/**
 * The methods the UI offers, without loading them: each module registers its loss in the worker,
 * where TensorFlow.js lives. A name here that no module registers fails the run with a clear error.
 */
export const METHOD_CATALOG: { name: string; title: string }[] = [{ name: 'supervised', title: 'Supervised: the chosen layer as if gold' }];
