/**
 * Training throughput (tokens/s) per encoder per backend, side by side in one run: Node on WASM
 * (the CLI), headless Chromium on WASM, WebGPU (SwiftShader here: a software adapter), WebGL and
 * the plain CPU backend, and the same architecture in PyTorch on the same CPU
 * (bench/torch_tagger.py, Debian's python3-torch). Needs the data folder (NER_STUDIO_DATA, default ../shared/data) and public/glove.
 *   npx tsx bench/train-throughput.ts [--sentences 320] [--epochs 2] [--skip-browser] [--where torch,node,browser] [--backends wasm,wasm-threads,webgpu,webgl,cpu] [--word-dropout 0]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { initWasmBackend } from '../src/cli/train';
import { esbuildWasmThreads } from '../scripts/wasmThreads';
import { withStudio } from './browser';
import { THROUGHPUT_MODELS, throughputInput, torchShapes } from './throughput-input';
import { runThroughput, type ThroughputInput } from './train-throughput-core';

const { values } = parseArgs({
  options: {
    sentences: { type: 'string', default: '320' },
    epochs: { type: 'string', default: '2' },
    'skip-browser': { type: 'boolean' },
    where: { type: 'string', default: 'torch,node,browser' },
    backends: { type: 'string', default: 'wasm,webgpu,webgl,cpu' },
    // The studio's default is 0.1; 0 keeps the runs comparable with the records and with PyTorch (which has none).
    'word-dropout': { type: 'string', default: '0' },
  },
});
const input = throughputInput(Number(values.sentences));
const { sentences } = input;
const models = THROUGHPUT_MODELS;
const base = { ...input, epochs: Number(values.epochs), wordDropout: Number(values['word-dropout']) };
const tokens = sentences.reduce((a, s) => a + s.words.length, 0);
console.error(`${sentences.length} sentences, ${tokens} tokens per epoch, batch 32, ${values.epochs} epochs (the last one timed)`);

const rows: Record<string, unknown>[] = [];
const machine = {
  cpu: execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim(),
  cores: Number(execFileSync('nproc').toString()),
};

// PyTorch first (its own process), on the same sentence lengths.
mkdirSync('bench/out', { recursive: true });
writeFileSync('bench/out/throughput-shapes.json', JSON.stringify(torchShapes(input, Number(values.epochs))));
const where = values.where!.split(',');
for (const threads of where.includes('torch') ? [1, machine.cores] : []) {
  try {
    const out = execFileSync('/usr/bin/python3', ['bench/torch_tagger.py', 'bench/out/throughput-shapes.json', String(threads)], { encoding: 'utf8' });
    for (const line of out.trim().split('\n')) rows.push({ where: `PyTorch ${threads} thread${threads > 1 ? 's' : ''}`, ...JSON.parse(line) });
  } catch (e) {
    rows.push({ where: 'PyTorch', error: (e as Error).message.split('\n')[0] });
  }
  console.error(JSON.stringify(rows[rows.length - 1]));
}

const nodeBackend = await initWasmBackend();
for (const m of where.includes('node') ? models : []) {
  rows.push({ where: `Node ${process.version} (${nodeBackend})`, ...(await runThroughput({ ...base, ...m } as ThroughputInput)) });
  console.error(JSON.stringify(rows[rows.length - 1]));
}

if (!values['skip-browser'] && where.includes('browser')) {
  const bundle = await build({
    entryPoints: ['bench/train-throughput-core.ts'],
    bundle: true,
    format: 'iife',
    globalName: 'tp',
    write: false,
    platform: 'browser',
    logLevel: 'silent',
    plugins: [esbuildWasmThreads],
  });
  // Cross-origin isolation, so that SharedArrayBuffer (WASM threads) is available.
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  await withStudio(
    async (browser) => {
      for (const backend of values.backends!.split(',')) {
        for (const m of models) {
          const page = await browser.newPage();
          await page.route('**/tp.html', (r) => r.fulfill({ headers, contentType: 'text/html', body: '<!doctype html><title>throughput</title>' }));
          await page.route('**/tp.js', (r) => r.fulfill({ headers, contentType: 'text/javascript', body: bundle.outputFiles[0].text }));
          await page.route('**/bench-wasm/*.wasm', (r) =>
            r.fulfill({
              headers,
              contentType: 'application/wasm',
              body: readFileSync(`node_modules/@tensorflow/tfjs-backend-wasm/dist/${new URL(r.request().url()).pathname.split('/').pop()}`),
            }),
          );
          page.on('pageerror', (e) => console.error('pageerror:', e.message));
          await page.goto('http://127.0.0.1:4179/tp.html');
          await page.addScriptTag({ url: '/tp.js' });
          try {
            const r = await page.evaluate(
              async ({ backend, input }) => {
                const tp = (window as unknown as { tp: typeof import('./train-throughput-core') }).tp;
                const used = await tp.useBrowserBackend(backend);
                const glove = { ...input.glove, vectors: Float32Array.from(input.glove.vectors as unknown as number[]) };
                return { used, ...(await tp.runThroughput({ ...input, glove })) };
              },
              { backend, input: { ...base, ...m, glove: { ...base.glove, vectors: Array.from(base.glove.vectors) as unknown as Float32Array } } },
            );
            rows.push({ where: `Chromium ${browser.version()} ${backend}`, ...r });
          } catch (e) {
            rows.push({ where: `Chromium ${browser.version()} ${backend}`, encoder: m.encoder, error: (e as Error).message.split('\n')[0] });
          }
          console.error(JSON.stringify(rows[rows.length - 1]));
          await page.close();
        }
      }
    },
    4179,
    ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader'],
  );
}
console.log(JSON.stringify({ machine, tokensPerEpoch: tokens, rows }));
