import { createProject, demo, expect, openDemo, openStudio, test } from './fixtures';

test('the Overview says what to do next, and ticks each step as it is done', async ({ page, outside: _ }) => {
  await openDemo(page);
  const steps = page.getByTestId('next-steps');
  await expect(steps.locator('[data-step="import"]')).toHaveAttribute('data-done', 'true');
  await expect(steps.locator('[data-step="sources"]')).toHaveAttribute('data-done', 'true');
  // The demo has documents and dictionaries: weak labels are the next step, and the link goes there.
  await expect(steps.locator('li.next')).toHaveAttribute('data-step', 'weak');
  await steps.getByRole('link', { name: 'Make weak labels' }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(steps.locator('[data-step="weak"]')).toHaveAttribute('data-done', 'true');
  await expect(steps.locator('li.next')).toHaveAttribute('data-step', 'train');
});

test('loading the demo when it is there opens it instead of making a second copy', async ({ page, outside: _ }) => {
  await openStudio(page);
  await expect(page.getByTestId('project-list').locator('li')).toHaveCount(1);
  await page.getByRole('button', { name: 'Open the demo project' }).click();
  await expect(page.getByTestId('project-name')).toHaveText(demo.name);
  await page.getByRole('link', { name: 'NER Studio' }).click();
  await expect(page.getByTestId('project-list').locator('li')).toHaveCount(1);
});

test('a bad id in a link shows the missing page, with no uncaught error', async ({ page, outside: _ }) => {
  await openStudio(page);
  await page.goto('/#/p/null/import');
  await expect(page.getByRole('alert')).toHaveText('Project "null" does not exist. All projects');
  await page.goto('/#/p/999/docs');
  await expect(page.getByRole('alert')).toContainText('Project "999" does not exist.');
  await openDemo(page);
  const pid = new URL(page.url()).hash.match(/#\/p\/(\d+)/)![1];
  await page.goto(`/#/p/${pid}/annotate/abc/0`);
  await expect(page.getByRole('alert')).toHaveText('Document "abc" is not in this project.');
  await page.goto(`/#/p/${pid}/docs/abc`);
  await expect(page.getByRole('alert')).toHaveText('Document "abc" is not in this project.');
});

test('exporting the gold layer leaves out the documents it does not annotate, and says so', async ({ page, outside: _ }) => {
  await openDemo(page);
  const gold = page.locator('[data-layer="gold"]');
  const [file] = await Promise.all([page.waitForEvent('download'), gold.getByRole('button', { name: 'Export' }).click()]);
  const goldDocs = demo.corpora.filter((c) => c.format === 'conll');
  await expect(page.getByTestId('export-result')).toContainText('documents "BC5CDR demo-gold" annotates; the other');
  const text = await (await import('node:fs/promises')).readFile((await file.path())!, 'utf8');
  // Only dev and test (the demo's gold) are in the file: as many sentences as their files have.
  const sentences = (t: string) => t.split(/\n\s*\n/).filter((s) => s.trim()).length;
  expect(sentences(text)).toBe(goldDocs.reduce((a, c) => a + sentences(c.text), 0));
});

test('label distribution on a split with no documents says so instead of an empty table', async ({ page, outside: _ }) => {
  await createProject(page, 'Empty');
  await page.getByRole('link', { name: 'Label distribution', exact: true }).click();
  await expect(page.getByTestId('distribution-empty')).toHaveText(
    'No documents on the train split: choose another split, or move documents to it when importing.',
  );
  await openDemo(page);
  await page.getByRole('link', { name: 'Label distribution', exact: true }).click();
  await expect(page.getByTestId('distribution-empty')).toContainText('No layer annotates the 300 documents on the train split yet');
});
