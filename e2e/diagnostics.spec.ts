import { readFileSync } from 'node:fs';
import { labelDistribution } from '../src/core/metrics';
import { tokenCount } from '../src/core/types';
import { demoCorpora, docScreenshot, editOptions, expect, makeWeakLabels, openDemo, storeRows, test } from './fixtures';

// The label-distribution view against the demo's own gold labels (parsed here, independently of
// the page) and against the weak layer the page stored.
test('label distribution per layer and type matches the stored labels', async ({ page, outside: _ }) => {
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Label distribution', exact: true }).click();
  await page.getByLabel('Distribution split').selectOption('test');

  const test = demoCorpora().find((c) => c.docs.some((d) => d.split === 'test'))!;
  const gold = labelDistribution(
    test.layers[0].annotations.map((a) => a.spans),
    test.docs.map((d) => tokenCount(d)),
  );
  const row = page.locator('[data-testid="distribution-table"] tr[data-layer="gold: gold"] td');
  // The columns: the demo's two types, and "unknown type" when a weak layer has untyped matches.
  await expect(page.locator('[data-testid="distribution-table"] tr[data-layer="gold: gold"]')).toBeVisible();
  await expect(page.locator('[data-testid="distribution-table"] thead th').nth(3)).toHaveText('Chemical');
  const header = await page.locator('[data-testid="distribution-table"] thead th').allTextContents();
  const types = header.slice(3, -1).map((h) => (h === 'unknown type' ? '?' : h));
  expect(types.slice(0, 2)).toEqual(['Chemical', 'Disease']);
  await expect(row).toHaveText([
    'gold: gold',
    String(test.docs.length),
    String(gold.totalSpans),
    ...types.map((t) => `${((100 * (gold.spans[t] ?? 0)) / gold.totalSpans).toFixed(1)} / ${((100 * (gold.tokens[t] ?? 0)) / gold.totalTokens).toFixed(1)}`),
    ((100 * gold.tokens.O) / gold.totalTokens).toFixed(1),
  ]);

  // The weak aggregate on train, from what IndexedDB holds.
  await page.getByLabel('Distribution split').selectOption('train');
  const stored = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(s: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const layer = (await all<{ id: number; name: string; role?: string }>('layers')).find((l) => l.role === 'aggregate')!;
    const docs = (await all<{ id: number; split: string; offsets: Uint32Array }>('documents')).filter((d) => d.split === 'train').sort((a, b) => a.id - b.id);
    const anns = [
      ...(await all<{ layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }>('annotations')),
      ...((await all<unknown>('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
        c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
      ),
    ] as { layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }[];
    return {
      name: layer.name,
      spans: docs.map((d) => anns.find((a) => a.layerId === layer.id && a.docId === d.id)?.spans ?? []),
      tokens: docs.map((d) => d.offsets.length / 2),
    };
  });
  const weak = labelDistribution(stored.spans, stored.tokens);
  const weakRow = page.locator(`[data-testid="distribution-table"] tr[data-layer="weak: ${stored.name}"] td`);
  await expect(weakRow.nth(2)).toHaveText(String(weak.totalSpans));
  await expect(weakRow.nth(3)).toHaveText(
    `${((100 * (weak.spans.Chemical ?? 0)) / weak.totalSpans).toFixed(1)} / ${((100 * (weak.tokens.Chemical ?? 0)) / weak.totalTokens).toFixed(1)}`,
  );
  await page.setViewportSize({ width: 1280, height: 700 });
  await docScreenshot(page, 'label-distribution.png');
});

// Experiment records from the CLI land in the run comparison; a bad line imports nothing.
test('experiment records import into the run comparison, all or nothing', async ({ page, outside: _ }) => {
  const { readFileSync } = await import('node:fs');
  const file = 'bench/results/noise-aware-conll03-preliminary.jsonl';
  const text = readFileSync(file, 'utf8');
  const records = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { setting: string; label: string; test: { f1: number; tp: number; fp: number; fn: number } });
  await openDemo(page);
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  const bad = `${text.split('\n')[0]}\n{"key": 3}\n`;
  await page.getByLabel('Experiment records').setInputFiles({ name: 'bad.jsonl', mimeType: 'text/plain', buffer: Buffer.from(bad) });
  await expect(page.getByTestId('records-result')).toContainText('bad.jsonl: line 2');
  await expect(page.locator('[data-testid="compare-table"] tbody tr')).toHaveCount(0);
  // A project with no run says so, and where runs come from, instead of empty tables.
  await expect(page.getByTestId('compare-empty')).toContainText('No training run yet');
  await expect(page.getByTestId('group-table')).toBeHidden();
  await page.getByLabel('Experiment records').setInputFiles({ name: 'prelim.jsonl', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await expect(page.getByTestId('records-result')).toHaveText(`Imported ${records.length} runs from prelim.jsonl.`);
  await expect(page.locator('[data-testid="compare-table"] tbody tr')).toHaveCount(records.length);
  await expect(page.getByTestId('compare-empty')).toHaveCount(0);
  for (const r of records) {
    const row = page.locator('[data-testid="compare-table"] tbody tr', { hasText: `${r.setting} · ${r.label}` });
    // F1 recomputed from the recorded counts, shown to one decimal.
    const p = r.test.tp / Math.max(r.test.tp + r.test.fp, 1);
    const rec = r.test.tp / Math.max(r.test.tp + r.test.fn, 1);
    await expect(row.locator('td').nth(8)).toHaveText((p + rec ? (200 * p * rec) / (p + rec) : 0).toFixed(1));
  }
});

/** Trains one run from the training page on the weak aggregate and returns its id once done. */
async function trainRun(page: import('@playwright/test').Page, method: string, epochs = 2, options?: Parameters<typeof editOptions>[1], hidden = 8) {
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Method', { exact: true }).selectOption({ label: method });
  if (options) await editOptions(page, options);
  await page.getByLabel('Hidden units').fill(String(hidden));
  await page.getByLabel('Epochs', { exact: true }).fill(String(epochs));
  // One training of the first stage (the page's "dev" trains it at three values): these tests read the stages.
  await page.getByLabel('Dictionary dropout').fill('0.5');
  await page.getByLabel('Backend').selectOption('wasm');
  const before = await page.getByTestId('runs-table').locator('tbody tr').count();
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  const row = page.getByTestId('runs-table').locator('tbody tr').first().locator('td');
  await expect(page.getByTestId('runs-table').locator('tbody tr')).toHaveCount(before + 1);
  await expect(row.nth(1)).toHaveText('done', { timeout: 300_000 });
  return Number(await row.first().textContent());
}

type Dumped = {
  signals: { runId: number; docId: number; oValue?: Float32Array; oValueEpochs?: Float32Array[]; rosterRemoved?: Uint8Array }[];
  anns: { layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }[];
  runs: {
    id: number;
    config: { data: { layerId: number; goldLayerId: number } };
    metrics: { sampling?: { cells: { start: number; end: number; p: number }[] }[] };
  }[];
};
const dumpAll = (page: import('@playwright/test').Page) =>
  page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(s: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    return {
      signals: await all('signals'),
      anns: [
        ...(await all('annotations')),
        ...((await all('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
          c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
        ),
      ],
      runs: await all('runs'),
    };
  }) as Promise<Dumped>;

const labelsOf = (spans: { start: number; end: number; label: string }[], n: number) => {
  const out = new Array<string>(n).fill('O');
  for (const s of spans) for (let t = s.start; t < s.end && t < n; t++) out[t] = s.label;
  return out;
};

test('O-value histogram with a λ cut-off, RoSTER removals and the sampling heat map show the stored run data; charts export', async ({ page, outside: _ }) => {
  test.setTimeout(600_000);
  await openDemo(page);
  await makeWeakLabels(page);
  // Gold labels for the train documents (the demo has none there): the weak spans plus the first
  // token of each document as an entity, so that some weak-O tokens are gold entities (hidden).
  let d = await dumpAll(page);
  const agg = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(s: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const layers = await all<{ id: number; kind: string; name: string; role?: string }>('layers');
    const train = (await all<{ id: number; split: string }>('documents')).filter((x) => x.split === 'train').map((x) => x.id);
    return { weak: layers.find((l) => l.role === 'aggregate')!.id, gold: layers.find((l) => l.kind === 'gold' && l.name === 'gold')!.id, train };
  });
  await page.evaluate(
    async ({ gold, rows }) => {
      const req = indexedDB.open('ner-studio');
      const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
      const tx = db.transaction('annotations', 'readwrite');
      for (const r of rows) tx.objectStore('annotations').put({ layerId: gold, docId: r.docId, spans: r.spans, oMode: 'complete' });
      await new Promise((r) => (tx.oncomplete = r));
    },
    {
      gold: agg.gold,
      rows: agg.train.map((docId) => ({
        docId,
        spans: [
          { start: 0, end: 1, label: 'Chemical' },
          ...(d.anns.find((a) => a.layerId === agg.weak && a.docId === docId)?.spans ?? []).filter((x) => x.start > 0 && x.label !== '?'),
        ],
      })),
    },
  );
  await page.reload();
  const pu = await trainRun(page, 'PU learning + negative sampling (removes low O-values, then samples O)');
  // Removal on at the paper's τ, whatever the page's default: this test reads what it removed.
  const roster = await trainRun(page, 'RoSTER noise-robust stage only (noisy-label removal, GCE by option)', 3, (o) => (o.method.tau = 0.7));
  const ns = await trainRun(page, 'Negative sampling, adaptive weighted (span head)');
  d = await dumpAll(page);
  const cfg = d.runs.find((r) => r.id === pu)!.config.data;
  const puSignals = d.signals.filter((s) => s.runId === pu && s.oValue);
  // Where gold labels the weak documents, the runs record O-values of true O against hidden
  // entities (PU) and the missampling rate (negative sampling) per epoch.
  const statsOf = (id: number) =>
    d.runs.find((r) => r.id === id)!.metrics as unknown as {
      stages?: { history?: { methodStats?: Record<string, number> }[] }[];
      history: { methodStats?: Record<string, number> }[];
    };
  const puStats = statsOf(pu)
    .stages!.flatMap((x) => x.history ?? [])
    .map((h) => h.methodStats ?? {});
  expect(puStats.some((m) => m.oValueHidden !== undefined && m.oValueTrueO !== undefined)).toBe(true);
  expect(statsOf(ns).history.every((h) => h.methodStats?.missamplingRate !== undefined)).toBe(true);
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  await page.getByLabel(`compare run ${pu}`).check();
  await expect(page.getByTestId(`ovalues-${pu}`)).toBeVisible();
  await page.getByLabel('PU lambda').fill('0.2');
  // Expected from the stored O-values and the gold layer.
  const tokens = puSignals
    .flatMap((s) => {
      const gold = d.anns.find((a) => a.layerId === cfg.goldLayerId && a.docId === s.docId)!;
      const g = labelsOf(gold.spans, s.oValue!.length);
      return [...s.oValue!].map((o, t) => ({ o, gold: g[t], docId: s.docId, t })).filter((x) => Number.isFinite(x.o));
    })
    .sort((a, b) => a.o - b.o || a.docId - b.docId || a.t - b.t);
  const k = Math.ceil(0.2 * tokens.length);
  const removed = tokens.slice(0, k);
  const hit = removed.filter((x) => x.gold !== 'O').length;
  const cut = page.getByTestId(`ovalues-cut-${pu}`);
  await expect(cut).toHaveAttribute('data-removed', String(k));
  expect(Number(await cut.getAttribute('data-precision'))).toBeCloseTo(hit / k, 9);
  expect(Number(await cut.getAttribute('data-recall'))).toBeCloseTo(hit / tokens.filter((x) => x.gold !== 'O').length, 9);
  await expect(page.getByTestId(`ovalues-list-${pu}`).locator('li').first()).toContainText(`O-value ${removed[0].o.toFixed(3)}`);
  // Each run's records sit under a heading that names that run, whichever other runs are chosen.
  await expect(page.getByTestId(`signals-${pu}`).locator('h4').first()).toHaveText(`Run ${pu}: PU learning: O-values of the weak-O tokens, and the λ cut-off`);
  // The histogram at a chosen exploratory epoch: the first epoch's stored O-values.
  expect(puSignals[0].oValueEpochs).toHaveLength(2);
  await page.getByLabel('O-value epoch').selectOption({ label: 'exploratory epoch 1' });
  await page.getByLabel('PU lambda').fill('0.3');
  const first = puSignals.flatMap((s) => [...s.oValueEpochs![0]].filter((o) => Number.isFinite(o))).sort((a, b) => a - b);
  await expect(cut).toHaveAttribute('data-removed', String(Math.ceil(0.3 * first.length)));
  await expect(cut).toContainText(`O-value ≤ ${first[Math.ceil(0.3 * first.length) - 1].toFixed(3)}`);
  await page.getByLabel('O-value epoch').selectOption({ label: 'the model the PU step cut with' });
  await page.getByLabel('PU lambda').fill('0.2');
  // The chart exports as PNG (uPlot's canvas).
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export run-${pu}-o-values as PNG` }).click()]);
  expect(
    readFileSync((await png.path())!)
      .subarray(0, 8)
      .toString('hex'),
  ).toBe('89504e470d0a1a0a');
  await docScreenshot(page.getByTestId(`ovalues-${pu}`), 'o-values.png');

  // RoSTER: removed weak labels by type, as stored.
  await page.getByLabel(`compare run ${pu}`).uncheck();
  await page.getByLabel(`compare run ${roster}`).check();
  const rosterRows = d.signals.filter((s) => s.runId === roster && s.rosterRemoved);
  const rcfg = d.runs.find((r) => r.id === roster)!.config.data;
  const byLabel = new Map<string, number>();
  for (const s of rosterRows) {
    const w = labelsOf(d.anns.find((a) => a.layerId === rcfg.layerId && a.docId === s.docId)?.spans ?? [], s.rosterRemoved!.length);
    s.rosterRemoved!.forEach((x, t) => x && byLabel.set(w[t], (byLabel.get(w[t]) ?? 0) + 1));
  }
  expect(byLabel.size).toBeGreaterThan(0);
  for (const [label, n] of byLabel) await expect(page.getByTestId(`removed-${roster}`).locator(`tr[data-label="${label}"] td`).nth(1)).toHaveText(String(n));
  await docScreenshot(page.getByTestId(`removed-${roster}`), 'roster-removed.png');

  // Negative sampling: the heat map's cells are the stored distribution (they sum to 1).
  await page.getByLabel(`compare run ${roster}`).uncheck();
  await page.getByLabel(`compare run ${ns}`).check();
  const maps = d.runs.find((r) => r.id === ns)!.metrics.sampling!;
  expect(maps.length).toBeGreaterThan(0);
  const cells = page.getByTestId(`sampling-${ns}`).locator('rect[data-span]');
  await expect(cells).toHaveCount(maps[0].cells.length);
  const shown = await cells.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-p'))));
  expect(shown.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
  shown.forEach((p, i) => expect(p).toBeCloseTo(maps[0].cells[i].p, 6));
  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export run-${ns}-sampling as SVG` }).click()]);
  expect(readFileSync((await svg.path())!, 'utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  await docScreenshot(page.getByTestId(`sampling-${ns}`), 'sampling-heatmap.png');
});

