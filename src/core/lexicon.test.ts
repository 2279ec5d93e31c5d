import { describe, expect, it } from 'vitest';
import { alignedLexicon, entryReliability, lexiconFromSpans, lexiconMatcher, makeLexicon, spanMatches, weakFeatureTypes } from './lexicon';
import { UNKNOWN_TYPE } from './types';

describe('dictionary features', () => {
  const entries = [
    { words: ['New', 'York'], type: 'LOC' },
    { words: ['New', 'York', 'Times'], type: 'ORG' },
    { words: ['York'], type: 'PER' },
    { words: ['aspirin'], type: null },
  ];
  const lex = makeLexicon([{ mode: 'insensitive', entries }]);

  it('puts the untyped phrases last, as the unknown type', () => {
    expect(lex.types).toEqual(['LOC', 'ORG', 'PER', '?']);
  });

  it('finds every match, nested and overlapping ones too, in the lexicon case mode', () => {
    const match = lexiconMatcher(lex);
    const m = match(['the', 'new', 'York', 'Times', 'on', 'Aspirin']);
    expect(m).toEqual([
      { start: 1, end: 3, type: 0 },
      { start: 1, end: 4, type: 1 },
      { start: 2, end: 3, type: 2 },
      { start: 5, end: 6, type: 3 },
    ]);
    expect(match([])).toEqual([]);
    expect(lexiconMatcher(makeLexicon([{ mode: 'sensitive', entries }]))(['new', 'York'])).toEqual([{ start: 1, end: 2, type: 2 }]);
    // Two gazetteers, each in its own case mode, one match list without repeats.
    const two = makeLexicon([
      { mode: 'sensitive', entries: [{ words: ['US'], type: 'LOC' }] },
      {
        mode: 'insensitive',
        entries: [
          { words: ['us'], type: 'LOC' },
          { words: ['army'], type: null },
        ],
      },
    ]);
    expect(lexiconMatcher(two)(['US', 'Army', 'us'])).toEqual([
      { start: 0, end: 1, type: 0 },
      { start: 1, end: 2, type: 1 },
      { start: 2, end: 3, type: 0 },
    ]);
  });

  it("lets a source's short entries keep their case (caseUpTo), as the weak labels do, the rest matching in its mode", () => {
    const source = {
      mode: 'insensitive' as const,
      entries: [
        { words: ['Mg'], type: 'Chemical' },
        { words: ['MG'], type: 'Disease' },
        { words: ['magnesium'], type: 'Chemical' },
      ],
    };
    const words = ['Mg', 'mg', 'MG', 'Magnesium'];
    // Types: Chemical 0, Disease 1. Without it, each spelling of "mg" is both.
    expect(lexiconMatcher(makeLexicon([source]))(words)).toHaveLength(7);
    expect(lexiconMatcher(makeLexicon([{ ...source, caseUpTo: 2 }]))(words)).toEqual([
      { start: 0, end: 1, type: 0 },
      { start: 2, end: 3, type: 1 },
      { start: 3, end: 4, type: 0 },
    ]);
  });

  it('builds a distant dictionary from the typed strings of labeled sentences, one entry per string and type', () => {
    const entries = lexiconFromSpans([
      {
        words: ['Paris', 'is', 'in', 'France'],
        spans: [
          { start: 0, end: 1, label: 'LOC' },
          { start: 3, end: 4, label: 'LOC' },
        ],
      },
      {
        words: ['Paris', 'Hilton', 'met', 'Paris'],
        spans: [
          { start: 0, end: 2, label: 'PER' },
          { start: 3, end: 4, label: 'PER' },
        ],
      },
      {
        words: ['Paris'],
        spans: [
          { start: 0, end: 1, label: 'LOC' },
          { start: 0, end: 1, label: '?' },
        ],
      },
    ]);
    expect(entries).toEqual([
      { words: ['Paris'], type: 'LOC' },
      { words: ['France'], type: 'LOC' },
      { words: ['Paris', 'Hilton'], type: 'PER' },
      { words: ['Paris'], type: 'PER' },
    ]);
  });

  it('weighs each distant entry by how often its words are labeled as its type where they occur, and its matches carry that value', () => {
    const sentences = [
      { words: ['May', 'said', 'in', 'May'], spans: [{ start: 0, end: 1, label: 'PER' }] },
      { words: ['in', 'May', 'and', 'June'], spans: [] },
      { words: ['May', 'Day'], spans: [{ start: 0, end: 2, label: 'MISC' }] },
      { words: ['Paris'], spans: [{ start: 0, end: 1, label: 'LOC' }] },
    ];
    const weighed = entryReliability(lexiconFromSpans(sentences), sentences);
    // "May" occurs 4 times (once inside "May Day"), labeled a person once.
    expect(weighed).toEqual([
      { words: ['May'], type: 'PER', reliability: 0.25 },
      { words: ['May', 'Day'], type: 'MISC', reliability: 1 },
      { words: ['Paris'], type: 'LOC', reliability: 1 },
    ]);
    const lex = makeLexicon([{ mode: 'sensitive', entries: weighed }]);
    const match = lexiconMatcher(lex);
    const [misc, loc, per] = [lex.types.indexOf('MISC'), lex.types.indexOf('LOC'), lex.types.indexOf('PER')];
    expect(match(['May', 'Day', 'in', 'Paris'])).toEqual([
      { start: 0, end: 1, type: per, value: 0.25 },
      { start: 0, end: 2, type: misc },
      { start: 3, end: 4, type: loc },
    ]);
  });

  it("adds the rules' matches as matches of their label, regex and token rules alike", () => {
    const lex = makeLexicon(
      [{ mode: 'insensitive', entries: [{ words: ['aspirin'], type: 'Chemical' }] }],
      [
        { kind: 'tokens', name: 'itis', label: 'Disease', pattern: [{ LOWER: { REGEX: 'itis$' } }] },
        { kind: 'regex', name: 'failure', label: 'Disease', pattern: '\\b[a-z]+ failure\\b', ignoreCase: true },
      ],
    );
    expect(lex.types).toEqual(['Chemical', 'Disease']);
    expect(lexiconMatcher(lex)(['Aspirin', 'and', 'hepatitis', 'with', 'renal', 'failure'])).toEqual([
      { start: 0, end: 1, type: 0 },
      { start: 2, end: 3, type: 1 },
      { start: 4, end: 6, type: 1 },
    ]);
  });

  it("values each source's and rule's matches by its reliability, the most reliable where several give the same match", () => {
    const lex = makeLexicon(
      [
        { mode: 'insensitive', entries: [{ words: ['aspirin'], type: 'Chemical' }], reliability: { Chemical: 0.9 } },
        // Its short entries keep their case and their source's reliability; an entry's own reliability wins.
        {
          mode: 'insensitive',
          caseUpTo: 2,
          entries: [
            { words: ['Mg'], type: 'Chemical' },
            { words: ['aspirin'], type: 'Chemical' },
            { words: ['renal', 'failure'], type: 'Disease', reliability: 0.2 },
            { words: ['shock'], type: null },
          ],
          reliability: { Chemical: 0.5, [UNKNOWN_TYPE]: 0.4 },
        },
      ],
      [{ kind: 'regex', name: 'failure', label: 'Disease', pattern: '\\b[a-z]+ failure\\b', ignoreCase: true }],
      [],
      { failure: 0.7 },
    );
    const [chem, dis, unk] = [lex.types.indexOf('Chemical'), lex.types.indexOf('Disease'), lex.types.indexOf(UNKNOWN_TYPE)];
    expect(lexiconMatcher(lex)(['Aspirin', 'Mg', 'mg', 'renal', 'failure', 'shock'])).toEqual([
      { start: 0, end: 1, type: chem, value: 0.9 },
      { start: 1, end: 2, type: chem, value: 0.5 },
      { start: 3, end: 5, type: dis, value: 0.7 },
      { start: 5, end: 6, type: unk, value: 0.4 },
    ]);
    // Without reliabilities every match is worth 1, as before.
    const plain = makeLexicon(lex.sources.map(({ reliability: _, ...s }) => s));
    expect(lexiconMatcher(plain)(['aspirin']).map((m) => m.value)).toEqual([undefined]);
  });

  it('matches nothing of a stop-listed phrase, from a source or a rule, and still matches its parts and the phrases around it', () => {
    const lex = makeLexicon(
      [
        {
          mode: 'insensitive',
          entries: [
            { words: ['New', 'York'], type: 'LOC' },
            { words: ['York'], type: 'PER' },
            { words: ['aspirin'], type: 'Chemical' },
          ],
        },
      ],
      [{ kind: 'tokens', name: 'itis', label: 'Disease', pattern: [{ LOWER: { REGEX: 'itis$' } }] }],
      ['New York', 'hepatitis'],
    );
    // The stop list reads the sentence's own words: "new York" is no stop-listed phrase.
    expect(lexiconMatcher(lex)(['New', 'York', 'and', 'new', 'York', 'with', 'hepatitis', 'or', 'aspirin'])).toEqual([
      { start: 1, end: 2, type: 3 },
      { start: 3, end: 5, type: 2 },
      { start: 4, end: 5, type: 3 },
      { start: 8, end: 9, type: 0 },
    ]);
  });
});

