/**
 * Responsiveness of the diagnostics views on a run over all of conll03 train, in headless
 * Chromium. The corpus (14,041 sentences, 203,621 tokens, gold + distant labels) is imported
 * through the Import page; a finished run is then stored beside it with signals on every
 * document (an O-value for every distant-O token, RoSTER removals on 5 % of tokens), 25 epochs of
 * curves and method statistics, and a sampling map. Measured per interaction: from the input
 * event to the first task after the next animation frame (the frame that paints the update):
 * dragging the λ cut-off, hovering the O-value histogram, typing into the runs filter.
 * Target: under 100 ms.
 *   npm run build && npx tsx bench/diagnostics-interaction.ts
 */
import { readFileSync } from 'node:fs';
import { median, withStudio } from './browser';
import { dataFolder } from '../src/cli/dataFolder';

const DATA = new URL(`file://${dataFolder()}/conll03-distant/`);
const file = (name: string) => ({ name, mimeType: 'text/plain', buffer: readFileSync(new URL(name, DATA)) });

const result = await withStudio(async (browser, url) => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // tsx keeps function names with a helper the page lacks; the evaluated callbacks need it.
  await page.addInitScript('window.__name = (f) => f');
  await page.goto(url);
  await page.getByTestId('project-list').waitFor();
  await page.getByLabel('Project name').fill('conll03 train');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('link', { name: 'conll03 train', exact: true }).click();
  await page.getByRole('link', { name: 'Import', exact: true }).click();
  await page.getByLabel('Format').selectOption('lines');
  await page.getByLabel('Corpus files').setInputFiles(file('train_text.txt'));
  await page.getByLabel('Label files').setInputFiles([file('train_label_true.txt'), file('train_label_dist.txt')]);
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByTestId('import-result').waitFor({ timeout: 120_000 });
  const seeded = await page.evaluate(async () => {
    const req = indexedDB.open('ner-studio');
    const db: IDBDatabase = await new Promise((r) => (req.onsuccess = () => r(req.result)));
    const all = <T>(s: string) =>
      new Promise<T[]>((r) => {
        const g = db.transaction(s).objectStore(s).getAll();
        g.onsuccess = () => r(g.result as T[]);
      });
    const project = (await all<{ id: number; name: string }>('projects')).find((p) => p.name === 'conll03 train')!;
    const layers = (await all<{ id: number; projectId: number; kind: string; name: string }>('layers')).filter((l) => l.projectId === project.id);
    const gold = layers.find((l) => l.kind === 'gold')!;
    const weak = layers.find((l) => l.kind === 'weak')!;
    const docs = (await all<{ id: number; projectId: number; offsets: Uint32Array }>('documents')).filter((d) => d.projectId === project.id);
    const anns = new Map(
      (
        [
          ...(await all<{ layerId: number; docId: number; spans: { start: number; end: number }[] }>('annotations')),
          ...((await all<unknown>('layerChunks')) as { layerId: number; docIds: number[]; anns: object[] }[]).flatMap((c) =>
            c.docIds.map((docId, k) => ({ ...c.anns[k], layerId: c.layerId, docId })),
          ),
        ] as { layerId: number; docId: number; spans: { start: number; end: number }[] }[]
      )
        .filter((a) => a.layerId === weak.id)
        .map((a) => [a.docId, a]),
    );
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const history = Array.from({ length: 25 }, (_, e) => ({
      epoch: e + 1,
      loss: 1 / (e + 1),
      devF1: 0.5 + e / 60,
      seconds: 60,
      tokensPerSecond: 1300,
      methodStats: { 'removed:1': rand(), 'removed:2': rand(), oValueTrueO: 5 + rand(), oValueHidden: 2 + rand() },
    }));
    const scores = { overall: { precision: 0.8, recall: 0.8, f1: 0.8, tp: 1, fp: 0, fn: 0 }, perType: {} };
    const tx = db.transaction(['runs', 'signals'], 'readwrite');
    const add = tx.objectStore('runs').add({
      projectId: project.id,
      kind: 'train',
      status: 'done',
      createdAt: Date.now(),
      finishedAt: Date.now(),
      config: {
        name: 'bench',
        data: { kind: 'project', projectId: project.id, layerId: weak.id, goldLayerId: gold.id },
        method: { name: 'pu' },
        pipeline: { kind: 'pu', explore: 2, lambda: 0.1 },
        model: { encoder: 'bilstm', hidden: 100, head: 'crf' },
        train: { seed: 1 },
      },
      metrics: {
        backend: 'wasm',
        backendReason: 'bench',
        history,
        stepLosses: Array.from({ length: 2000 }, (_, k) => 1 / (1 + k / 100)),
        dev: scores,
        test: scores,
        tags: ['O', 'B-LOC', 'I-LOC'],
      },
    });
    const runId = await new Promise<number>((r) => (add.onsuccess = () => r(add.result as number)));
    let oTokens = 0;
    for (const d of docs) {
      const n = d.offsets.length / 2;
      const o = new Float32Array(n).fill(NaN);
      const removed = new Uint8Array(n);
      const spans = anns.get(d.id)?.spans ?? [];
      for (let t = 0; t < n; t++) {
        if (!spans.some((s) => s.start <= t && t < s.end)) (o[t] = 8 * rand() - 2), oTokens++;
        if (rand() < 0.05) removed[t] = 1;
      }
      tx.objectStore('signals').put({
        runId,
        docId: d.id,
        oValue: o,
        puRemoved: removed,
        rosterRemoved: removed,
        uncertainty: Float32Array.from({ length: n }, () => rand()),
      });
    }
    await new Promise((r) => (tx.oncomplete = r));
    return { runId, docs: docs.length, oTokens };
  });
  await page.getByRole('link', { name: 'Compare runs', exact: true }).click();
  const t0 = Date.now();
  await page.getByLabel(`compare run ${seeded.runId}`).check();
  await page.getByTestId(`ovalues-cut-${seeded.runId}`).waitFor({ timeout: 120_000 });
  const firstDrawSeconds = (Date.now() - t0) / 1000;
  const measure = (what: 'lambda' | 'hover' | 'filter', n: number) =>
    page.evaluate(
      async ({ what, n, runId }) => {
        const out: number[] = [];
        const frame = (t0: number) => new Promise<number>((r) => requestAnimationFrame(() => setTimeout(() => r(performance.now() - t0), 0)));
        const setValue = (el: HTMLInputElement, v: string) => {
          const proto = Object.getPrototypeOf(el) as object;
          Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, v);
          el.dispatchEvent(new Event('input', { bubbles: true }));
        };
        const range = document.querySelector<HTMLInputElement>('input[aria-label="PU lambda"]')!;
        const over = document.querySelector(`[data-testid="ovalues-${runId}"] .u-over`)!;
        const filter = document.querySelector<HTMLInputElement>('input[aria-label="Filter runs"]')!;
        for (let i = 0; i < n; i++) {
          await new Promise((r) => setTimeout(r, 30));
          const t0 = performance.now();
          if (what === 'lambda') setValue(range, String(((i % 50) + 1) / 100));
          else if (what === 'hover') {
            const b = over.getBoundingClientRect();
            over.dispatchEvent(
              new MouseEvent('mousemove', { clientX: b.left + (((i * 37) % 100) / 100) * b.width, clientY: b.top + b.height / 2, bubbles: true }),
            );
          } else setValue(filter, i % 2 ? 'pu' : 'p');
          out.push(await frame(t0));
        }
        if (what === 'filter') setValue(filter, '');
        return out;
      },
      { what, n, runId: seeded.runId },
    );
  const lambda = await measure('lambda', 40);
  const hover = await measure('hover', 40);
  const filter = await measure('filter', 20);
  const shown = await page.getByTestId(`ovalues-cut-${seeded.runId}`).getAttribute('data-removed');
  const stat = (xs: number[]) => ({
    medianMs: +median(xs).toFixed(1),
    p95Ms: +[...xs].sort((a, b) => a - b)[Math.floor(0.95 * xs.length)].toFixed(1),
    maxMs: +Math.max(...xs).toFixed(1),
  });
  return {
    ...seeded,
    firstDrawSeconds,
    lastCutRemoved: Number(shown),
    dragCutOff: stat(lambda),
    hoverHistogram: stat(hover),
    filterRuns: stat(filter),
    chromium: browser.version(),
  };
}, 4182);
console.log(JSON.stringify(result));
