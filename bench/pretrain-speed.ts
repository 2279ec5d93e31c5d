/**
 * Encoder pre-training speed (src/model/pretrain.ts) on the WASM backend: one epoch of the
 * bidirectional language model over the first N sentences of bc5cdr's train_raw.
 * `npx tsx bench/pretrain-speed.ts [N=2000] [vocab=5000]`; the data folder as for the CLI.
 */
import { readFileSync } from 'node:fs';
import { dataFolder } from '../src/cli/dataFolder';
import { initWasmBackend } from '../src/cli/train';
import { parseRunConfig } from '../src/core/runConfig';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import { pretrainEncoder } from '../src/model/pretrain';

const n = Number(process.argv[2] ?? 2000);
const vocab = Number(process.argv[3] ?? 5000);
const backend = await initWasmBackend();
const lines = readFileSync(`${dataFolder()}/bc5cdr/train_raw.txt`, 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, n)
  .map((l) => ({ words: l.split(' ') }));
const cfg = parseRunConfig({ data: { kind: 'files', train: { conll: '-' }, dev: { conll: '-' } }, model: { hidden: 100 } });
const feat = buildFeaturizer(
  trimGlove(
    readGloveAsset(),
    lines.flatMap((s) => s.words),
  ),
  lines.map((s) => s.words),
  ['O', 'B-X', 'I-X'],
);
const t0 = performance.now();
const e = await pretrainEncoder(cfg.model, feat, lines, { epochs: 1, vocab, batchSize: 32, lr: 0.002, clip: 5, seed: 1 });
const seconds = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    bench: 'encoder pre-training, one epoch',
    backend,
    sentences: n,
    vocab,
    tokens: e?.tokens,
    seconds: +seconds.toFixed(1),
    tokensPerSecond: Math.round((e?.tokens ?? 0) / seconds),
    loss: e?.losses[0],
  }),
);
