import { describe, expect, it } from 'vitest';
import { InputError } from '../errors';
import { parseConll, writeConll } from './conll';
import { parseGazetteerTsv, parsePatternsJsonl } from './gazetteer';
import { parseJsonl, parsePlainText, writeJsonl } from './jsonl';
import { parseLines } from './lines';
import { FIXTURES } from '../../testing/data';
import { conllRoundTrip, gazetteers, linesRoundTrip } from '../../testing/referenceChecks';

const layer = { kind: 'gold' as const, name: 'gold' };

function expectError(fn: () => unknown, re: RegExp) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect((e as Error).message).toMatch(re);
    return;
  }
  throw new Error('expected an InputError');
}

describe('CoNLL', () => {
  it('round-trips bc5cdr dev exactly, text and structure (fixture slice)', () => conllRoundTrip(FIXTURES, 200));

  it('groups sentences into documents at -DOCSTART- and reads every scheme', () => {
    const text = '-DOCSTART- -X- O\n\nJohn NNP S-PER\nlives VBZ O\n\nin IN O\nNew NNP B-LOC\nYork NNP E-LOC\n';
    const c = parseConll(text, { file: 'a.conll', scheme: 'BIOES', split: 'train', layer });
    expect(c.docs).toHaveLength(1);
    expect(c.docs[0].sentenceStarts).toEqual([0, 2]);
    expect(c.layers[0].annotations[0].spans).toEqual([
      { start: 0, end: 1, label: 'PER' },
      { start: 3, end: 5, label: 'LOC' },
    ]);
    const back = parseConll(writeConll(c.docs, c.layers[0].annotations, 'IOB1'), { file: 'b', scheme: 'IOB1', split: 'train', layer });
    expect(back.layers[0].annotations).toEqual(c.layers[0].annotations);
  });

  it('locates malformed input', () => {
    expectError(
      () => parseConll('John B-PER\nSmith\n', { file: 'bad.conll', scheme: 'BIO', split: 'train', layer }),
      /bad\.conll, line 2: expected "token \.\.\. tag"/,
    );
    expectError(() => parseConll('John B-PER\nSmith X-PER\n', { file: 'bad.conll', scheme: 'BIO', split: 'train', layer }), /line 2: malformed tag "X-PER"/);
    expectError(
      () => parseConll('a O\n\nJohn B-PER\nSmith E-PER\n', { file: 'bad.conll', scheme: 'BIO', split: 'train', layer }),
      /line 4: tag "E-PER" is not valid in the BIO scheme/,
    );
  });
});

describe('sentence lines with parallel label files', () => {
  it('round-trips conll03 train with both label layers (fixture slice)', () => linesRoundTrip(FIXTURES, 300));

  it('names the file and line of a length mismatch', () => {
    expectError(
      () =>
        parseLines({ file: 't.txt', text: 'a b\nc d e\n' }, [{ file: 'l.txt', text: 'O O\nO O\n', kind: 'gold', name: 'g' }], {
          scheme: 'BIO',
          split: 'train',
        }),
      /l\.txt, line 2: 2 tags for 3 tokens/,
    );
    expectError(
      () => parseLines({ file: 't.txt', text: 'a b\nc\n' }, [{ file: 'l.txt', text: 'O O\n', kind: 'gold', name: 'g' }], { scheme: 'BIO', split: 'train' }),
      /l\.txt, line 2: 1 label lines for 2 sentences/,
    );
  });
});

