import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { wasmThreadsPlugin } from './scripts/wasmThreads.ts';

// Cross-origin isolation lets the WASM backend use threads (SharedArrayBuffer).
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The Content-Security-Policy, written once in index.html's meta tag and sent as a header too: a
 * meta tag does not cover workers, whose policy comes from their own response's header. The dev
 * server also lets Vite's inline refresh preamble and its HMR websocket through. script-src has
 * blob: because the threaded WASM backend starts its pthread workers from blob URLs
 * (importScripts), which the header, unlike the meta tag, governs inside the training worker.
 */
const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(readFileSync(new URL('./index.html', import.meta.url), 'utf8'))?.[1];
if (!csp) throw new Error('index.html: no Content-Security-Policy meta tag');
const devCsp = csp.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("connect-src 'self'", "connect-src 'self' ws: wss:");

/**
 * Lists every built file (workers included, which are built apart from the main bundle) so the
 * service worker can precache the whole app for offline use. The word vectors (38 MB) are left
 * out: the service worker caches them the first time a training job fetches them.
 */
function precacheManifest(): Plugin {
  let outDir = 'dist';
  return {
    name: 'precache-manifest',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const full = join(dir, name);
          if (statSync(full).isDirectory()) walk(full);
          else if (!name.endsWith('.map') && name !== 'precache-manifest.json' && name !== 'sw.js' && !full.includes(`${sep}glove${sep}`))
            files.push(relative(outDir, full).split(sep).join('/'));
        }
      };
      walk(outDir);
      writeFileSync(join(outDir, 'precache-manifest.json'), JSON.stringify({ version: Date.now(), files: ['./', ...files.sort()] }));
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [react(), precacheManifest(), wasmThreadsPlugin()],
  server: { headers: { ...isolation, 'Content-Security-Policy': devCsp } },
  preview: { headers: { ...isolation, 'Content-Security-Policy': csp } },
  // The training worker loads TensorFlow.js's WASM backend: its threaded build needs the patch in
  // every bundle it lands in (worker build, dev pre-bundling).
  worker: { format: 'es', plugins: () => [wasmThreadsPlugin()] },
  optimizeDeps: { rolldownOptions: { plugins: [wasmThreadsPlugin()] } },
  build: { target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 2000 },
});
