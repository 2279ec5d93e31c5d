/**
 * How many gold entities the decoupled model's candidate regions contain (paper 004; an entity
 * outside them cannot be predicted): every span of up to maxLength tokens that passes the cheap
 * filter, plus dictionary matches where a dictionary is given; by entity length, with the
 * candidates per sentence. The rest is what a token model's proposals (pipeline.proposer) can add.
 *   npx tsx bench/candidate-coverage.ts [--max-length 4]
 */
import { parseArgs } from 'node:util';
import { readCorpus, readGazetteer } from '../src/cli/readCorpus';
import type { ParsedCorpus } from '../src/core/types';
import { candidates, phraseIndex, type PhraseIndex } from '../src/model/decoupled';
import { dataFolder } from '../src/cli/dataFolder';

const { values } = parseArgs({ options: { 'max-length': { type: 'string', default: '4' } } });
const L = Number(values['max-length']);
const DATA = `${dataFolder()}/`;

function coverage(name: string, corpus: ParsedCorpus, dict?: PhraseIndex): void {
  const gold = corpus.layers.find((l) => l.kind === 'gold')!.annotations;
  let entities = 0;
  let covered = 0;
  let cands = 0;
  let sentences = 0;
  const long = { n: 0, covered: 0 };
  corpus.docs.forEach((doc, d) => {
    const bounds = [...doc.sentenceStarts, doc.offsets.length / 2];
    for (let k = 0; k + 1 < bounds.length; k++) {
      const [s0, s1] = [bounds[k], bounds[k + 1]];
      const words = Array.from({ length: s1 - s0 }, (_, t) => doc.text.slice(doc.offsets[2 * (s0 + t)], doc.offsets[2 * (s0 + t) + 1]));
      const c = new Set(candidates(words, L, dict).map(([a, b]) => `${a + s0}:${b + s0}`));
      cands += c.size;
      sentences++;
      for (const s of gold[d].spans.filter((x) => x.start >= s0 && x.end <= s1)) {
        const hit = c.has(`${s.start}:${s.end}`);
        entities++;
        covered += Number(hit);
        if (s.end - s.start > L) long.n++, (long.covered += Number(hit));
      }
    }
  });
  const pct = (a: number, b: number) => ((100 * a) / Math.max(1, b)).toFixed(2);
  console.log(
    `| ${name} | ${entities} | ${pct(covered, entities)} % | ${pct(long.n, entities)} % (${long.covered} of ${long.n} covered) | ${(cands / sentences).toFixed(1)} |`,
  );
}

console.log(`candidates: filtered spans of up to ${L} tokens (+ dictionary matches where named)\n`);
console.log('| test set | gold entities | inside the candidates | longer than the limit | candidates per sentence |');
console.log('| --- | --- | --- | --- | --- |');
const conll = readCorpus(`${DATA}conll03-distant/test_text.txt`, {
  format: 'lines',
  labels: [{ file: `${DATA}conll03-distant/test_label_true.txt`, kind: 'gold', name: 'gold' }],
});
coverage('conll03 test', conll);
const bc5 = readCorpus(`${DATA}bc5cdr/test.conll`, { format: 'conll' });
coverage('bc5cdr test', bc5);
const g = readGazetteer(`${DATA}bc5cdr/dict_core.txt`, 'tsv');
const types = ['O', ...new Set(g.entries.map((e) => e.type!))];
coverage('bc5cdr test + dict_core matches', bc5, phraseIndex(g.entries.map((e) => ({ words: e.phrase.split(' '), label: types.indexOf(e.type!) }))));
