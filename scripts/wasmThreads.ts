/**
 * Lets TensorFlow.js's threaded WASM build start its pthread workers from a bundled app.
 *
 * tfjs-backend-wasm (4.22) hands each pthread worker the Emscripten module's source as
 * `wasmFactoryThreadedSimd.toString()`. Once a bundler has rewritten that module (CommonJS
 * wrapper, minified names), the function's text refers to names that exist only in the bundle,
 * and every pthread worker dies on start ("e is not defined"). This replaces the expression with
 * the module's original file text, read at build time, which defines the same global on its own.
 *
 * Second, the backend sizes its thread pool as navigator.hardwareConcurrency / 2 (assuming two
 * hyperthreads a core), capped by that same figure, so on a 2-vCPU machine it never runs more
 * than one thread whatever setThreadsCount asks. The Emscripten glue's core count is doubled here,
 * which makes the cap the logical core count; the studio then picks the count with
 * setThreadsCount (src/worker/backend.ts).
 *
 * Used by vite.config.ts (build and dev pre-bundling) and the browser benchmarks' esbuild bundles.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const TARGET = /`var WasmBackendModuleThreadedSimd = ` \+\s*wasmFactoryThreadedSimd\.toString\(\)/;
/** The file the expression is in (the package's ES module build). */
export const BACKEND_FILE = /@tensorflow[\\/]tfjs-backend-wasm[\\/]dist[\\/]backend_wasm\.js$/;

/** The Emscripten glue of the threaded build. */
export const GLUE_FILE = /@tensorflow[\\/]tfjs-backend-wasm[\\/]wasm-out[\\/]tfjs-backend-wasm-threaded-simd\.js$/;
const CORES = 'return navigator["hardwareConcurrency"]}';

/** The glue with its logical core count doubled (see above). */
export function patchGlue(code: string): string {
  if (!code.includes(CORES))
    throw new Error("tfjs-backend-wasm: the threaded glue's core count this patch doubles was not found (package changed?); see scripts/wasmThreads.ts");
  return code.replace(CORES, () => 'return 2*navigator["hardwareConcurrency"]}');
}

let source: string | undefined;
function threadedSource(): string {
  const require = createRequire(import.meta.url);
  source ??= patchGlue(readFileSync(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-threaded-simd.js'), 'utf8'));
  return source;
}

/** The patched text of backend_wasm.js; throws when the package no longer has the expression. */
export function patchBackendWasm(code: string): string {
  if (!TARGET.test(code))
    throw new Error('tfjs-backend-wasm: the threaded build hand-off this patch replaces was not found (package changed?); see scripts/wasmThreads.ts');
  return code.replace(TARGET, () => JSON.stringify(threadedSource()));
}

/** The same as an esbuild plugin (Vite's dependency pre-bundling, the benchmarks' bundles). */
export const esbuildWasmThreads = {
  name: 'tfjs-wasm-threads',
  setup(build: { onLoad: (o: { filter: RegExp }, f: (a: { path: string }) => { contents: string; loader: 'js' }) => void }) {
    build.onLoad({ filter: BACKEND_FILE }, (a) => ({ contents: patchBackendWasm(readFileSync(a.path, 'utf8')), loader: 'js' }));
    build.onLoad({ filter: GLUE_FILE }, (a) => ({ contents: patchGlue(readFileSync(a.path, 'utf8')), loader: 'js' }));
  },
};

/** The same as a Rollup-style plugin (Vite's app and worker builds, Rolldown's dependency pre-bundling). */
export function wasmThreadsPlugin() {
  return {
    name: 'tfjs-wasm-threads',
    transform(code: string, id: string) {
      const file = id.split('?')[0];
      if (BACKEND_FILE.test(file)) return { code: patchBackendWasm(code), map: null };
      if (GLUE_FILE.test(file)) return { code: patchGlue(code), map: null };
      return null;
    },
  };
}
