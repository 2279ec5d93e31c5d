import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { labelSpan, removeAt } from '../src/core/annotate';
import { phraseRules, STOP } from '../src/core/guidedCorrection';
import { rankSentences, type QueueDoc } from '../src/core/reviewSignals';
import { sentenceRanges, tokenTexts, type Span } from '../src/core/types';
import { reviewSignal } from '../src/methods/reviewSignals';
import { expect, makeWeakLabels, openDemo, storeRows, test, docScreenshot, trainSmallRun } from './fixtures';

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
    const all = (s: string) =>
      new Promise<unknown[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result);
      });
    const documents = ((await all('documents')) as Row[]).map(({ id, projectId, split }) => ({ id, projectId, split }));
    return {
      layers: (await all('layers')) as Dump['layers'],
      annotations: [
        ...(await all('annotations')),
        ...((await all('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
          c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
        ),
      ] as Dump['annotations'],
      documents,
    };
  });
}

/** The demo with weak labels and a small model trained on them (16 units, WASM), finished. */
async function demoWithRun(page: Page, epochs: number, members = 1): Promise<void> {
  await openDemo(page);
  await makeWeakLabels(page);
  await trainSmallRun(page, { hidden: 16, epochs, members });
}

/** Every row of the named IndexedDB stores, typed arrays read as plain arrays. */
function readStores(page: Page, names: string[]): Promise<Record<string, Record<string, unknown>[]>> {
  return page.evaluate(async (names) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const plain = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as Float32Array) : v]));
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const s of names)
      out[s] = await new Promise((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r((g.result as Record<string, unknown>[]).map(plain));
      });
    return out;
  }, names);
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
  // A legend: each type's key, its colour as an annotation and as a suggestion, and reviewed O.
  const legend = page.getByTestId('annotate-legend');
  await expect(legend).toContainText('1 Chemical suggested');
  await expect(legend).toContainText('2 Disease suggested');
  const sugColor = await box
    .locator('.tok.sug')
    .first()
    .evaluate((e) => getComputedStyle(e).borderBottomColor);
  const sugType = (await box.locator('.tok.sug').first().getAttribute('title'))!.replace('suggested: ', '');
  expect(await legend.locator(`[data-type="${sugType}"] .tok.sug`).evaluate((e) => getComputedStyle(e).borderBottomColor)).toBe(sugColor);
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
  await expect(page.getByTestId('annotate-status')).toContainText('0 suggestions left');
  await page.reload();
  await expect(page.getByTestId('annotate-status')).toContainText(`${state.spans.length} spans`);
  // The rejected suggestion stays rejected after the reload.
  await expect(page.getByTestId('annotate-status')).toContainText('0 suggestions left');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual(state.spans);
  await expect(page.locator('.tok.def-o').first()).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 500 });
  await docScreenshot(page, 'annotate.png');
});

test('selects tokens with the mouse (click, drag, shift-click), and a sentence reviewed as O settles its suggestions', async ({ page, outside: _ }) => {
  await openDemo(page);
  await makeWeakLabels(page);
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const doc = d.documents
    .filter((x) => x.split === 'train')
    .sort((a, b) => a.id - b.id)
    .find((x) => (d.annotations.find((a) => a.layerId === agg.id && a.docId === x.id)?.spans ?? []).some((s) => s.label !== '?' && s.start >= 6))!;
  await page.goto(`/#/p/${doc.projectId}/annotate/${doc.id}`);
  const box = page.getByTestId('annotate-box');
  const tok = (t: number) => box.locator(`[data-t="${t}"]`);
  await expect(box.locator('.tok.sug').first()).toBeVisible();
  // A click places the cursor and selects nothing.
  await tok(1).click();
  await expect(tok(1)).toHaveClass(/cursor/);
  await expect(box.locator('.tok.sel')).toHaveCount(0);
  // A drag from token 0 to token 2 selects three tokens; 1 gives them the first type.
  await tok(0).hover();
  await page.mouse.down();
  await tok(2).hover();
  await page.mouse.up();
  await expect(box.locator('.tok.sel')).toHaveCount(3);
  await page.keyboard.press('1');
  await expect.poll(() => goldSpans(page, doc.id)).toEqual([{ start: 0, end: 3, label: 'Chemical' }]);
  // Shift-click extends from the cursor: 3, then shift+click 4, selects two tokens.
  await tok(3).click();
  await tok(4).click({ modifiers: ['Shift'] });
  await expect(box.locator('.tok.sel')).toHaveCount(2);
  await page.keyboard.press('2');
  await expect
    .poll(() => goldSpans(page, doc.id))
    .toEqual([
      { start: 0, end: 3, label: 'Chemical' },
      { start: 3, end: 5, label: 'Disease' },
    ]);
  // r marks the sentence's other tokens O: the suggestions over them no longer count.
  await expect(page.getByTestId('annotate-status')).not.toContainText(' 0 suggestions left');
  await page.keyboard.press('r');
  await expect(page.getByTestId('annotate-status')).toContainText('0 suggestions left');
});

