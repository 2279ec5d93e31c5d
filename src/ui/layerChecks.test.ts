import { describe, expect, it } from 'vitest';
import type { LayerStats } from '../db/repo';
import { defaultTrainingLayer, defaultWeakLayer, layerProblems, reviewWeakLayer } from './layerChecks';

const layer = (id: number, kind: LayerStats['kind'], name: string, trainSpans: number, devSpans: number, extra: Partial<LayerStats> = {}): LayerStats => ({
  id,
  kind,
  name,
  documents: trainSpans || devSpans ? 10 : 0,
  devDocuments: devSpans ? 5 : 0,
  spans: trainSpans + devSpans,
  perType: {},
  trainSpans,
  devSpans,
  ...extra,
});

const gold = layer(1, 'gold', 'gold', 0, 40, { documents: 300 });
const weak = layer(2, 'weak', 'dictionary', 90, 30);
const aggregate = layer(3, 'weak', 'aggregate (hmm)', 120, 45, { role: 'aggregate' });

describe('layerProblems', () => {
  it('says a layer with no entity on train cannot train, and links to weak labels when there are none', () => {
    const p = layerProblems([gold], { layerId: 1, goldId: 1 });
    expect(p).toEqual([
      {
        text: 'Learn from: "gold" labels no entity on the train split: its 300 documents are on other splits or have no typed entity. Choose a layer that labels the train split, or make weak labels first.',
        fix: { href: '/weak', label: 'Make weak labels' },
      },
    ]);
  });

  it('drops the link once a weak layer exists, and is quiet for a layer that labels train', () => {
    expect(layerProblems([gold, weak], { layerId: 1, goldId: 1 })[0].fix).toBeUndefined();
    expect(layerProblems([gold, weak], { layerId: 2, goldId: 1 })).toEqual([]);
  });

  it('counts the strong layer over the training layer', () => {
    const strong = layer(4, 'gold', 'hand', 12, 0);
    const empty = layer(5, 'weak', 'empty', 0, 0);
    expect(layerProblems([gold, empty, strong], { layerId: 5, goldId: 1, strongId: 4 })).toEqual([]);
    expect(layerProblems([gold, empty, strong], { layerId: 5, goldId: 1 })[0].text).toContain('"empty" labels no entity on the train split: it is empty');
  });

  it('needs a gold layer with entities on dev', () => {
    expect(layerProblems([weak], { layerId: 2 })).toEqual([
      {
        text: 'Score on: the project has no gold layer. Import gold labels for the dev split: dev selects the model.',
        fix: { href: '/import', label: 'Import gold labels' },
      },
    ]);
    const trainOnly = layer(4, 'gold', 'train gold', 50, 0);
    expect(layerProblems([trainOnly, weak], { layerId: 2, goldId: 4 })).toEqual([
      { text: 'Score on: "train gold" labels no entity on the dev split, which selects the model. Choose a gold layer that labels dev.' },
    ]);
  });

  it('asks for labels in a project with no layer', () => {
    expect(layerProblems([], {})).toEqual([{ text: 'Learn from: the project has no label layer yet.', fix: { href: '/weak', label: 'Make weak labels' } }]);
  });
});

describe('defaultTrainingLayer', () => {
  it('prefers the aggregate, then a layer that labels train', () => {
    expect(defaultTrainingLayer([gold, weak, aggregate])).toBe(3);
    expect(defaultTrainingLayer([gold, weak])).toBe(2);
    expect(defaultTrainingLayer([gold])).toBe(1);
    expect(defaultTrainingLayer([])).toBeUndefined();
  });
});

describe('reviewWeakLayer', () => {
  const layers = [
    { id: 1, kind: 'gold' as const, role: undefined },
    { id: 2, kind: 'weak' as const, role: 'source' as const },
    { id: 3, kind: 'weak' as const, role: 'aggregate' as const },
    { id: 4, kind: 'weak' as const, role: 'source' as const },
  ];
  it('takes the weak layer chosen on the review page, so the queue and the editor judge against one layer', () => {
    expect(reviewWeakLayer(layers, 4)?.id).toBe(4);
    expect(reviewWeakLayer(layers, 2)?.id).toBe(2);
  });
  it('falls back to the default where none is chosen, the chosen one is gone, or it is no weak layer', () => {
    expect(defaultWeakLayer(layers)?.id).toBe(3);
    expect(reviewWeakLayer(layers, 0)?.id).toBe(3);
    expect(reviewWeakLayer(layers, 9)?.id).toBe(3);
    expect(reviewWeakLayer(layers, 1)?.id).toBe(3);
    expect(reviewWeakLayer(layers.slice(0, 2), 0)?.id).toBe(2);
  });
});
