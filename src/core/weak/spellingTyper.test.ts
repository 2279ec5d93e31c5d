import { describe, expect, it } from 'vitest';
import { WeakLabeler } from './pipeline';
import { trainSpellingTyper, typeUnknownSpans } from './spellingTyper';

const phrases = [
  ...['hepatitis', 'nephritis', 'arthritis', 'anemia', 'leukemia', 'lymphoma', 'carcinoma', 'renal failure', 'heart failure'].map((p) => ({
    p,
    type: 'Disease',
  })),
  ...['cocaine', 'nicotine', 'lidocaine', 'chloride', 'fluoride', 'haloperidol', 'propranolol', 'acetic acid', 'folic acid'].map((p) => ({
    p,
    type: 'Chemical',
  })),
].map(({ p, type }) => ({ words: p.split(' '), type }));

describe('spelling typer', () => {
  it('types unseen phrases by their character n-grams and words', () => {
    const typer = trainSpellingTyper(phrases)!;
    expect(typer.types).toEqual(['Chemical', 'Disease']);
    expect(typer.classify(['gastritis']).type).toBe('Disease');
    expect(typer.classify(['procaine']).type).toBe('Chemical');
    expect(typer.classify(['liver', 'failure']).type).toBe('Disease');
    expect(typer.classify(['ascorbic', 'acid']).type).toBe('Chemical');
    const p = typer.classify(['bupivacaine']).posterior;
    expect(p).toBeGreaterThan(0.5);
    expect(p).toBeLessThanOrEqual(1);
  });

  it('needs two types to choose between', () => {
    expect(trainSpellingTyper(phrases.filter((p) => p.type === 'Disease'))).toBeNull();
    expect(trainSpellingTyper([])).toBeNull();
  });

  it('types untyped spans only: known and ambiguous ones stay', () => {
    const typer = trainSpellingTyper(phrases)!;
    const tokens = ['gastritis', 'after', 'procaine', 'Jordan'];
    const src = {
      name: 'list',
      priority: 0,
      spans: [
        [
          { start: 0, end: 1, label: '?' },
          { start: 2, end: 3, label: 'Disease' },
          { start: 3, end: 4, label: '?', candidates: ['PER', 'LOC'] },
        ],
      ],
    };
    const { sources, typed } = typeUnknownSpans([src], typer, (_d, s) => tokens.slice(s.start, s.end));
    expect(typed).toBe(1);
    expect(sources[0].spans[0].map((s) => s.label)).toEqual(['Disease', 'Disease', '?']);
    expect(src.spans[0][0].label).toBe('?');
  });
});

describe('weak labeling with an untyped gazetteer', () => {
  const docs = [{ text: '', offsets: [], tokens: 'hepatitis and gastritis after procaine'.split(' '), sentenceStarts: [0] }];
  const request = (typeUntyped?: boolean) => ({
    gazetteers: [
      { name: 'typed', mode: 'insensitive' as const, priority: 0, entries: phrases.map((p) => ({ phrase: p.words.join(' '), type: p.type })) },
      { name: 'untyped', mode: 'insensitive' as const, priority: 1, entries: ['gastritis', 'procaine'].map((phrase) => ({ phrase, type: null })) },
    ],
    rules: [],
    types: ['Chemical', 'Disease'],
    method: 'priority' as const,
    ...(typeUntyped === undefined ? {} : { typeUntyped }),
  });
  it('aggregates the untyped matches with the types their spelling suggests, by default', () => {
    const r = new WeakLabeler(docs).run(request());
    expect(r.typedBySpelling).toBe(2);
    expect(r.aggregate[0].spans.map((s) => [s.start, s.label])).toEqual([
      [0, 'Disease'],
      [2, 'Disease'],
      [4, 'Chemical'],
    ]);
    // The source's own output is what the list said.
    expect(r.sources[1].spans[0].map((s) => s.label)).toEqual(['?', '?']);
  });
  it('leaves a stop-listed phrase out of the aggregation, whatever source matched it', () => {
    const r = new WeakLabeler(docs).run({ ...request(), stop: ['gastritis'] });
    expect(r.aggregate[0].spans.map((s) => [s.start, s.label])).toEqual([
      [0, 'Disease'],
      [4, 'Chemical'],
    ]);
    // The source still says what it matched (its statistics).
    expect(r.sources[1].spans[0]).toHaveLength(2);
  });
  it('leaves them untyped when asked', () => {
    const r = new WeakLabeler(docs).run(request(false));
    expect(r.typedBySpelling).toBe(0);
    expect(r.aggregate[0].spans.map((s) => [s.start, s.label])).toEqual([
      [0, 'Disease'],
      [2, '?'],
      [4, '?'],
    ]);
  });
});