test('the review queue ranks sentences by how many tokens the weak labels and a run disagree on', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await demoWithRun(page, 2);
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByTestId('review-queue').locator('li').first()).toBeVisible();
  // The queue opens on the model's uncertainty (the rule over the simulated corpora chose it), taking keys at once; disagreement is one choice away.
  await expect(page.getByTestId('review-box')).toBeFocused();
  await expect(page.getByTestId('review-summary')).toContainText('the model is least sure');
  await page.getByLabel('Review signal').selectOption('disagreement');
  // Ranked in the query worker: the summary says so once the new ranking is in.
  await expect(page.getByTestId('review-summary')).toContainText('weak labels and the run disagree');

  // The expected disagreement per document (the demo's documents are one sentence each).
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const pred = d.layers.filter((l) => l.kind === 'predicted').at(-1)!;
  const tokens = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const docs = await new Promise<{ id: number; offsets: Uint32Array }[]>((r) => {
      const g = db.transaction('documents').objectStore('documents').getAll();
      g.onsuccess = () => r(g.result);
    });
    return Object.fromEntries(docs.map((x) => [x.id, x.offsets.length / 2]));
  });
  const labels = (spans: Span[], n: number) => {
    const out = new Array<string>(n).fill('O');
    for (const s of spans) for (let t = s.start; t < s.end; t++) out[t] = s.label;
    return out;
  };
  const spansOf = (layer: number, doc: number) => d.annotations.find((a) => a.layerId === layer && a.docId === doc)?.spans ?? [];
  // The queue holds training sentences unless the user asks for dev and test as well.
  const trainDocs = new Set(d.documents.filter((x) => x.split === 'train').map((x) => x.id));
  const expected = new Map(
    Object.entries(tokens)
      .filter(([id]) => trainDocs.has(Number(id)))
      .map(([id, n]) => {
        const [w, p] = [labels(spansOf(agg.id, Number(id)), n), labels(spansOf(pred.id, Number(id)), n)];
        return [Number(id), w.filter((x, t) => x !== p[t] && x !== '?').length];
      }),
  );
  const items = page.getByTestId('review-queue').locator('li');
  const shown = await items.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-doc')), Number(e.getAttribute('data-count'))]));
  expect(shown.length).toBe(Math.min(200, [...expected.values()].filter((c) => c > 0).length));
  for (const [doc, count] of shown) expect(count).toBe(expected.get(doc));
  for (let i = 1; i < shown.length; i++) expect(shown[i][1]).toBeLessThanOrEqual(shown[i - 1][1]);
  await expect(page.getByTestId('review-summary')).toContainText('weak labels and the run disagree');
  await expect(page.getByTestId('review-summary')).toContainText('more on dev and test, left out');
  // Each queued sentence is drawn twice, weak labels over the run's, with as many tokens marked as it disagrees on.
  const first = items.first();
  await expect(first.locator('[data-line="weak"]')).toBeVisible();
  await expect(first.locator('[data-line="run"]')).toBeVisible();
  await expect(first.locator('[data-line="weak"] .tok.flag')).toHaveCount(shown[0][1]);
  // Decided from the queue with the editor's keys: a takes the run's labels, x keeps the weak ones,
  // each into the corrections layer with the sentence reviewed; u undoes.
  const box = page.getByTestId('review-box');
  const rankedAt = await page.getByTestId('review-summary').getAttribute('data-ranked-at');
  expect(Number(rankedAt)).toBeGreaterThan(0);
  await box.focus();
  await page.keyboard.press('a');
  await expect(items.nth(0)).toHaveAttribute('data-decided', 'run');
  await expect(items.nth(1)).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('x');
  await expect(items.nth(1)).toHaveAttribute('data-decided', 'weak');
  // A decision writes the corrections layer, which the queue does not read: it is not ranked again.
  await page.waitForTimeout(500);
  await expect(page.getByTestId('review-summary')).toHaveAttribute('data-ranked-at', rankedAt!);
  const goldIds = new Set(d.layers.filter((l) => l.kind === 'gold').map((l) => l.id));
  const goldBefore = JSON.stringify(d.annotations.filter((x) => goldIds.has(x.layerId)));
  const correctedOf = async (docId: number) => {
    const dd = await dump(page);
    const layer = dd.layers.find((l) => l.kind === 'corrected' && l.name === 'corrections')!;
    // Nothing reaches a gold layer from the queue.
    const golds = new Set(dd.layers.filter((l) => l.kind === 'gold').map((l) => l.id));
    expect(JSON.stringify(dd.annotations.filter((x) => golds.has(x.layerId)))).toBe(goldBefore);
    return dd.annotations.find((x) => x.layerId === layer.id && x.docId === docId)?.spans ?? null;
  };
  const [doc0, doc1] = [shown[0][0], shown[1][0]];
  expect(await correctedOf(doc0)).toEqual(spansOf(pred.id, doc0).filter((x) => x.label !== '?'));
  expect(await correctedOf(doc1)).toEqual(spansOf(agg.id, doc1).filter((x) => x.label !== '?'));
  await page.keyboard.press('u');
  await expect(items.nth(1)).not.toHaveAttribute('data-decided', 'weak');
  await expect(items.nth(1)).toHaveAttribute('aria-current', 'true');
  await expect.poll(() => correctedOf(doc1)).toBeNull();
  expect(await correctedOf(doc0)).toEqual(spansOf(pred.id, doc0).filter((x) => x.label !== '?'));
  // Dev, test and documents of no split join the queue only when asked.
  const queued = async () => Number(/^(\d+)/.exec((await page.getByTestId('review-summary').textContent()) ?? '')?.[1]);
  const trainQueued = await queued();
  expect(trainQueued).toBe([...expected.values()].filter((c) => c > 0).length);
  await page.getByLabel('Include every split').check();
  await expect.poll(queued).toBeGreaterThan(trainQueued);
  await page.getByLabel('Include every split').uncheck();

  // Model uncertainty, which every run records: sentences by their most uncertain token, as stored.
  const run = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = (s: string) =>
      new Promise<unknown[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result);
      });
    const runs = (await all('runs')) as { id: number }[];
    const signals = (await all('signals')) as { runId: number; docId: number; uncertainty: Float32Array }[];
    return { id: runs.at(-1)!.id, maxUnc: Object.fromEntries(signals.map((x) => [x.docId, Math.max(...x.uncertainty)])) };
  });
  await page.getByLabel('Review signal').selectOption('uncertainty');
  await expect(page.getByTestId('review-summary')).toContainText('the model is least sure');
  const byUnc = await items.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-doc')), Number(e.getAttribute('data-score'))]));
  expect(byUnc.length).toBeGreaterThan(0);
  for (const [doc, score] of byUnc) expect(score).toBeCloseTo(run.maxUnc[doc], 5);
  for (let i = 1; i < byUnc.length; i++) expect(byUnc[i][1]).toBeLessThanOrEqual(byUnc[i - 1][1]);
  // Nearly every token has some uncertainty: the queue outlines only the least sure ones its reasons name.
  await expect(items.first().locator('.muted').first()).toContainText(/tokens?( flagged, the strongest)?:/);
  expect(await items.first().locator('[data-line="weak"] .tok.flag').count()).toBeLessThanOrEqual(4);

  // Reach: the doubted phrases' occurrences across the training sentences, the same ranking the core computes from what is stored.
  await page.getByLabel('Review signal').selectOption('reach');
  await expect(page.getByTestId('review-summary')).toContainText('correcting it reaches farthest');
  const rows = await readStores(page, ['documents', 'signals']);
  const unc = new Map(
    (rows.signals as { runId: number; docId: number; uncertainty: number[] }[]).filter((x) => x.runId === run.id).map((x) => [x.docId, x.uncertainty]),
  );
  const trainRows = (rows.documents as { id: number; name: string; split: string; text: string; offsets: number[]; sentenceStarts: number[] }[]).filter(
    (x) => x.split === 'train',
  );
  const queueDocs: QueueDoc[] = trainRows.map((x) => {
    const doc = { text: x.text, offsets: x.offsets, sentenceStarts: x.sentenceStarts };
    return {
      docId: x.id,
      name: x.name,
      words: tokenTexts(doc),
      sentences: sentenceRanges(doc),
      weak: spansOf(agg.id, x.id),
      predicted: spansOf(pred.id, x.id),
      signals: unc.has(x.id) ? { uncertainty: Float32Array.from(unc.get(x.id)!) } : undefined,
    };
  });
  const wantReach = rankSentences(queueDocs, reviewSignal('reach'), 200);
  expect(wantReach.length).toBeGreaterThan(0);
  await expect(items).toHaveCount(wantReach.length);
  const byReach = await items.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-doc')), Number(e.getAttribute('data-score'))]));
  expect(byReach.map(([, score]) => score)).toEqual(wantReach.map((e) => expect.closeTo(e.score, 4)));
  await expect(items.first()).toContainText(/\d+ occurrences?; weak /);

  // A run with known PU values: the queue puts the lowest removed O-value first and says so.
  const docs = d.documents
    .filter((x) => x.split === 'train')
    .slice(0, 3)
    .map((x) => x.id);
  const known = [
    { docId: docs[0], oValue: [0.5, -1.25], puRemoved: [1, 1] },
    { docId: docs[1], oValue: [-3, 2], puRemoved: [1, 0] },
    { docId: docs[2], oValue: [-9, 0], puRemoved: [0, 1] },
  ];
  await page.evaluate(
    async ({ runId, known }) => {
      const req = indexedDB.open('ner-studio');
      const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
      const tx = db.transaction('signals', 'readwrite');
      const store = tx.objectStore('signals');
      for (const k of known) {
        const row = await new Promise<Record<string, unknown>>((r) => {
          const g = store.get([runId, k.docId]);
          g.onsuccess = () => r(g.result ?? { runId, docId: k.docId });
        });
        store.put({ ...row, oValue: Float32Array.from(k.oValue), puRemoved: Uint8Array.from(k.puRemoved) });
      }
      await new Promise((r) => (tx.oncomplete = r));
    },
    { runId: run.id, known },
  );
  await page.reload();
  await page.getByLabel('Review signal').selectOption('pu');
  await expect(page.getByTestId('review-summary')).toContainText('lowest O-values of the PU step');
  const byPu = await items.evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-doc')), Number(e.getAttribute('data-score'))]));
  // Removed O-values: doc0 {0.5, -1.25} → -1.25; doc1 {-3}; doc2 {0} (its -9 was not removed).
  expect(byPu).toEqual([
    [docs[1], 3],
    [docs[0], 1.25],
    [docs[2], 0],
  ]);
  await expect(items.first()).toContainText('O-value -3, removed as a likely unlabeled entity');
  await page.setViewportSize({ width: 1280, height: 1100 });
  // The queue keeps its current entry in view; the README's picture is the page's top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await docScreenshot(page, 'review-queue.png');
  // An entry opens the editor at its sentence.
  await items.first().getByRole('link').click();
  await expect(page.getByTestId('annotate-title')).toBeVisible();
  expect(page.url()).toContain(`/annotate/${docs[1]}/0`);

  // Weak layers but no aggregate (a project that imported its weak labels): the queue ranks the
  // first weak layer, and the select shows it, instead of waiting on a layer nobody chose.
  await page.evaluate(async (aggId) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const tx = db.transaction('layers', 'readwrite');
    tx.objectStore('layers').delete(aggId);
    await new Promise((r) => (tx.oncomplete = r));
    db.close();
  }, agg.id);
  await page.reload();
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  const firstWeak = d.layers.filter((l) => l.kind === 'weak' && l.id !== agg.id).sort((x, y) => x.id - y.id)[0];
  await expect(page.getByLabel('Review weak layer')).toHaveValue(String(firstWeak.id));
  await expect(page.getByTestId('review-summary')).toContainText(/^\d+ training sentences queued: the model is least sure/);
});