describe('JSONL and plain text', () => {
  it("round-trips character-offset spans on the text's own tokens", () => {
    const src =
      '{"text": "Aspirin-induced asthma in 3 patients.", "spans": [{"start": 0, "end": 7, "label": "Chemical"}, {"start": 16, "end": 22, "label": "Disease"}]}\n';
    const c = parseJsonl(src, { file: 'a.jsonl', split: 'train', layer });
    const d = c.docs[0];
    const spans = c.layers[0].annotations[0].spans;
    // "Aspirin-induced" is one token: the Chemical span snaps out to it, and the import says so.
    expect(spans.map((s) => d.text.slice(d.offsets[2 * s.start], d.offsets[2 * s.end - 1]))).toEqual(['Aspirin-induced', 'asthma']);
    expect(c.warnings).toHaveLength(1);
    const again = parseJsonl(writeJsonl(c.docs, c.layers[0].annotations), { file: 'a.jsonl', split: 'train', layer });
    expect(again.layers).toEqual(c.layers);
    expect(again.docs[0].offsets).toEqual(d.offsets);
  });

  it('snaps a span edge inside a token out to the token, never re-tokenizing, and says which line', () => {
    const src = '{"text": "Barack Obama spoke."}\n{"text": "Barack Obama spoke.", "spans": [{"start": 2, "end": 10, "label": "PER"}]}\n';
    const c = parseJsonl(src, { file: 'p.jsonl', split: 'train', layer });
    const d = c.docs[1];
    expect(d.offsets).toEqual(c.docs[0].offsets);
    const [s] = c.layers[0].annotations[1].spans;
    expect(d.text.slice(d.offsets[2 * s.start], d.offsets[2 * s.end - 1])).toBe('Barack Obama');
    expect(c.warnings).toEqual(['p.jsonl, line 2: span 2-10 ("rack Oba") starts or ends inside a token; it now covers the whole tokens "Barack Obama"']);
    // With the tokens given, a span off their edges is refused, naming the line.
    expectError(
      () =>
        parseJsonl('{"text": "ab cd", "tokens": [{"start": 0, "end": 2}, {"start": 3, "end": 5}], "spans": [{"start": 1, "end": 5, "label": "X"}]}\n', {
          file: 't.jsonl',
          split: 'train',
          layer,
        }),
      /t\.jsonl, line 1: span 1-5 \("b cd"\) does not fall on the given token boundaries/,
    );
  });

  it('locates bad records', () => {
    expectError(() => parseJsonl('{"text": "a"}\n{"text": 3}\n', { file: 'x.jsonl', split: 'train', layer }), /x\.jsonl, line 2: text:/);
    expectError(
      () => parseJsonl('{"text": "abc", "spans": [{"start": 1, "end": 9, "label": "A"}]}\n', { file: 'x.jsonl', split: 'train', layer }),
      /line 1: span 1-9 is outside the text/,
    );
    expectError(() => parseJsonl('not json\n', { file: 'x.jsonl', split: 'train', layer }), /line 1: invalid JSON/);
  });

  it('tokenizes plain text with offsets', () => {
    const c = parsePlainText('Naloxone reverses clonidine. It works.', { file: 'a.txt', split: 'unassigned' });
    expect(c.docs[0].sentenceStarts).toEqual([0, 4]);
  });
});

describe('gazetteers', () => {
  it('reads bc5cdr dict_core and dict_full_train and writes TSV back (fixture slices)', () => gazetteers(FIXTURES, 300, 300));

  it('rejects a line without a type and an empty phrase, naming the line', () => {
    expectError(() => parseGazetteerTsv('Chemical\taspirin\nibuprofen\n', 'g.tsv'), /g\.tsv, line 2: no type/);
    expectError(() => parseGazetteerTsv('Chemical\t  \n', 'g.tsv'), /g\.tsv, line 1: empty phrase/);
  });

  it('reads spaCy / Prodigy patterns: phrases become entries, token patterns become rules', () => {
    const g = parsePatternsJsonl(
      '{"label": "ORG", "pattern": "Apple Inc"}\n{"label": "GPE", "pattern": [{"lower": "san"}, {"lower": "francisco"}]}\n',
      'p.jsonl',
    );
    expect(g.entries).toEqual([{ phrase: 'Apple Inc', type: 'ORG' }]);
    expect(g.patterns).toHaveLength(1);
    expect(g.patterns[0].line).toBe(2);
    expectError(() => parsePatternsJsonl('{"pattern": "x"}\n', 'p.jsonl'), /p\.jsonl, line 1: label/);
    expectError(() => parsePatternsJsonl('{"label": "A", "pattern": "x"}\n\n{oops\n', 'p.jsonl'), /p\.jsonl, line 3: invalid JSON/);
    expect(parsePatternsJsonl('{"label": "A", "pattern": "x"}\n\n{"label": "B", "pattern": [{"lower": "y"}]}\n', 'p.jsonl').patterns[0].line).toBe(3);
  });
});

describe('CSV export', () => {
  it('opens formulas as text, quotes quotes, commas, LF and CR, and keeps numbers numbers', async () => {
    const { toCsv } = await import('./csv');
    expect(
      toCsv([
        ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', 'plain'],
        [-3.5, '-3.5', '1e-4', 'a,b', 'say "hi"', 'line\rbreak'],
      ]),
    ).toBe(`'=1+1,'+SUM(A1),'-2+3,'@cmd,'\tx,plain\n-3.5,-3.5,1e-4,"a,b","say ""hi""","line\rbreak"\n`);
    expect(toCsv([['\r=1']])).toBe(`"'\r=1"\n`);
  });
});
