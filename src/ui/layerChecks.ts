import type { LayerStats } from '../db/repo';
import type { LayerRow } from '../db/schema';

/** A problem with the layers a run is set to use, and the page that fixes it where there is one. */
export interface LayerProblem {
  text: string;
  fix?: { href: string; label: string };
}

const MAKE_WEAK = { href: '/weak', label: 'Make weak labels' };
const IMPORT = { href: '/import', label: 'Import gold labels' };

/**
 * What keeps a run from training on these layers, said before it starts (the worker checks the
 * same when it runs): the training layer, with the strong layer over it, must label an entity on
 * the train split, and the gold layer one on the dev split, which selects the model.
 */
export function layerProblems(layers: readonly LayerStats[], chosen: { layerId?: number; goldId?: number; strongId?: number }): LayerProblem[] {
  if (!layers.length) return [{ text: 'Learn from: the project has no label layer yet.', fix: MAKE_WEAK }];
  const problems: LayerProblem[] = [];
  const byId = (id?: number) => layers.find((l) => l.id === id);
  const layer = byId(chosen.layerId);
  const strong = byId(chosen.strongId);
  if (layer && layer.trainSpans + (strong?.trainSpans ?? 0) === 0) {
    const where = layer.documents ? `: its ${layer.documents.toLocaleString()} documents are on other splits or have no typed entity` : ': it is empty';
    // With no weak layer yet, making one is the fix; with one, choosing it is.
    const hasWeak = layers.some((l) => l.kind === 'weak');
    problems.push({
      text: `Learn from: "${layer.name}" labels no entity on the train split${where}. Choose a layer that labels the train split${hasWeak ? '' : ', or make weak labels first'}.`,
      ...(hasWeak ? {} : { fix: MAKE_WEAK }),
    });
  }
  const gold = byId(chosen.goldId);
  if (!layers.some((l) => l.kind === 'gold'))
    problems.push({ text: 'Score on: the project has no gold layer. Import gold labels for the dev split: dev selects the model.', fix: IMPORT });
  else if (gold && gold.devSpans === 0)
    problems.push({ text: `Score on: "${gold.name}" labels no entity on the dev split, which selects the model. Choose a gold layer that labels dev.` });
  return problems;
}

/**
 * The training layer a page starts on: the aggregate of the weak labels, else the first layer that
 * labels the train split, else the first layer.
 */
export function defaultTrainingLayer(layers: readonly LayerStats[]): number | undefined {
  return (layers.find((l) => l.role === 'aggregate') ?? layers.find((l) => l.trainSpans > 0) ?? layers[0])?.id;
}

/**
 * The weak layer the review queue compares against by default, and the editor's verdicts with it:
 * the aggregate, else the first weak layer (a project may have imported its weak labels).
 */
export function defaultWeakLayer<L extends Pick<LayerRow, 'role' | 'kind'>>(layers: readonly L[]): L | undefined {
  return layers.find((l) => l.role === 'aggregate') ?? layers.find((l) => l.kind === 'weak');
}

/**
 * The weak layer the queue ranks against and the editor judges reviewed sentences by: the one the
 * user chose on the review page (`chosenId`, kept with the loop's settings), while it is still a
 * weak layer of the project; else the default. A chosen layer that is gone (weak labels made again
 * replace every weak layer) gives way to the default.
 */
export function reviewWeakLayer<L extends Pick<LayerRow, 'id' | 'role' | 'kind'>>(layers: readonly L[], chosenId: number): L | undefined {
  return layers.find((l) => l.id === chosenId && l.kind === 'weak') ?? defaultWeakLayer(layers);
}