test("the queue's decisions go into the dictionary in one step, the weak layer labelled again, and one undo takes them out", async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await demoWithRun(page, 2);
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  const panel = page.getByTestId('queue-dictionary');
  await expect(panel.getByRole('button', { name: /^Add 0 phrases/ })).toBeDisabled();
  // Disagreement: the first sentence's weak labels and the run's differ, so accepting the run's teaches something.
  await page.getByLabel('Review signal').selectOption('disagreement');
  await expect(page.getByTestId('review-summary')).toContainText('weak labels and the run disagree');
  const items = page.getByTestId('review-queue').locator('li');
  const docId = Number(await items.first().getAttribute('data-doc'));
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const pred = d.layers.filter((l) => l.kind === 'predicted').at(-1)!;
  const spansIn = (layer: number) => d.annotations.find((a) => a.layerId === layer && a.docId === docId)?.spans ?? [];
  const [row] = (await readStores(page, ['documents'])).documents.filter((x) => x.id === docId) as unknown as { text: string; offsets: number[] }[];
  // The demo's documents are one sentence each.
  const want = phraseRules([
    {
      words: tokenTexts(row),
      // Untyped weak matches ('?') are left out: a decision never stop-lists them.
      weak: spansIn(agg.id)
        .filter((x) => x.label !== '?')
        .map((x) => ({ start: x.start, end: x.end, type: x.label })),
      gold: spansIn(pred.id)
        .filter((x) => x.label !== '?')
        .map((x) => ({ start: x.start, end: x.end, type: x.label })),
    },
  ]);
  expect(want.size).toBeGreaterThan(0);
  await page.getByTestId('review-box').focus();
  await page.keyboard.press('a');
  await expect(items.first()).toHaveAttribute('data-decided', 'run');
  const phrases = panel.getByTestId('queue-dictionary-phrases').locator('li[data-phrase]');
  await expect(phrases).toHaveCount(want.size);
  expect(await phrases.evaluateAll((els) => els.map((e) => [e.getAttribute('data-phrase'), e.getAttribute('data-answer')]))).toEqual(
    [...want].map(([p, a]) => [p, a === STOP ? 'stop' : a]),
  );
  const entries = async () => {
    const r = await readStores(page, ['gazetteers', 'gazetteerEntries']);
    const byId = new Map(r.gazetteers.map((g) => [g.id as number, g as { name: string; stop?: boolean }]));
    return r.gazetteerEntries
      .filter((e) => byId.get(e.gazetteerId as number)?.name === 'corrections' || byId.get(e.gazetteerId as number)?.stop)
      .map((e) => [e.phrase, byId.get(e.gazetteerId as number)?.stop ? 'stop' : e.type])
      .sort();
  };
  expect(await entries()).toEqual([]);
  await panel.getByRole('button', { name: `Add ${want.size} ${want.size === 1 ? 'phrase' : 'phrases'} to the dictionary` }).click();
  await expect(panel.getByTestId('queue-dictionary-note')).toContainText('the weak layer is labelled again', { timeout: 60_000 });
  expect(await entries()).toEqual([...want].map(([p, a]) => [p, a === STOP ? 'stop' : a]).sort());
  // The weak labels were made again: a new aggregate, which the queue now ranks against.
  const after = await dump(page);
  expect(after.layers.some((l) => l.id === agg.id)).toBe(false);
  expect(after.layers.some((l) => l.role === 'aggregate')).toBe(true);
  await expect(page.getByTestId('review-summary')).toContainText('sentences queued');
  // Sent decisions are not offered again; one undo takes every phrase out and labels again.
  await expect(panel.getByRole('button', { name: /^Add 0 phrases/ })).toBeDisabled();
  await panel.getByRole('button', { name: 'Undo' }).click();
  await expect(panel.getByTestId('queue-dictionary-note')).toContainText('Taken out again; the weak layer is labelled again', { timeout: 60_000 });
  expect(await entries()).toEqual([]);
  await expect(panel.getByRole('button', { name: `Add ${want.size} ${want.size === 1 ? 'phrase' : 'phrases'} to the dictionary` })).toBeEnabled();
});

