import { labelDistribution } from '../src/core/metrics';
import { tokenCount } from '../src/core/types';
import { demoCorpora, expect, makeWeakLabels, openDemo, test } from './fixtures';

// The label-distribution view against the demo's own gold labels (parsed here, independently of
// the page) and against the weak layer the page stored.
test('label distribution per layer and type matches the stored labels', async ({ page, outside: _ }) => {
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Label distribution' }).click();
  await page.getByLabel('Distribution split').selectOption('test');

  const test = demoCorpora().find((c) => c.docs.some((d) => d.split === 'test'))!;
  const gold = labelDistribution(test.layers[0].annotations.map((a) => a.spans), test.docs.map((d) => tokenCount(d)));
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
    const all = <T,>(s: string) => new Promise<T[]>((r) => { const g = db.transaction(s).objectStore(s).getAll(); g.onsuccess = () => r(g.result as T[]); });
    const layer = (await all<{ id: number; name: string; role?: string }>('layers')).find((l) => l.role === 'aggregate')!;
    const docs = (await all<{ id: number; split: string; offsets: Uint32Array }>('documents')).filter((d) => d.split === 'train').sort((a, b) => a.id - b.id);
    const anns = await all<{ layerId: number; docId: number; spans: { start: number; end: number; label: string }[] }>('annotations');
    return { name: layer.name, spans: docs.map((d) => anns.find((a) => a.layerId === layer.id && a.docId === d.id)?.spans ?? []), tokens: docs.map((d) => d.offsets.length / 2) };
  });
  const weak = labelDistribution(stored.spans, stored.tokens);
  const weakRow = page.locator(`[data-testid="distribution-table"] tr[data-layer="weak: ${stored.name}"] td`);
  await expect(weakRow.nth(2)).toHaveText(String(weak.totalSpans));
  await expect(weakRow.nth(3)).toHaveText(`${((100 * (weak.spans.Chemical ?? 0)) / weak.totalSpans).toFixed(1)} / ${((100 * (weak.tokens.Chemical ?? 0)) / weak.totalTokens).toFixed(1)}`);
  await page.setViewportSize({ width: 1280, height: 700 });
  await page.screenshot({ path: 'docs/label-distribution.png' });
});

// Experiment records from the CLI land in the run comparison; a bad line imports nothing.
test('experiment records import into the run comparison, all or nothing', async ({ page, outside: _ }) => {
  const { readFileSync } = await import('node:fs');
  const file = 'bench/results/noise-aware-conll03-preliminary.jsonl';
  const text = readFileSync(file, 'utf8');
  const records = text.trim().split('\n').map((l) => JSON.parse(l) as { setting: string; label: string; test: { f1: number; tp: number; fp: number; fn: number } });
  await openDemo(page);
  await page.getByRole('link', { name: 'Compare runs' }).click();
  const bad = text.split('\n')[0] + '\n{"key": 3}\n';
  await page.getByLabel('Experiment records').setInputFiles({ name: 'bad.jsonl', mimeType: 'text/plain', buffer: Buffer.from(bad) });
  await expect(page.getByTestId('records-result')).toContainText('bad.jsonl: line 2');
  await expect(page.locator('[data-testid="compare-table"] tbody tr')).toHaveCount(0);
  await page.getByLabel('Experiment records').setInputFiles({ name: 'prelim.jsonl', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await expect(page.getByTestId('records-result')).toHaveText(`Imported ${records.length} runs from prelim.jsonl.`);
  await expect(page.locator('[data-testid="compare-table"] tbody tr')).toHaveCount(records.length);
  for (const r of records) {
    const row = page.locator('[data-testid="compare-table"] tbody tr', { hasText: `${r.setting} · ${r.label}` });
    // F1 recomputed from the recorded counts, shown to one decimal.
    const p = r.test.tp / Math.max(r.test.tp + r.test.fp, 1);
    const rec = r.test.tp / Math.max(r.test.tp + r.test.fn, 1);
    await expect(row.locator('td').nth(8)).toHaveText((p + rec ? (200 * p * rec) / (p + rec) : 0).toFixed(1));
  }
});