// The whole RoSTER keeps its best stage on dev (keepBest): a self-training round wrecked by its
// learning rate makes an earlier stage the run's, and the diagnostics say which, as stored.
test("the whole RoSTER's run says which stage's model it kept", async ({ page, outside: _ }) => {
  test.setTimeout(600_000);
  await openDemo(page);
  await makeWeakLabels(page);
  // Large enough that its stages find entities (at 8 units and 2 epochs they score 0 on dev alike).
  const id = await trainRun(
    page,
    'RoSTER: noise-robust models, ensemble, self-training',
    4,
    (o) => {
      Object.assign(o.pipeline, { models: 2, rounds: 1, roundEpochs: 1, roundLr: 3, augmentRate: 0 });
    },
    32,
  );
  const runs = await storeRows<{ id: number; metrics: { keptStage?: string; stages: { stage: string; devF1: number }[] } }>(page, 'runs');
  const m = runs.find((r) => r.id === id)!.metrics;
  const names = m.stages.map((s) => s.stage);
  expect(names.slice(0, 3)).toEqual(['noise-robust model 1', 'noise-robust model 2', 'ensemble distillation']);
  // The kept stage is the best on dev, before the last stage run (the wrecked round, or distillation when it lost and the pipeline stopped).
  const best = m.stages.reduce((a, b) => (b.devF1 > a.devF1 ? b : a));
  expect(best.devF1).toBeGreaterThan(0);
  expect(m.keptStage).toBe(best.stage);
  expect(best.stage).not.toBe(names[names.length - 1]);
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  await page.getByLabel(`compare run ${id}`).check();
  await expect(page.getByTestId(`kept-stage-${id}`)).toHaveText(
    `The run's model is its ${best.stage}'s (dev F1 ${(100 * best.devF1).toFixed(2)} before the O shift): the best on dev of its stages; the later ones scored lower.`,
  );
});