test("two annotators' agreement equals the hand-computed kappa and span F1, and progress counts reviewed sentences", async ({ page, outside: _ }) => {
  await openDemo(page);
  const d = await dump(page);
  const projectId = d.documents[0].projectId;
  const info = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const docs = await new Promise<{ id: number; offsets: Uint32Array; sentenceStarts: number[]; split: string }[]>((r) => {
      const g = db.transaction('documents').objectStore('documents').getAll();
      g.onsuccess = () => r(g.result);
    });
    const doc = docs.find((x) => x.offsets.length / 2 >= 10 && x.sentenceStarts.length === 1 && x.split === 'train')!;
    return { docId: doc.id, n: doc.offsets.length / 2 };
  });
  const { docId, n } = info;
  // Alice: X on tokens 0–1, Y on 5. Bob: X on 0, Y on 5 and Y on 6, every other token definite O.
  await page.evaluate(
    async ({ projectId, docId, n }) => {
      const req = indexedDB.open('ner-studio');
      const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
      const tx = db.transaction(['layers', 'annotations'], 'readwrite');
      const add = (name: string) =>
        new Promise<number>((r) => {
          const q = tx.objectStore('layers').add({ projectId, kind: 'gold', name, createdAt: Date.now() });
          q.onsuccess = () => r(q.result as number);
        });
      const [alice, bob] = [await add('alice'), await add('bob')];
      const all = Array.from({ length: n }, (_, t) => t);
      tx.objectStore('annotations').put({
        layerId: alice,
        docId,
        spans: [
          { start: 0, end: 2, label: 'X' },
          { start: 5, end: 6, label: 'Y' },
        ],
        oMode: 'partial',
        oTokens: all.filter((t) => t >= 2 && t !== 5),
        reviewedAt: { 0: 1_000_000 },
      });
      tx.objectStore('annotations').put({
        layerId: bob,
        docId,
        spans: [
          { start: 0, end: 1, label: 'X' },
          { start: 5, end: 6, label: 'Y' },
          { start: 6, end: 7, label: 'Y' },
        ],
        oMode: 'partial',
        oTokens: all.filter((t) => t !== 0 && t !== 5 && t !== 6),
      });
      await new Promise((r) => (tx.oncomplete = r));
    },
    { projectId, docId, n },
  );
  await page.goto(`/#/p/${projectId}/review`);
  await page.getByLabel('Progress annotator').selectOption({ label: 'alice' });
  await page.getByLabel('Agreement annotator').selectOption({ label: 'bob' });
  // By hand: they differ on tokens 1 and 6; alice has X 2, Y 1, O n−3; bob X 1, Y 2, O n−3.
  const po = (n - 2) / n;
  const pe = (2 * 1 + 1 * 2 + (n - 3) ** 2) / n ** 2;
  const agreement = page.getByTestId('agreement');
  await expect(agreement).toContainText('on the 1 sentences both reviewed');
  expect(Number(await agreement.getAttribute('data-kappa'))).toBeCloseTo((po - pe) / (1 - pe), 9);
  // One exact span match (Y on 5) of bob's 3 against alice's 2: P 1/3, R 1/2, F1 0.4.
  expect(Number(await agreement.getAttribute('data-f1'))).toBeCloseTo(0.4, 9);
  await expect(page.getByTestId('progress-splits').locator('tr[data-split="train"]')).toContainText('1 / ');
  await expect(page.getByTestId('progress-types')).toContainText('X 1 · Y 1');
  await expect(page.getByTestId('progress-speed')).toContainText('1 sentences marked reviewed');
  // The table exports as CSV, cell for cell.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export annotation-progress as CSV' }).click()]);
  const lines = readFileSync((await csv.path())!, 'utf8')
    .trim()
    .split('\n');
  expect(lines[0]).toBe('split,sentences reviewed,tokens reviewed');
  const shown = await page.getByTestId('progress-splits').locator('tbody tr').allInnerTexts();
  expect(lines.slice(1).map((l) => l.replace(/"/g, ''))).toEqual(shown.map((r) => r.split('\t').join(',')));
});

test("the editor shows the document's neighbours as context and opens them", async ({ page, outside: _ }) => {
  await openDemo(page);
  const texts = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    return new Promise<{ id: number; projectId: number; text: string }[]>((r) => {
      const g = db.transaction('documents').objectStore('documents').getAll();
      g.onsuccess = () => r((g.result as { id: number; projectId: number; text: string }[]).sort((a, b) => a.id - b.id));
    });
  });
  const [first, second, third] = texts;
  await page.goto(`/#/p/${second.projectId}/annotate/${second.id}`);
  await expect(page.getByTestId('neighbour-before')).toContainText(first.text.slice(0, 60));
  await expect(page.getByTestId('neighbour-after')).toContainText(third.text.slice(0, 60));
  await page.getByTestId('neighbour-after').getByRole('link').click();
  expect(page.url()).toContain(`/annotate/${third.id}/0`);
  await expect(page.getByTestId('neighbour-before')).toContainText(second.text.slice(0, 60));
  // The first document has no neighbour before it.
  await page.goto(`/#/p/${first.projectId}/annotate/${first.id}`);
  await expect(page.getByTestId('neighbour-after')).toContainText(second.text.slice(0, 60));
  await expect(page.getByTestId('neighbour-before')).toHaveCount(0);
});

