import { createProject, demo, expect, makeWeakLabels, openDemo, openStudio, test, trainSmallRun } from './fixtures';

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
  await expect(page.getByTestId('distribution-empty')).toContainText('No layer annotates the 600 documents on the train split yet');
});

test('an import that brings new types or snapped spans asks first and stores nothing until answered; bytes that are not text are refused', async ({
  page,
  outside: _,
}) => {
  await openDemo(page);
  const docCount = page.getByTestId('doc-count');
  const before = await docCount.textContent();
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('conll');
  await page.getByLabel('Corpus files').setInputFiles({ name: 'foo.conll', mimeType: 'text/plain', buffer: Buffer.from('aspirin B-Chemical\nfoo B-FOO\n') });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const checks = page.getByTestId('import-checks');
  await expect(checks).toContainText('type "FOO" is not among this project\'s types (Chemical, Disease): importing adds it');
  await page.getByRole('button', { name: 'Cancel import' }).click();
  await expect(page.getByTestId('import-result')).toHaveText('Import cancelled: nothing was stored.');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(docCount).toHaveText(before!);

  // A span inside a token snaps out to it, and the line is named; binary junk is refused, with its line.
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('jsonl');
  const jsonl = '{"text": "Barack Obama spoke.", "spans": [{"start": 2, "end": 10, "label": "Disease"}]}\n';
  await page.getByLabel('Corpus files').setInputFiles({ name: 'p.jsonl', mimeType: 'text/plain', buffer: Buffer.from(jsonl) });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(checks).toContainText('p.jsonl, line 1: span 2-10 ("rack Oba") starts or ends inside a token; it now covers the whole tokens "Barack Obama"');
  await page.getByRole('button', { name: 'Import anyway' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 document and 1 labeled span in');
  await page.getByLabel('Format').selectOption('text');
  await page
    .getByLabel('Corpus files')
    .setInputFiles({ name: 'junk.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 7919) % 256)) });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText(/^Nothing was imported\. junk\.bin, line 1: byte 0xEF is not UTF-8/);
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(docCount).toHaveText((Number(before!.replace(/,/g, '')) + 1).toLocaleString('en-US'));
});

test('a rule whose label is not a type of the project asks before adding one, and shows the label as text', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Rules', exact: true }).click();
  await page.getByLabel('Rule name').fill('odd');
  await page.getByLabel('Rule label').fill('<b>X</b>');
  await page.getByLabel('Rule pattern').fill('\\bfoo\\b');
  const save = page.getByRole('button', { name: 'Save rule' });
  await expect(page.getByTestId('rule-new-type')).toContainText('"<b>X</b>" is not one of this project\'s types (Chemical, Disease): add it as a new type');
  await expect(save).toBeDisabled();
  await page.getByTestId('rule-new-type').getByRole('checkbox').check();
  await save.click();
  await expect(page.getByRole('status')).toHaveText('Saved rule "odd", and "<b>X</b>" is a new type of the project.');
});

test('one labeled file becomes train, dev and test by a seeded ratio; documents move between splits', async ({ page, outside: _ }) => {
  await createProject(page, 'One file');
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('conll');
  await page.getByLabel('Split', { exact: true }).selectOption('ratio');
  await page.getByLabel('Split ratios').fill('60/20');
  await expect(page.getByTestId('ratio-problem')).toHaveText('split ratios: "60/20" is not three numbers train/dev/test, e.g. 80/10/10');
  await expect(page.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  await page.getByLabel('Split ratios').fill('60/20/20');
  const conll = Array.from({ length: 20 }, (_, k) => `Word${k} B-PER\nsaid O\n`).join('\n');
  await page
    .getByLabel('Corpus files')
    .setInputFiles({ name: 'one.conll', mimeType: 'text/plain', buffer: Buffer.from(`-DOCSTART- O\n\n${conll.replaceAll('\n\n', '\n\n-DOCSTART- O\n\n')}`) });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 20 documents');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  const rows = page.getByTestId('split-table').locator('tbody tr');
  await expect(rows.nth(0).locator('td').nth(1)).toHaveText('12');
  await expect(rows.nth(1).locator('td').nth(1)).toHaveText('4');
  await expect(rows.nth(2).locator('td').nth(1)).toHaveText('4');
  // Split again from the document list, and move one document by hand.
  await page.getByRole('link', { name: 'Documents', exact: true }).click();
  await page.getByLabel('Resplit ratios').fill('50/50/0');
  await page.getByRole('button', { name: 'Split', exact: true }).click();
  await expect(page.getByTestId('resplit-result')).toContainText('Split 20 documents: 10 train, 10 dev, 0 test');
  await page.getByTestId('doc-list').getByRole('link').first().click();
  await page.getByLabel('Document split').selectOption('test');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(rows.nth(2).locator('td').nth(1)).toHaveText('1');
});

test('a first run, start to end: the demo, weak labels, a model, the review queue, an export', async ({ page, outside: _ }) => {
  test.setTimeout(300_000);
  await openDemo(page);
  const steps = page.getByTestId('next-steps');
  // Weak labels, from the next-steps link.
  await steps.getByRole('link', { name: 'Make weak labels' }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  // A model with the training page's defaults (a small one here, for time), from the next step.
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await steps.getByRole('link', { name: 'Train a model' }).click();
  await page.getByLabel('Hidden units').fill('16');
  await page.getByLabel('Epochs', { exact: true }).fill('2');
  await page.getByLabel('Backend').selectOption('wasm');
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  const status = page.getByTestId('runs-table').locator('tbody tr').first().locator('td').nth(1);
  await expect(status).toHaveText('done', { timeout: 240_000 });
  // Review: the queue lists sentences; one opens in the editor, where a key press records a decision.
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(steps.locator('li.next')).toHaveAttribute('data-step', 'review');
  await steps.getByRole('link', { name: /Review where the model/ }).click();
  const first = page.getByTestId('review-queue').locator('li').first();
  await expect(first).toBeVisible();
  await first.getByRole('link').first().click();
  const box = page.getByTestId('annotate-box');
  await box.focus();
  await page.keyboard.press('r');
  await expect(page.getByTestId('annotate-status')).toContainText(/· [1-9]\d* tokens? reviewed as O/);
  // Export the run's predictions.
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  const predicted = page.locator('[data-layer^="run "]').first();
  const [file] = await Promise.all([page.waitForEvent('download'), predicted.getByRole('button', { name: 'Export' }).click()]);
  expect(file.suggestedFilename()).toMatch(/^BC5CDR_demo-run_\d+\.conll$/);
  await expect(page.getByTestId('export-result')).toContainText('Exported all');
});

test('the review queue says what it waits for (weak labels), then ranks where their sources disagree before any run', async ({ page, outside: _ }) => {
  await openDemo(page);
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  const empty = page.getByTestId('review-empty');
  await expect(empty).toHaveText('No weak labels yet: the queue ranks the sentences where they and a trained model disagree. Make weak labels');
  // The annotators' progress is there all the same.
  await expect(page.getByRole('heading', { name: 'Annotation progress' })).toBeVisible();
  await empty.getByRole('link', { name: 'Make weak labels' }).click();
  await page.getByRole('button', { name: 'Make weak labels' }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  // The weak labels page points at the queue, which needs no model for this.
  await page.getByTestId('weak-review').getByRole('link', { name: 'review queue' }).click();
  // No run yet: the queue ranks the training sentences where the gazetteers and rules disagree, or the label model overrules one.
  await expect(page.getByTestId('review-summary')).toContainText(/^\d+ training sentences queued: the weak sources disagree/);
  await expect(page.getByLabel('Review run')).toHaveValue('');
  await expect(page.getByLabel('Review signal')).toHaveValue('sources');
  const first = page.getByTestId('review-queue').locator('li').first();
  await expect(first).toContainText(/; weak (O|[A-Z])/);
  await expect(first.locator('[data-line="run"]')).toHaveCount(0);
  // There is no run's labels to accept, and a says so; x keeps the weak labels; u takes it back.
  await page.keyboard.press('a');
  await expect(page.getByRole('alert').filter({ hasText: "no run's labels to accept" })).toBeVisible();
  await expect(first).not.toHaveAttribute('data-decided');
  await page.keyboard.press('x');
  await expect(first).toHaveAttribute('data-decided', 'weak');
  await page.keyboard.press('u');
  await expect(first).not.toHaveAttribute('data-decided');
});

test('a project exported as one file opens as a new project with the same documents, layers and dictionaries, and trains; a bad file stores nothing', async ({
  page,
  outside: _,
}) => {
  test.setTimeout(400_000);
  await openDemo(page);
  await makeWeakLabels(page);
  const train = () => trainSmallRun(page, { hidden: 8, epochs: 1 });
  await train();
  const testF1 = await page.getByTestId('runs-table').locator('tbody tr').first().locator('td').nth(9).textContent();
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByTestId('layer-table').locator('tbody tr[data-layer^="aggregate"]')).toHaveCount(1);
  // Every layer but the run's predictions, which stay with the run.
  await expect(page.getByTestId('layer-table').locator('tbody tr').filter({ hasText: 'predicted' })).toHaveCount(1);
  const layersBefore = (
    await page
      .getByTestId('layer-table')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.children[0].textContent, r.children[1].textContent]))
  )
    .filter(([, kind]) => kind !== 'predicted')
    .map(([name]) => name!);
  const docs = await page.getByTestId('doc-count').textContent();
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the project' }).click()]);
  expect(file.suggestedFilename()).toBe('BC5CDR_demo.ner-studio.json');
  await expect(page.getByTestId('project-result')).toContainText(
    `Exported ${docs} documents, ${layersBefore.length} label layers, 2 gazetteers, 3 rules and the records of 2 finished runs`,
  );
  const path = (await file.path())!;
  const saved = JSON.parse(await (await import('node:fs/promises')).readFile(path, 'utf8'));
  expect(saved.format).toBe('ner-studio-project');

  // Opened from the project list: a new project, named apart from the one it came from.
  await page.getByRole('link', { name: 'NER Studio' }).click();
  const list = page.getByTestId('project-list').locator('li');
  await expect(list).toHaveCount(1);
  await page.getByLabel('Project file').setInputFiles(path);
  await expect(page.getByTestId('project-import-result')).toContainText(
    `Imported "${demo.name} (imported)": ${docs} documents, ${layersBefore.length} label layers, 2 gazetteers, 3 rules and 2 runs' records.`,
  );
  await expect(list).toHaveCount(2);
  await page.getByTestId('project-import-result').getByRole('link', { name: 'Open it' }).click();
  await expect(page.getByTestId('project-name')).toHaveText(`${demo.name} (imported)`);
  await expect(page.getByTestId('doc-count')).toHaveText(docs!);
  await expect(page.getByTestId('layer-table').locator('tbody tr td:first-child')).toHaveText(layersBefore);
  await page.getByRole('link', { name: 'Gazetteers', exact: true }).click();
  await expect(page.getByTestId('gazetteer-table').locator('tbody tr')).toHaveCount(2);
  // The weak labels' report and the run's record came along; the run's model and predictions did not.
  await page.getByRole('link', { name: 'Weak labels', exact: true }).click();
  await expect(page.getByTestId('stats-table')).toBeVisible();
  await page.getByRole('link', { name: 'Train', exact: true }).click();
  const copied = page.getByTestId('runs-table').locator('tbody tr').first();
  await expect(copied.locator('td').nth(9)).toHaveText(testF1!);
  await copied.getByRole('link').first().click();
  await expect(page.getByTestId('run-pruned')).toContainText('they stayed in the project it was exported from');
  await expect(page.getByTestId('run-dev-chart')).toBeVisible();
  // The review queue has no run to rank by until the copy trains one, and the copy trains as the original would.
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByLabel('Review run')).toHaveValue('');
  await train();
  await page.getByRole('link', { name: 'Review queue', exact: true }).click();
  await expect(page.getByLabel('Review run')).not.toHaveValue('');
  // Renamed where it is, checked as typed.
  const name = page.getByTestId('project-backup').getByLabel('Project name');
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await name.fill('  ');
  await expect(page.getByTestId('project-backup')).toContainText('a project needs a name');
  await expect(page.getByRole('button', { name: 'Rename' })).toBeDisabled();
  await name.fill('Demo, restored');
  await page.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByTestId('project-name')).toHaveText('Demo, restored');

  // A file that is wrong somewhere says where and what, and no project is added.
  await page.getByRole('link', { name: 'NER Studio' }).click();
  saved.documents[2].split = 'holdout';
  await page.getByLabel('Project file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(saved)) });
  await expect(page.getByRole('alert')).toContainText(
    `Nothing was imported. bad.json: documents[2] ${JSON.stringify(saved.documents[2].name)}: split: must be one of`,
  );
  await expect(list).toHaveCount(2);
});

test('the project list says whether the browser keeps its storage, and asks it to on request', async ({ page, outside: _ }) => {
  await openStudio(page);
  const status = page.getByTestId('storage-status');
  await expect(status).toHaveAttribute('data-persisted', /^(true|false)$/);
  await expect(status).toContainText(/It holds [\d.]+ (kB|MB|GB) of the [\d.]+ (kB|MB|GB) the browser allows this site\./);
  if ((await status.getAttribute('data-persisted')) === 'false') {
    await expect(status).toContainText('(best-effort): export projects you cannot lose');
    await status.getByRole('button', { name: 'ask it to keep them' }).click();
    await expect(status).toContainText(/which it keeps \(persistent\)|did not grant it this time/);
  }
});
