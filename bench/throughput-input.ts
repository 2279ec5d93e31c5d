/**
 * The inputs of the training-throughput benchmarks (bench/train-throughput.ts, bench/gpu-node.ts):
 * the first CoNLL-2003 training sentences, their trimmed GloVe vectors, the two encoders at the
 * sizes measured, and the shapes bench/torch_tagger.py reproduces the same batches from.
 */
import { trimGlove } from '../src/model/embeddings';
import { readGloveAsset } from '../src/model/gloveNode';
import { conll03TrainSentences } from './conll03';

export const THROUGHPUT_MODELS = [
  { encoder: 'bilstm' as const, hidden: 100 },
  { encoder: 'idcnn' as const, hidden: 300 },
];

/** The first `count` training sentences; with `devCount`, that many dev sentences too (gold tags, the training tags' order). */
export function throughputInput(count: number, devCount = 0) {
  const train = conll03TrainSentences(count);
  const sentences = train.sentences.map(({ words, tags }) => ({ words, tags }));
  const validation = devCount > 0 ? conll03TrainSentences(devCount, 'valid') : null;
  const dev = validation?.sentences.map(({ words, tags }) => ({ words, tags: tags.map((t) => train.tags.indexOf(validation.tags[t])) }));
  if (dev?.some((s) => s.tags.includes(-1))) throw new Error('conll03 dev has a tag that its training split lacks');
  const emb = trimGlove(
    readGloveAsset(),
    [...sentences, ...(dev ?? [])].flatMap((s) => s.words),
  );
  const words = [...emb.index.entries()].sort((a, b) => a[1] - b[1]).map(([w]) => w);
  return { sentences, ...(dev ? { dev } : {}), tags: train.tags, glove: { dims: emb.dims, words, vectors: emb.vectors } };
}

/** What bench/torch_tagger.py needs to build the same batches: sentence and word lengths, sizes. */
export function torchShapes(input: ReturnType<typeof throughputInput>, epochs: number) {
  return {
    lengths: input.sentences.map((s) => s.words.length),
    charLengths: input.sentences.map((s) => s.words.map((w) => Math.min(16, [...w].length))),
    tags: input.tags.length,
    word: input.glove.dims + 8,
    chars: 100,
    epochs,
    models: THROUGHPUT_MODELS,
  };
}