test("the review loop fine-tunes an ensemble's run as an ensemble, every member kept", async ({ page, outside: _ }) => {
  test.setTimeout(420_000);
  await demoWithRun(page, 1, 2);
  const firstRun = Number(await page.getByTestId('runs-table').locator('tbody tr').first().getAttribute('data-run'));
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByTestId('review-queue').locator('li').first()).toBeVisible();
  await page.getByLabel('Fine-tune every').fill('2');
  await page.getByTestId('review-box').focus();
  await page.keyboard.press('a');
  await expect(page.getByTestId('loop-status')).toContainText('1 correction; 1 more correction');
  await page.keyboard.press('x');
  await expect(page.getByTestId('loop-status')).toContainText('fine-tuned with 2 corrections', { timeout: 300_000 });
  const runs = await storeRows<{
    id: number;
    status: string;
    config: { loop?: { fromRunId: number }; train: { members: number } };
    metrics: { members?: { seed: number }[]; history: { stage?: string }[] };
  }>(page, 'runs');
  const loopRun = runs.find((r) => r.config.loop)!;
  expect(loopRun.config.loop?.fromRunId).toBe(firstRun);
  expect(loopRun.status).toBe('done');
  // Both members fine-tuned (each from the member the first run kept), decoded as one again.
  expect(loopRun.config.train.members).toBe(2);
  expect(loopRun.metrics.members?.map((m) => m.seed)).toEqual([1, 1001]);
  expect([...new Set(loopRun.metrics.history.map((h) => h.stage))]).toEqual(['member 1 of 2: weighted-wsl', 'member 2 of 2: weighted-wsl']);
  const models = await storeRows<{ runId: number; kind: string; state: { members?: unknown[] } }>(page, 'models');
  expect(models.find((m) => m.runId === loopRun.id && m.kind === 'final')?.state.members).toHaveLength(2);
});

