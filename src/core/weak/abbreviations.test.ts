import { describe, expect, it } from 'vitest';
import type { Annotation, Span } from '../types';
import { abbreviationSpans, isShortForm, longFormStart, parseFollowing, withAbbreviations } from './abbreviations';
import { WeakLabeler } from './pipeline';

const doc = (text: string) => ({ tokens: text.split(' ') });
const ann = (spans: Span[]): Annotation => ({ spans, oMode: 'complete' });
const words = (d: { tokens: readonly string[] }, spans: readonly Span[]) => spans.map((s) => `${d.tokens.slice(s.start, s.end).join(' ')}/${s.label}`);

describe('short forms', () => {
  it('are 2-10 letters, digits or hyphens with two capitals', () => {
    expect(['CAA', '5-FU', 'NMBAs', 'PGE1', 'L-NAME'].map(isShortForm)).toEqual([true, true, true, true, true]);
    expect(['A', 'Ach', 'mg', '12', 'ABCDEFGHIJK', '(', 'C.A.'].map(isShortForm)).toEqual([false, false, false, false, false, false, false]);
  });
});

describe('the long form (Schwartz & Hearst)', () => {
  it('reads the short form in order, its first letter at the start of a word', () => {
    expect(longFormStart('CAA', 'chloroacetaldehyde')).toBe(0);
    expect(longFormStart('PAN', 'puromycin aminonucleoside')).toBe(0);
    expect(longFormStart('PAN', 'aminonucleoside')).toBe(-1);
    expect(longFormStart('5-FU', '5-fluorouracil')).toBe(0);
    // "h" inside a word cannot be the first letter: "HT" is not "the hypertension".
    expect(longFormStart('HT', 'xhypertension')).toBe(-1);
    expect(longFormStart('HT', 'the hypertension')).toBe(4);
  });
});

describe('abbreviationSpans', () => {
  it('labels the definition and its later occurrences in the document, nothing before it', () => {
    const d = doc('CAA , chloroacetaldehyde ( CAA ) , is toxic ; CAA binds');
    const long = [{ start: 2, end: 3, label: 'Chemical' }];
    expect(words(d, abbreviationSpans([d], [long], { following: 0 })[0])).toEqual(['CAA/Chemical', 'CAA/Chemical']);
  });

  it('reads a long form the dictionary matched only in part, within the words before it', () => {
    const d = doc('puromycin aminonucleoside ( PAN ) nephrosis');
    expect(abbreviationSpans([d], [[{ start: 1, end: 2, label: 'Chemical' }]], { following: 0 })[0]).toEqual([{ start: 3, end: 4, label: 'Chemical' }]);
  });

  it('needs a typed span right before the parenthesis whose words spell the short form', () => {
    const d = doc('given lithium ( CAA ) daily');
    expect(abbreviationSpans([d], [[{ start: 1, end: 2, label: 'Chemical' }]], { following: 0 })[0]).toEqual([]);
    const e = doc('chloroacetaldehyde , ( CAA )');
    expect(abbreviationSpans([e], [[{ start: 0, end: 1, label: 'Chemical' }]], { following: 0 })[0]).toEqual([]);
    const f = doc('chloroacetaldehyde ( CAA )');
    expect(abbreviationSpans([f], [[{ start: 0, end: 1, label: '?' }]], { following: 0 })[0]).toEqual([]);
  });

  it('holds in `following` documents, and reads a long form ending the document before', () => {
    const docs = ['In rats given chloroacetaldehyde', '( CAA ) is toxic .', 'CAA binds .', 'CAA again .'].map(doc);
    const long = [[{ start: 3, end: 4, label: 'Chemical' }], [], [], []];
    expect(abbreviationSpans(docs, long, { following: 0 }).map((s) => s.length)).toEqual([0, 0, 0, 0]);
    expect(abbreviationSpans(docs, long, { following: 1 }).map((s) => s.length)).toEqual([0, 1, 1, 0]);
    expect(abbreviationSpans(docs, long, { following: 2 }).map((s) => s.length)).toEqual([0, 1, 1, 1]);
  });

  it('takes the nearest definition before an occurrence', () => {
    const docs = ['Parkinson disease ( PD ) and PD', 'peritoneal dialysis ( PD ) and PD'].map(doc);
    const long = [[{ start: 0, end: 2, label: 'Disease' }], [{ start: 0, end: 2, label: 'Procedure' }]];
    const out = abbreviationSpans(docs, long, { following: 5 });
    expect(out[0].map((s) => s.label)).toEqual(['Disease', 'Disease']);
    expect(out[1].map((s) => s.label)).toEqual(['Procedure', 'Procedure']);
  });
});

describe('withAbbreviations', () => {
  it('adds spans only where the weak labels say O', () => {
    const d = doc('chloroacetaldehyde ( CAA ) and CAA - DNA');
    const weak = ann([
      { start: 0, end: 1, label: 'Chemical' },
      { start: 5, end: 8, label: 'Other' },
    ]);
    const r = withAbbreviations([d], [weak], { following: 0 });
    expect(r.added).toBe(1);
    expect(words(d, r.annotations[0].spans)).toEqual(['chloroacetaldehyde/Chemical', 'CAA/Chemical', 'CAA - DNA/Other']);
  });

  it('runs in the weak-labeling pipeline after the label model, and is off unless asked', () => {
    const text = 'clonidine ( CLD ) lowered pressure ; CLD is safe';
    const tokens = text.split(' ');
    const offsets: number[] = [];
    let at = 0;
    for (const t of tokens) {
      const s = text.indexOf(t, at);
      offsets.push(s, s + t.length);
      at = s + t.length;
    }
    const labeler = new WeakLabeler([{ text, offsets, tokens, sentenceStarts: [0] }]);
    const req = {
      gazetteers: [{ name: 'g', mode: 'insensitive' as const, priority: 0, entries: [{ phrase: 'clonidine', type: 'Chemical' }] }],
      rules: [],
      types: ['Chemical'],
      method: 'hmm' as const,
    };
    expect(labeler.run(req).aggregate[0].spans).toHaveLength(1);
    const on = labeler.run({ ...req, abbreviations: { following: 0 } });
    expect(on.abbreviated).toBe(2);
    expect(on.aggregate[0].spans.map((s) => tokens.slice(s.start, s.end).join(' '))).toEqual(['clonidine', 'CLD', 'CLD']);
  });
});

describe('the window as typed', () => {
  it('is a whole number from 0 to the bound, or says what is wrong', () => {
    expect(parseFollowing('40')).toEqual({ following: 40 });
    expect(parseFollowing(' 0 ')).toEqual({ following: 0 });
    for (const bad of ['', 'forty', '-1', '2.5', '1001', '1e3']) expect(parseFollowing(bad)).toEqual({ error: `a whole number from 0 to 1000, not "${bad}"` });
  });
});
