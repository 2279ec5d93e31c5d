/**
 * CoNLL-2003 training sentences with their gold tags, as the throughput and profiling benchmarks
 * use them: sentences of 5 or more tokens (the headlines and "-DOCSTART-" lines are short), the
 * first `count` (of the dev split with split 'valid'). Reads the data folder (NER_STUDIO_DATA, default ../shared/data).
 */
import { readFileSync } from 'node:fs';
import { parseCorpusImport } from '../src/core/formats/importSpec';
import { bioTags, toSentences, type LabeledSentence } from '../src/model/data';
import { dataFolder } from '../src/cli/dataFolder';

const DATA = `${dataFolder()}/conll03-distant/`;

export function conll03TrainSentences(count: number, split: 'train' | 'valid' = 'train'): { tags: string[]; sentences: LabeledSentence[] } {
  const corpus = parseCorpusImport({
    format: 'lines',
    split: split === 'train' ? 'train' : 'dev',
    scheme: 'BIO',
    files: [{ file: `${split}_text.txt`, text: readFileSync(`${DATA}${split}_text.txt`, 'utf8') }],
    labels: [{ file: `${split}_label_true.txt`, text: readFileSync(`${DATA}${split}_label_true.txt`, 'utf8'), kind: 'gold', name: 'gold' }],
  });
  const tags = bioTags(corpus.types);
  const sentences = toSentences(corpus.docs, corpus.layers[0].annotations, tags)
    .filter((s) => s.words.length >= 5)
    .slice(0, count);
  return { tags, sentences };
}