test('the review loop: corrections start a background fine-tune that a reload resumes, the queue re-ranks by it, and the curve grows', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(420_000);
  await demoWithRun(page, 4);
  const firstRun = Number(await page.getByTestId('runs-table').locator('tbody tr').first().getAttribute('data-run'));
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByTestId('review-queue').locator('li').first()).toBeVisible();
  await expect(page.getByLabel('Review run')).toHaveValue(String(firstRun));
  // Two corrections with the loop set to 2: a fine-tune starts in the background.
  await page.getByLabel('Fine-tune every').fill('2');
  await expect(page.getByTestId('loop-status')).toContainText('0 corrections; 2 more corrections until the next fine-tune');
  await page.getByTestId('review-box').focus();
  await page.keyboard.press('a');
  await expect(page.getByTestId('loop-status')).toContainText('1 correction; 1 more correction');
  // What reviewing found: the run's labels may or may not differ from the weak ones there.
  const found = page.getByTestId('loop-yield');
  await expect(found).toHaveAttribute('data-reviewed', '1');
  const changed = Number(await found.getAttribute('data-changed'));
  expect([0, 1]).toContain(changed);
  await page.keyboard.press('x');
  await expect(page.getByTestId('loop-status')).toContainText('with 2 corrections: epoch', { timeout: 120_000 });
  // Keeping the weak labels changes none: the count of changed sentences stays.
  await expect(found).toHaveAttribute('data-reviewed', '2');
  await expect(found).toHaveAttribute('data-changed', String(changed));
  await expect(found).toContainText(`${changed} of the 2 training sentences reviewed in “corrections”`);
  // Each verdict is kept in the corrections layer's row as it was decided (a weak layer labelled again does not rewrite it).
  const verdicts = async () => {
    const dd = await dump(page);
    const layer = dd.layers.find((l) => l.kind === 'corrected' && l.name === 'corrections')!;
    return dd.annotations
      .filter((x) => x.layerId === layer.id)
      .flatMap((x) => Object.values((x as { weakChanged?: Record<number, boolean> }).weakChanged ?? {}))
      .map(Number)
      .sort();
  };
  expect(await verdicts()).toEqual(changed ? [0, 1] : [0, 0]);
  const runs = await storeRows<{
    id: number;
    status: string;
    config: { loop?: { corrections: number; fromRunId: number }; method: unknown; pipeline?: unknown };
    metrics?: { resumedFrom?: number };
  }>(page, 'runs');
  const loopRun = runs.find((r) => r.config.loop)!;
  expect(loopRun.config.loop).toEqual({ corrections: 2, fromRunId: firstRun });
  // The page's WSL run is fine-tuned with the corrections weighing ten times the weak sentences.
  expect(loopRun.config.method).toEqual({ name: 'weighted-wsl', gamma: 0.1 });
  // Keeping the model it started from where it does not beat it on dev is the panel's setting, off by default.
  await expect(page.getByLabel('Keep the current model when a fine-tune does not beat it on dev')).not.toBeChecked();
  expect(loopRun.config.pipeline).toEqual({ kind: 'single' });
  // The editor works while it trains: an edit there is saved at once.
  await page.getByTestId('review-queue').locator('li').nth(2).getByRole('link').click();
  const editor = page.getByTestId('annotate-box');
  await expect(editor).toBeFocused();
  // Opened from the queue, the editor writes to the same corrections layer.
  await expect(page.getByLabel('Write to')).toHaveValue('corrections');
  await page.keyboard.press('1');
  await expect(page.getByTestId('annotate-status')).toContainText('1 span ·');
  const editorUrl = page.url();
  const editedDoc = Number(/annotate\/(\d+)\//.exec(editorUrl)![1]);
  await expect
    .poll(async () => {
      const dd = await dump(page);
      const layer = dd.layers.find((l) => l.kind === 'corrected' && l.name === 'corrections')!;
      return dd.annotations.find((x) => x.layerId === layer.id && x.docId === editedDoc)?.spans.length ?? 0;
    })
    .toBeGreaterThan(0);
  // A reload in the middle of the fine-tune: the loop resumes it from its last epoch.
  expect((await storeRows<{ id: number; status: string }>(page, 'runs')).find((r) => r.id === loopRun.id)!.status).toBe('running');
  await page.reload();
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByTestId('loop-status')).toContainText(`fine-tuning run ${loopRun.id}`, { timeout: 60_000 });
  await expect(page.getByTestId('loop-status')).toContainText(`run ${loopRun.id} fine-tuned with 2 corrections`, { timeout: 240_000 });
  await expect(page.getByTestId('loop-status')).toContainText('2 corrections; 2 more corrections until the next fine-tune');
  const after = (await storeRows<typeof loopRun & { status: string }>(page, 'runs')).find((r) => r.id === loopRun.id)!;
  expect(after.status).toBe('done');
  expect(after.metrics?.resumedFrom).toBeGreaterThanOrEqual(1);
  // The queue ranks by the fine-tuned model now, and the curve has its point beside the first run's.
  await expect(page.getByLabel('Review run')).toHaveValue(String(loopRun.id));
  await expect(page.getByTestId('loop-curve').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('loop-curve').locator('tbody tr').nth(1)).toHaveAttribute('data-corrections', '2');
  // Ticked (kept across a reload), the next fine-tune keeps its start where no epoch beats it on dev.
  const keep = page.getByLabel('Keep the current model when a fine-tune does not beat it on dev');
  await keep.check();
  await page.reload();
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(keep).toBeChecked();
  await expect(page.getByTestId('review-queue').locator('li').first()).toBeVisible();
  await page.getByTestId('review-box').focus();
  await page.keyboard.press('a');
  await expect(page.getByTestId('loop-status')).toContainText('3 corrections; 1 more correction');
  await page.keyboard.press('x');
  await expect(page.getByTestId('loop-status')).toContainText('with 4 corrections: ', { timeout: 120_000 });
  await expect
    .poll(
      async () =>
        (await storeRows<{ config: { loop?: { corrections: number }; pipeline?: unknown } }>(page, 'runs')).find((r) => r.config.loop?.corrections === 4)
          ?.config.pipeline,
    )
    .toEqual({ kind: 'single', keepStart: true });
  // Fine-tune every: a value that is no whole number is refused where it is typed.
  await page.getByLabel('Fine-tune every').fill('2.5');
  await expect(page.getByRole('alert')).toContainText('Fine-tune every: a whole number of corrections');
  // A sentence marked reviewed in the editor (r) keeps its verdict against its weak labels too.
  await page.goto(editorUrl);
  await expect(page.getByLabel('Write to')).toHaveValue('corrections');
  await expect(page.getByTestId('annotate-box').locator('.tok').first()).toBeVisible();
  await page.getByTestId('annotate-box').focus();
  // Each verdict against what it should be: the sentence's typed spans in the corrections row and in the aggregate weak layer's.
  const starts = await page.evaluate(async (id) => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const doc = await new Promise<{ sentenceStarts: number[]; offsets: Uint32Array }>((r) => {
      const g = db.transaction('documents').objectStore('documents').get(id);
      g.onsuccess = () => r(g.result);
    });
    return [...doc.sentenceStarts, doc.offsets.length / 2];
  }, editedDoc);
  const editorVerdicts = async () => {
    const dd = await dump(page);
    const layer = dd.layers.find((l) => l.kind === 'corrected' && l.name === 'corrections')!;
    const weakRow = dd.annotations.find((x) => x.layerId === dd.layers.find((l) => l.role === 'aggregate')!.id && x.docId === editedDoc);
    const row = dd.annotations.find((x) => x.layerId === layer.id && x.docId === editedDoc) as
      | { spans: { start: number; end: number; label: string }[]; weakChanged?: Record<number, boolean> }
      | undefined;
    const inside = (spans: { start: number; end: number; label: string }[], a: number) => {
      const b = starts[starts.indexOf(a) + 1];
      return spans
        .filter((x) => x.start < b && x.end > a && x.label !== '?')
        .map((x) => `${x.start}:${x.end}:${x.label}`)
        .sort()
        .join(' ');
    };
    return Object.entries(row?.weakChanged ?? {}).map(([a, v]) => ({
      kept: v,
      expected: inside(row!.spans, Number(a)) !== inside(weakRow?.spans ?? [], Number(a)),
    }));
  };
  // The span taken out again and every weak suggestion accepted: marked reviewed, the sentence found nothing.
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Shift+A');
  await page.keyboard.press('r');
  await expect.poll(async () => (await editorVerdicts()).length).toBeGreaterThan(0);
  for (const v of await editorVerdicts()) expect(v.kept).toBe(v.expected);
  const foundNothing = (await editorVerdicts()).filter((v) => !v.kept).length;
  expect(foundNothing).toBeGreaterThan(0);
  // An edit in a reviewed sentence takes its verdict afresh: the cursor token given the second type, a change.
  await page.keyboard.press('2');
  await expect.poll(async () => (await editorVerdicts()).every((v) => v.kept === v.expected)).toBe(true);
  expect((await editorVerdicts()).filter((v) => !v.kept).length).toBe(foundNothing - 1);
  // The edit undone, the sentence holds the aggregate's labels again: it found nothing.
  await page.keyboard.press('u');
  await expect.poll(async () => (await editorVerdicts()).filter((v) => !v.kept).length).toBe(foundNothing);
  // Another weak layer chosen in the queue is kept over a reload, and the editor judges against it
  // too: in a one-sentence training document where a weak source labels otherwise than the
  // aggregate, the aggregate's labels accepted and marked reviewed are a find against that source.
  const dd = await dump(page);
  const aggregate = dd.layers.find((l) => l.role === 'aggregate')!;
  const corrections = dd.layers.find((l) => l.kind === 'corrected' && l.name === 'corrections')!;
  const typedOf = (spans: readonly { start: number; end: number; label: string }[]) =>
    spans
      .filter((x) => x.label !== '?')
      .map((x) => `${x.start}:${x.end}:${x.label}`)
      .sort()
      .join(' ');
  const typed = (layer: number, doc: number) => typedOf(dd.annotations.find((x) => x.layerId === layer && x.docId === doc)?.spans ?? []);
  const oneSentence = new Set(
    await page.evaluate(async () => {
      const req = indexedDB.open('ner-studio');
      const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
      const docs = await new Promise<{ id: number; sentenceStarts: number[] }[]>((r) => {
        const g = db.transaction('documents').objectStore('documents').getAll();
        g.onsuccess = () => r(g.result);
      });
      return docs.filter((x) => x.sentenceStarts.length === 1).map((x) => x.id);
    }),
  );
  const sources = dd.layers.filter((l) => l.kind === 'weak' && l.id !== aggregate.id);
  const pick = dd.documents
    .filter((x) => x.split === 'train' && oneSentence.has(x.id) && typed(aggregate.id, x.id) !== '')
    .filter((x) => !dd.annotations.some((a) => a.layerId === corrections.id && a.docId === x.id))
    .map((x) => ({ doc: x.id, other: sources.find((l) => typed(l.id, x.id) !== typed(aggregate.id, x.id)) }))
    .find((x) => x.other)!;
  expect(pick).toBeTruthy();
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await page.getByLabel('Review weak layer').selectOption(String(pick.other!.id));
  await page.reload();
  await expect(page.getByLabel('Review weak layer')).toHaveValue(String(pick.other!.id));
  await page.goto(editorUrl.replace(/annotate\/\d+(\/\d+)?/, `annotate/${pick.doc}/0`));
  await expect(page.getByLabel('Write to')).toHaveValue('corrections');
  // Keys before the document and its suggestions are drawn would do nothing: wait for them.
  await expect(page.getByTestId('annotate-box').locator('.tok.sug').first()).toBeVisible();
  await page.getByTestId('annotate-box').focus();
  await page.keyboard.press('Shift+A');
  await page.keyboard.press('r');
  const verdictOf = async () => {
    const row = (await dump(page)).annotations.find((a) => a.layerId === corrections.id && a.docId === pick.doc);
    return row && { spans: typedOf(row.spans), kept: (row as { weakChanged?: Record<number, boolean> }).weakChanged?.[0] };
  };
  await expect.poll(async () => (await verdictOf())?.kept).toBe(true);
  expect((await verdictOf())!.spans).toBe(typed(aggregate.id, pick.doc));
});

