import type { Page } from '@playwright/test';
import { labelSpan, removeAt } from '../src/core/annotate';
import type { Span } from '../src/core/types';
import { expect, makeWeakLabels, openDemo, test } from './fixtures';

type Row = { id: number; projectId: number; split: string };

interface Dump {
  layers: { id: number; kind: string; name: string; role?: string }[];
  annotations: { layerId: number; docId: number; spans: Span[] }[];
  documents: Row[];
}

/** The layers, annotations and documents IndexedDB holds (the demo is small). */
function dump(page: Page): Promise<Dump> {
  return page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = (s: string) => new Promise<unknown[]>((r) => { const g = db.transaction(s).objectStore(s).getAll(); g.onsuccess = () => r(g.result); });
    const documents = ((await all('documents')) as Row[]).map(({ id, projectId, split }) => ({ id, projectId, split }));
    return { layers: (await all('layers')) as Dump['layers'], annotations: (await all('annotations')) as Dump['annotations'], documents };
  });
}

async function goldSpans(page: Page, docId: number): Promise<Span[] | null> {
  const d = await dump(page);
  const l = d.layers.find((x) => x.kind === 'gold' && x.name === 'gold');
  return d.annotations.find((a) => a.layerId === l?.id && a.docId === docId)?.spans ?? null;
}

test('corrects weak labels with the keyboard alone, undoes and redoes, and a reload keeps every edit', async ({ page, outside: _ }) => {
  await openDemo(page);
  await makeWeakLabels(page);
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const pick = d.documents
    .filter((x) => x.split === 'train')
    .sort((a, b) => a.id - b.id)
    .map((doc) => ({ doc, suggestions: (d.annotations.find((a) => a.layerId === agg.id && a.docId === doc.id)?.spans ?? []).filter((x) => x.label !== '?') }))
    .find((x) => x.suggestions.length >= 2 && x.suggestions[0].start >= 1)!;
  const { doc, suggestions } = pick;
  await page.goto(`/#/p/${doc.projectId}/annotate/${doc.id}`);
  const box = page.getByTestId('annotate-box');
  await expect(box.locator('.tok.sug').first()).toBeVisible();
  await box.focus();
  await page.keyboard.press('?');
  await expect(page.getByTestId('key-help')).toContainText('undo');

  // Accept the first suggestion (a), reject the second (x).
  let state = { spans: [] as Span[], oTokens: [] as number[] };
  await page.keyboard.press('a');
  state = labelSpan(state, suggestions[0].start, suggestions[0].end, suggestions[0].label);
  await page.keyboard.press('x');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  // Move to token 0, select two tokens with shift+→, type 2 (the second type: Disease).
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('2');
  state = labelSpan(state, 0, 2, 'Disease');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  // Backspace removes the span under the cursor (token 1).
  await page.keyboard.press('Backspace');
  const afterRemove = removeAt(state, 1);
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(afterRemove.spans);
  // Undo brings it back, redo removes it again.
  await page.keyboard.press('u');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  await page.keyboard.press('Control+Shift+Z');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(afterRemove.spans);
  await page.keyboard.press('Control+z');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  // Shift+a accepts every remaining suggestion of the sentence (the rejected one stays out).
  await page.keyboard.press('Shift+A');
  for (const sg of suggestions.slice(2)) state = labelSpan(state, sg.start, sg.end, sg.label);
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  // Reviewed: the sentence's other tokens become definite O.
  await page.keyboard.press('r');
  await expect(page.getByTestId('annotate-status')).toContainText(`${state.spans.length} spans`);
  await page.reload();
  await expect(page.getByTestId('annotate-status')).toContainText(`${state.spans.length} spans`);
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  await expect(page.locator('.tok.def-o').first()).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 500 });
  await page.screenshot({ path: 'docs/annotate.png' });
});

test('the review queue ranks sentences by how many tokens the weak labels and a run disagree on', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  await makeWeakLabels(page);
  await page.getByRole('link', { name: 'Train' }).click();
  await page.getByLabel('Training layer').selectOption({ label: 'weak: aggregate (priority)' });
  await page.getByLabel('Hidden units').fill('16');
  await page.getByLabel('Epochs').fill('2');
  await page.getByLabel('Backend').selectOption('wasm');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  await expect(page.getByTestId('runs-table').locator('tbody tr').first().locator('td').nth(1)).toHaveText('done', { timeout: 240_000 });
  await page.getByRole('link', { name: 'Review queue' }).click();
  await expect(page.getByTestId('review-queue').locator('li').first()).toBeVisible();

  // The expected disagreement per document (the demo's documents are one sentence each).
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const pred = d.layers.filter((l) => l.kind === 'predicted').at(-1)!;
  const tokens = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const docs = await new Promise<{ id: number; offsets: Uint32Array }[]>((r) => { const g = db.transaction('documents').objectStore('documents').getAll(); g.onsuccess = () => r(g.result); });
    return Object.fromEntries(docs.map((x) => [x.id, x.offsets.length / 2]));
  });
  const labels = (spans: Span[], n: number) => {
    const out = new Array<string>(n).fill('O');
    for (const s of spans) for (let t = s.start; t < s.end; t++) out[t] = s.label;
    return out;
  };
  const spansOf = (layer: number, doc: number) => d.annotations.find((a) => a.layerId === layer && a.docId === doc)?.spans ?? [];
  const expected = new Map(
    Object.entries(tokens).map(([id, n]) => {
      const [w, p] = [labels(spansOf(agg.id, Number(id)), n), labels(spansOf(pred.id, Number(id)), n)];
      return [Number(id), w.filter((x, t) => x !== p[t] && x !== '?').length];
    }),
  );
  const items = page.getByTestId('review-queue').locator('li');
  const shown = await items.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-doc')), Number(e.getAttribute('data-count'))]));
  expect(shown.length).toBe(Math.min(200, [...expected.values()].filter((c) => c > 0).length));
  for (const [doc, count] of shown) expect(count).toBe(expected.get(doc));
  for (let i = 1; i < shown.length; i++) expect(shown[i][1]).toBeLessThanOrEqual(shown[i - 1][1]);
  await expect(items.first()).toContainText('tokens where the weak labels and the run disagree');
});
