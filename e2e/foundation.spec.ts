import { readFileSync } from 'node:fs';
import { createProject, demo, demoCorpora, expect, openDemo, openStudio, test } from './fixtures';

const CONLL = ['Aspirin B-Chemical', 'induced O', 'asthma B-Disease', '', 'Renal B-Disease', 'failure I-Disease', 'was O', 'seen O', ''].join('\n');

test('first start loads the demo project with its documents, gold layer and dictionary', async ({ page, outside: _ }) => {
  await openDemo(page);
  const corpora = demoCorpora();
  const docs = corpora.reduce((a, c) => a + c.docs.length, 0);
  const tokens = corpora.reduce((a, c) => a + c.docs.reduce((b, d) => b + (d.offsets.length >> 1), 0), 0);
  const goldSpans = corpora.reduce((a, c) => a + c.layers.reduce((b, l) => b + l.annotations.reduce((x, y) => x + y.spans.length, 0), 0), 0);
  await expect(page.getByTestId('doc-count')).toHaveText(docs.toLocaleString('en-US'));
  await expect(page.getByTestId('token-count')).toHaveText(tokens.toLocaleString('en-US'));
  await expect(page.locator('[data-layer="gold"] td').nth(3)).toHaveText(goldSpans.toLocaleString('en-US'));
  await page.getByRole('link', { name: 'Gazetteers', exact: true }).click();
  await expect(page.getByTestId('gazetteer-table')).toContainText('dict_core.txt');
  await expect(page.getByTestId('gazetteer-table')).toContainText('2,482');
});

test('an address with no page says so and links back, instead of a blank page', async ({ page, outside: _ }) => {
  await openDemo(page);
  const here = new URL(page.url());
  await page.goto(`/${here.hash.replace(/\/?$/, '')}/nonexistent`);
  await expect(page.getByTestId('not-found')).toContainText('There is no page at "/nonexistent" in this project.');
  await page.getByRole('link', { name: 'Go to its overview' }).click();
  await expect(page.getByTestId('project-name')).toHaveText(demo.name);
  await expect(page.getByTestId('not-found')).toHaveCount(0);
});

test('importing a CoNLL file shows its documents and spans, and a reload keeps them', async ({ page, outside: _ }) => {
  await createProject(page, 'CoNLL import');
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Split').selectOption('dev');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'small.conll', mimeType: 'text/plain', buffer: Buffer.from(CONLL) });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 2 documents and 3 labeled spans');
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  await expect(page.getByTestId('doc-list-count')).toHaveText('2 documents');
  await page.getByRole('link', { name: /Renal failure was seen/ }).click();
  await expect(page.locator('mark.ent')).toHaveText('Renal failureDisease');

  await page.reload();
  await expect(page.locator('mark.ent')).toHaveText('Renal failureDisease');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('doc-count')).toHaveText('2');
  await expect(page.locator('[data-layer="gold"] td').nth(3)).toHaveText('3');
});

test('a malformed file shows where it is wrong and imports nothing', async ({ page, outside: _ }) => {
  await createProject(page, 'Bad import');
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  const bad = CONLL.replace('was O', 'was O-X');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'bad.conll', mimeType: 'text/plain', buffer: Buffer.from(bad) });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByRole('alert')).toHaveText('Nothing was imported. bad.conll, line 7: malformed tag "O-X" (expected O or B-/I-/E-/S-TYPE)');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('doc-count')).toHaveText('0');

  // Parallel label file one line short: the label file and line are named.
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('lines');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'text.txt', mimeType: 'text/plain', buffer: Buffer.from('a b\nc d\n') });
  await page.getByLabel('Label files').setInputFiles({ name: 'labels.txt', mimeType: 'text/plain', buffer: Buffer.from('O O\nO\n') });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByRole('alert')).toHaveText('Nothing was imported. labels.txt, line 2: 1 tags for 2 tokens');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('doc-count')).toHaveText('0');

  // A Latin-1 file: its accent would turn into U+FFFD and be lost; the file and line are named instead.
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  const latin1 = Buffer.from(CONLL.replace('Renal', 'R\u00e9nal'), 'latin1');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'latin1.conll', mimeType: 'text/plain', buffer: latin1 });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Nothing was imported. latin1.conll, line 5: byte 0xE9 is not UTF-8 (the file may be Latin-1 or Windows-1252): save it as UTF-8 and import it again',
  );
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('doc-count')).toHaveText('0');
});

test('imported text is shown as text, never as HTML', async ({ page, outside: _ }) => {
  await createProject(page, 'Markup');
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('text');
  const evil = '<img src=x onerror="window.__pwned=1"> <b>bold</b> text.';
  await page.getByLabel('Corpus files').setInputFiles({ name: 'evil.txt', mimeType: 'text/plain', buffer: Buffer.from(evil) });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 document and');
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  await page.getByRole('link', { name: /evil\.txt/ }).click();
  await expect(page.locator('.doc-text')).toHaveText(evil);
  expect(await page.locator('.doc-text img, .doc-text b').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('the document list is virtualized and the demo documents open in order', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  const total = demo.corpora.length && demoCorpora().reduce((a, c) => a + c.docs.length, 0);
  await expect(page.getByTestId('doc-list-count')).toHaveText(`${total.toLocaleString('en-US')} documents`);
  // Only the rows in view (plus overscan) are in the DOM.
  expect(await page.locator('.virtual-row').count()).toBeLessThan(60);
  await page.getByLabel('Split filter').selectOption('test');
  await expect(page.getByTestId('doc-list-count')).toHaveText(`${demoCorpora()[2].docs.length.toLocaleString('en-US')} documents`);
});

test('the studio works offline after the first load', async ({ page, context, outside: _ }) => {
  await openStudio(page);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // Let the service worker finish precaching, then cut the network.
  await page.waitForFunction(
    async () =>
      (await caches.keys()).some((k) => k.startsWith('studio-')) &&
      (await (await caches.open((await caches.keys()).find((k) => k.startsWith('studio-'))!)).keys()).length > 3,
  );
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('project-list')).toContainText(demo.name);
  await page.getByRole('link', { name: demo.name }).click();
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  await context.setOffline(false);
});

test('the server sends the Content-Security-Policy as a header, for the page and for the workers', async ({ page, request, outside: _ }) => {
  const workers: string[] = [];
  page.on('response', (r) => {
    if (/worker[^/]*\.js$/.test(new URL(r.url()).pathname)) workers.push(r.url());
  });
  const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(readFileSync('index.html', 'utf8'))![1];
  const home = await request.get('/');
  expect(home.headers()['content-security-policy']).toBe(meta);
  expect(home.headers()['cross-origin-embedder-policy']).toBe('require-corp');
  await openDemo(page);
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  expect(workers.length).toBeGreaterThan(0);
  for (const url of workers) expect((await request.get(url)).headers()['content-security-policy'], url).toBe(meta);
});