test('a correction travels: apply to every occurrence (a preview, then one undo for all), and add to the gazetteer, which labels the weak layer again', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(240_000);
  await openDemo(page);
  await makeWeakLabels(page);
  const d = await dump(page);
  const agg = d.layers.find((l) => l.role === 'aggregate')!;
  const words = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const docs = await new Promise<{ id: number; text: string; offsets: Uint32Array }[]>((r) => {
      const g = db.transaction('documents').objectStore('documents').getAll();
      g.onsuccess = () => r(g.result);
    });
    return Object.fromEntries(
      docs.map((x) => [x.id, Array.from({ length: x.offsets.length / 2 }, (_, t) => x.text.slice(x.offsets[2 * t], x.offsets[2 * t + 1]))]),
    );
  });
  // A word no weak source labels, in at least three training documents: its first one is edited here.
  const train = d.documents.filter((x) => x.split === 'train').sort((a, b) => a.id - b.id);
  const inSpan = new Set<string>();
  for (const a of d.annotations.filter((x) => x.layerId === agg.id))
    for (const s of a.spans) for (let t = s.start; t < s.end; t++) inSpan.add(words[a.docId][t]);
  const docsWith = (w: string) => train.filter((x) => words[x.id].includes(w));
  const word = [...new Set(train.flatMap((x) => words[x.id]))].find((w) => /^[a-z]{6,}$/.test(w) && !inSpan.has(w) && docsWith(w).length >= 3)!;
  const [first, ...others] = docsWith(word);
  const at = words[first.id].indexOf(word);
  await page.goto(`/#/p/${first.projectId}/annotate/${first.id}`);
  const box = page.getByTestId('annotate-box');
  await box.locator(`[data-t="${at}"]`).click();
  await page.keyboard.press('2');
  // p: a preview of every occurrence first; nothing changes until Enter.
  await page.keyboard.press('p');
  const preview = page.getByTestId('propagate-preview');
  await expect(preview).toContainText(`Label “${word}” as Disease`);
  await expect(preview).toContainText(`in ${others.length} other documents`);
  const goldLayerRows = async () => {
    const dd = await dump(page);
    const gold = dd.layers.find((l) => l.kind === 'gold' && l.name === 'gold')!;
    return dd.annotations.filter((a) => a.layerId === gold.id);
  };
  const labelled = async () =>
    (await goldLayerRows()).filter((a) => a.spans.some((s) => s.label === 'Disease' && words[a.docId][s.start] === word)).map((a) => a.docId);
  expect(await labelled()).toEqual([first.id]);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('annotate-note')).toContainText('u undoes them all');
  await expect.poll(async () => (await labelled()).sort()).toEqual([first.id, ...others.map((o) => o.id)].sort());
  // One undo takes back every document it changed; this one keeps the span it had before p.
  await page.keyboard.press('u');
  await expect.poll(labelled).toEqual([first.id]);
  await expect(page.getByTestId('annotate-note')).toContainText(`Undone in ${others.length} other documents`);
  // g: the word joins the corrections gazetteer and the weak layer is labelled again with it.
  await page.keyboard.press('2');
  await page.keyboard.press('g');
  await expect(page.getByTestId('annotate-note')).toContainText('the weak layer is labelled again', { timeout: 60_000 });
  const entries = await storeRows<{ phrase: string; type: string }>(page, 'gazetteerEntries');
  expect(entries.some((e) => e.phrase === word && e.type === 'Disease')).toBe(true);
  const d2 = await dump(page);
  const agg2 = d2.layers.find((l) => l.role === 'aggregate')!;
  for (const o of others)
    expect(
      d2.annotations.find((a) => a.layerId === agg2.id && a.docId === o.id)!.spans.some((s) => s.label === 'Disease' && words[o.id][s.start] === word),
    ).toBe(true);
  // Adding it twice says so instead of listing it again.
  await page.keyboard.press('g');
  await expect(page.getByTestId('annotate-note')).toContainText('already listed');
  // s: the words are no entity after all: the span goes, and no source labels them again, the gazetteer's included.
  await page.keyboard.press('s');
  await expect(page.getByTestId('annotate-note')).toContainText('added to the stop list; the weak layer is labelled again', { timeout: 60_000 });
  await expect.poll(labelled).toEqual([]);
  const d3 = await dump(page);
  const agg3 = d3.layers.find((l) => l.role === 'aggregate')!;
  for (const o of [first, ...others])
    expect(d3.annotations.find((a) => a.layerId === agg3.id && a.docId === o.id)!.spans.some((s) => words[o.id][s.start] === word)).toBe(false);
  // One undo takes it back whole: off the stop list, the weak layer labelled again, the span here restored.
  await page.keyboard.press('u');
  await expect(page.getByTestId('annotate-note')).toContainText(`“${word}” taken out of the stop list; the weak layer is labelled again`, { timeout: 60_000 });
  await expect.poll(labelled).toEqual([first.id]);
  expect((await storeRows<{ phrase: string; type: string | null }>(page, 'gazetteerEntries')).some((e) => e.phrase === word && e.type === null)).toBe(false);
  const d4 = await dump(page);
  const agg4 = d4.layers.find((l) => l.role === 'aggregate')!;
  for (const o of others)
    expect(
      d4.annotations.find((a) => a.layerId === agg4.id && a.docId === o.id)!.spans.some((s) => s.label === 'Disease' && words[o.id][s.start] === word),
    ).toBe(true);
});