describe('a lexicon aligned to a trained model', () => {
  it("reads matches into the model's groups, leaves out a type it has none for, and keeps a lost type's group silent", () => {
    const lex = makeLexicon(
      [
        {
          mode: 'sensitive',
          entries: [
            { words: ['Oslo'], type: 'LOC' },
            { words: ['Acme'], type: 'ORG' },
          ],
        },
      ],
      [{ kind: 'tokens', name: 'itis', label: 'Disease', pattern: [{ LOWER: { REGEX: 'itis$' } }] }],
    );
    expect(lex.types).toEqual(['Disease', 'LOC', 'ORG']);
    const { lexicon, left } = alignedLexicon(lex, ['PER', 'LOC', 'Disease']);
    expect(left).toEqual(['ORG']);
    expect(lexicon.types).toEqual(['PER', 'LOC', 'Disease']);
    expect(lexiconMatcher(lexicon)(['Acme', 'in', 'Oslo', 'with', 'hepatitis'])).toEqual([
      { start: 2, end: 3, type: 1 },
      { start: 4, end: 5, type: 2 },
    ]);
  });
});

describe('weak labels as features', () => {
  it("gives a sentence its document's weak spans inside it, as matches of the groups after the dictionary's", () => {
    const spans = [
      { start: 1, end: 3, label: 'Disease' },
      { start: 4, end: 5, label: 'Chemical' },
      { start: 5, end: 6, label: '?' },
      { start: 7, end: 9, label: 'Chemical' }, // crosses the sentence's end: not this sentence's
    ];
    // The sentence is tokens 4..7 of the document; the dictionary has 3 groups.
    expect(spanMatches(spans, 4, 4, ['Chemical', 'Disease'], 3)).toEqual([{ start: 0, end: 1, type: 3 }]);
    expect(spanMatches(spans, 0, 4, ['Chemical', 'Disease'], 3)).toEqual([{ start: 1, end: 3, type: 4 }]);
    expect(weakFeatureTypes(['Chemical'])).toEqual(['weak label: Chemical']);
  });
});
