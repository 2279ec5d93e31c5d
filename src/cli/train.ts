import '../methods';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseCorpusImport } from '../core/formats/importSpec';
import type { ParsedCorpus } from '../core/types';
import { parseRunConfig, type RunConfig } from '../core/runConfig';
import { bioTags, toSentences, type LabeledSentence } from '../model/data';
import { trimGlove } from '../model/embeddings';
import { buildFeaturizer } from '../model/features';
import { readGloveAsset } from '../model/gloveNode';
import * as tf from '../model/tf';
import { evaluate, trainTagger } from '../model/train';
import { roundScores } from './roundScores';

type FileSplit = { text: string; labels: string } | { conll: string };

function readSplit(s: FileSplit, scheme: string): ParsedCorpus {
  const named = (f: string) => ({ file: f, text: readFileSync(f, 'utf8') });
  if ('conll' in s) return parseCorpusImport({ format: 'conll', split: 'train', scheme: scheme as never, files: [named(s.conll)] });
  return parseCorpusImport({ format: 'lines', split: 'train', scheme: scheme as never, files: [named(s.text)], labels: [{ ...named(s.labels), kind: 'gold', name: 'gold' }] });
}

export async function useWasmBackend(): Promise<string> {
  await import('@tensorflow/tfjs-backend-wasm');
  
  if (!(await tf.setBackend('wasm'))) await tf.setBackend('cpu');
  await tf.ready();
  return `${tf.getBackend()}${tf.getBackend() === 'wasm' && tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? ' (SIMD)' : ''}`;
}

export interface FileData {
  tags: string[];
  train: LabeledSentence[];
  dev: LabeledSentence[];
  test: LabeledSentence[];
}

export function loadFileData(cfg: RunConfig): FileData {
  if (cfg.data.kind !== 'files') throw new Error('the CLI trains from files: data.kind must be "files"');
  const d = cfg.data;
  const train = readSplit(d.train, d.scheme);
  const dev = readSplit(d.dev, d.scheme);
  const test = d.test ? readSplit(d.test, d.scheme) : null;
  const devTypes = [...dev.types, ...(test?.types ?? [])].filter((t) => !train.types.includes(t));
  if (devTypes.length) throw new Error(`label sets differ between layers: ${devTypes.join(', ')} in dev/test but not in train`);
  const tags = bioTags(train.types);
  const sents = (c: ParsedCorpus, limit?: number) => toSentences(c.docs, c.layers[0]?.annotations ?? [], tags).slice(0, limit);
  return { tags, train: sents(train, d.limitTrain), dev: sents(dev, d.limitDev), test: test ? sents(test) : [] };
}

/** `train --config FILE [--out weights.json]`: trains in Node on the WASM backend. */
export async function trainFromConfig(configFile: string, out?: string): Promise<Record<string, unknown>> {
  const cfg = parseRunConfig(JSON.parse(readFileSync(configFile, 'utf8')), configFile);
  const backend = await useWasmBackend();
  const data = loadFileData(cfg);
  if (!data.train.some((s) => s.tags.some((t) => t !== 0))) throw new Error('the training data has no labeled entity');
  const words = [...data.train, ...data.dev, ...data.test].flatMap((s) => s.words);
  const feat = buildFeaturizer(trimGlove(readGloveAsset(), words), data.train.map((s) => s.words), data.tags);
  const tensorsBefore = tf.memory().numTensors;
  const result = await trainTagger(cfg, feat, data, {
    onEpoch: (e) => void process.stderr.write(`epoch ${e.epoch}: loss ${e.loss.toFixed(3)} dev F1 ${(100 * e.dev.overall.f1).toFixed(2)} ${e.best ? '*' : ''} (${e.seconds.toFixed(0)} s, ${e.tokensPerSecond.toFixed(0)} tokens/s)\n`),
  });
  const test = data.test.length ? await evaluate(result.tagger, feat, data.test) : null;
  if (out) writeFileSync(out, JSON.stringify({ config: cfg, tags: data.tags, weights: Object.fromEntries(Object.entries(await result.tagger.getWeights()).map(([k, v]) => [k, { shape: v.shape, data: Array.from(v.data) }])) }));
  const r2 = (x: number) => Math.round(x * 10000) / 100;
  result.tagger.dispose();
  return {
    config: cfg.name,
    backend,
    trainSentences: data.train.length,
    trainTokens: result.trainTokens,
    epochs: result.history.length,
    bestEpoch: result.bestEpoch,
    stopped: result.stopped,
    dev: result.bestDev && roundScores(result.bestDev),
    test: test && roundScores(test),
    wallSeconds: Math.round(result.seconds),
    trainTokensPerSecond: Math.round(result.tokensPerSecond),
    leakedTensors: tf.memory().numTensors - tensorsBefore,
    history: result.history.map((h) => ({ epoch: h.epoch, loss: +h.loss.toFixed(4), devF1: r2(h.dev.overall.f1), seconds: +h.seconds.toFixed(1) })),
  };
}