test('searches the documents for a phrase from every page (/ focuses the box) and jumps to a match in the editor', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Gazetteers', exact: true }).click();
  // The demo's text holds this phrase; the search is case-insensitive, by whole tokens.
  const docs = await storeRows<{ id: number; text: string; name: string }>(page, 'documents');
  const hits = docs.filter((d) => /\bpatients\b/i.test(d.text));
  expect(hits.length).toBeGreaterThan(1);
  await page.keyboard.press('/');
  await expect(page.getByLabel('Search documents')).toBeFocused();
  await page.keyboard.type('PATIENTS');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('search-summary')).toContainText(`of “PATIENTS” in ${hits.length} documents`);
  const first = page.getByTestId('search-results').locator('li').first();
  await expect(first.locator('mark')).toHaveText(/^patients$/i);
  // Keys on the list: j moves, Enter opens the editor at the match.
  await page.getByTestId('search-results').focus();
  await page.keyboard.press('j');
  await expect(page.getByTestId('search-results').locator('li').nth(1)).toHaveAttribute('aria-current', 'true');
  const doc = await page.getByTestId('search-results').locator('li').nth(1).getAttribute('data-doc');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('annotate-title')).toBeVisible();
  expect(page.url()).toContain(`/annotate/${doc}/`);
  // Text that is markup stays text.
  await page.getByLabel('Search documents').fill('<b>nothing</b>');
  await page.getByLabel('Search documents').press('Enter');
  await expect(page.getByTestId('search-summary')).toContainText('0 matches of “<b>nothing</b>” in 0 documents');
});
