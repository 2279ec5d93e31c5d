/**
 * Training throughput of the shared loop for one encoder on the active backend: the same code in
 * Node (WASM) and in headless Chromium (every backend there). The caller sets the backend.
 */
import { getMethod } from '../src/methods';
import '../src/methods';
import { parseRunConfig } from '../src/core/runConfig';
import { buildFeaturizer } from '../src/model/features';
import * as tf from '../src/model/tf';
import { trainTagger } from '../src/model/train';

export interface ThroughputInput {
  sentences: { words: string[]; tags: number[] }[];
  tags: string[];
  glove: { dims: number; words: string[]; vectors: Float32Array };
  encoder: 'bilstm' | 'idcnn';
  hidden: number;
  epochs: number;
  /** Sentences a batch (32 unless given): a GPU gains from larger ones, since its cost is per program. */
  batchSize?: number;
  /** Held-out sentences to score on (dev F1 of the best epoch); without them, the first 8 training sentences. */
  dev?: { words: string[]; tags: number[] }[];
  lr?: number;
  seed?: number;
  /** Word dropout (0 unless given: the recorded figures and the PyTorch reference have none; the studio's default is 0.1). */
  wordDropout?: number;
  /** Weight averaging's decay (train.average; 0 unless given, as the records were made). */
  average?: number;
}

/** Tokens per second of the last epoch (the first pays for compilation and warm-up). */
export async function runThroughput(input: ThroughputInput) {
  const glove = { dims: input.glove.dims, index: new Map(input.glove.words.map((w, k) => [w, k])), vectors: input.glove.vectors };
  const sentences = input.sentences.map((s, k) => ({ ...s, doc: k, offset: 0 }));
  const dev = input.dev?.map((s, k) => ({ ...s, doc: sentences.length + k, offset: 0 }));
  const feat = buildFeaturizer(
    glove,
    sentences.map((s) => s.words),
    input.tags,
  );
  const cfg = parseRunConfig({
    data: { kind: 'files', train: { conll: 'x' }, dev: { conll: 'y' } },
    model: { encoder: input.encoder, hidden: input.hidden, head: 'crf', dropout: 0.5, wordDropout: input.wordDropout ?? 0 },
    train: { epochs: input.epochs, batchSize: input.batchSize ?? 32, lr: input.lr ?? 0.002, patience: 100, seed: input.seed ?? 1, average: input.average ?? 0 },
  });
  const r = await trainTagger(getMethod(cfg.method.name), cfg, feat, { train: sentences, dev: dev ?? sentences.slice(0, 8) });
  r.tagger.dispose();
  const last = r.history[r.history.length - 1];
  return {
    backend: tf.getBackend(),
    encoder: input.encoder,
    hidden: input.hidden,
    batchSize: input.batchSize ?? 32,
    tokensPerEpoch: r.trainTokens,
    epochSeconds: +last.seconds.toFixed(2),
    tokensPerSecond: Math.round(last.tokensPerSecond),
    losses: r.history.map((h) => +h.loss.toFixed(4)),
    ...(dev
      ? {
          seed: input.seed ?? 1,
          lr: input.lr ?? 0.002,
          devF1: +(100 * (r.bestDev?.overall.f1 ?? 0)).toFixed(2),
          bestEpoch: r.bestEpoch,
          runSeconds: +r.seconds.toFixed(1),
        }
      : {}),
  };
}

/** Backend set-up inside the browser page (WASM files served under /bench-wasm/). */
export async function useBrowserBackend(name: string): Promise<string> {
  if (name === 'webgpu') {
    await (await import('../src/model/webgpuStudio')).registerStudioWebgpu();
  }
  // 'wasm' is the single-threaded SIMD build; 'wasm-threads' the threaded one (needs cross-origin isolation).
  if (name === 'wasm' || name === 'wasm-threads') {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    (await import('../src/model/wasmKernels')).registerWasmKernels();
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', name === 'wasm-threads');
    if (name === 'wasm-threads') wasm.setThreadsCount(navigator.hardwareConcurrency);
    wasm.setWasmPaths('/bench-wasm/');
  }
  const backend = name === 'wasm-threads' ? 'wasm' : name;
  if (!(await tf.setBackend(backend))) throw new Error(`backend ${name} did not start`);
  await tf.ready();
  if (name === 'wasm-threads') {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    return `wasm, ${wasm.getThreadsCount()} threads${self.crossOriginIsolated ? '' : ' (not cross-origin isolated)'}`;
  }
  return tf.getBackend();
}
