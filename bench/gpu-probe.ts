/** Trains a toy tagger on the CPU and on WebGPU in a worker of headless Chromium and prints the step losses side by side: `npx tsx bench/gpu-probe.ts` after `npm run build`. */
import { build } from 'esbuild';
import { withStudio } from './browser';
const b = await build({ entryPoints: ['bench/gpu-probe-entry.ts'], bundle: true, format: 'iife', globalName: 'gp', write: false, platform: 'browser' });
const code = b.outputFiles[0].text;
await withStudio(
  async (browser, url) => {
    const page = await browser.newPage();
    await page.goto(url);
    for (const adapterProbe of [false]) {
      const inWorker = await page.evaluate(
        ({ code, adapterProbe }) =>
          new Promise((resolve) => {
            const w = new Worker(
              URL.createObjectURL(new Blob([`${code}\nself.onmessage = async (e) => postMessage(await gp.probe(e.data));`], { type: 'text/javascript' })),
            );
            w.onmessage = (e) => resolve(e.data);
            w.onerror = (e) => resolve([`worker error ${e.message}`]);
            w.postMessage(adapterProbe);
          }),
        { code, adapterProbe },
      );
      console.log('worker, adapter probe first:', adapterProbe, JSON.stringify(inWorker));
    }
  },
  4178,
  ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'],
);
