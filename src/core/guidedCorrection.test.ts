import { describe, expect, it } from 'vitest';
import {
  applyTravel,
  budgetCount,
  combineRanks,
  correctedLexicon,
  doubt,
  foldsOf,
  precisionOf,
  randomOrder,
  rankBy,
  spansOfIds,
  STOP,
  tokenErrors,
  travelEffect,
  travelRules,
  uncertaintySum,
  type PoolSentence,
} from './guidedCorrection';
import { lexiconMatcher, makeLexicon } from './lexicon';

const names = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'];
const ids = (s: string) => s.split(' ').map((t) => names.indexOf(t === 'O' ? 'O' : t));
const sent = (words: string, weak: string, gold: string): PoolSentence => ({ words: words.split(' '), weak: ids(weak), gold: ids(gold) });

describe('ranking and budgets', () => {
  it('counts token errors and the share of chosen sentences that have one', () => {
    const pool = [sent('a b', 'O O', 'O O'), sent('a b', 'B-PER O', 'O O'), sent('a b', 'B-PER I-PER', 'B-LOC I-LOC')];
    expect(pool.map(tokenErrors)).toEqual([0, 1, 2]);
    expect(precisionOf(pool, [0, 1])).toBe(0.5);
    expect(precisionOf(pool, [])).toBe(0);
  });

  it('buys at least one sentence, and round(n · fraction) otherwise', () => {
    expect(budgetCount(3000, 0.02)).toBe(60);
    expect(budgetCount(10, 0.01)).toBe(1);
  });

  it('deals folds evenly and the same for a seed', () => {
    const f = foldsOf(101, 2, 3);
    expect(f.filter((k) => k === 0).length).toBeGreaterThanOrEqual(50);
    expect(f.filter((k) => k === 1).length).toBeGreaterThanOrEqual(50);
    expect(foldsOf(101, 2, 3)).toEqual(f);
    expect(foldsOf(101, 2, 4)).not.toEqual(f);
  });

  it('doubts the weak tag by the probability the model leaves to the others', () => {
    // Two tokens, K = 2: the model gives the weak tag 0.9 and 0.2.
    const m = Float32Array.from([0.9, 0.1, 0.8, 0.2]);
    expect(doubt(m, [0, 1], 2)).toBeCloseTo(0.1 + 0.8, 6);
    expect(uncertaintySum(m, 2)).toBeCloseTo(0.1 + 0.2, 6);
  });

  it('ranks by score, highest first, breaking ties by seed and not by position', () => {
    expect(rankBy([1, 5, 3], 1)).toEqual([1, 2, 0]);
    const ties = Array.from({ length: 50 }, () => 0);
    expect(rankBy(ties, 1)).not.toEqual(ties.map((_, i) => i));
    expect(randomOrder(20, 2)).toEqual(randomOrder(20, 2));
    expect([...randomOrder(20, 2)].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('combines rankings by mean position', () => {
    expect(
      combineRanks([
        [0, 1, 2],
        [2, 1, 0],
        [1, 0, 2],
      ]),
    ).toEqual([1, 0, 2]);
  });
});

describe('corrections that travel', () => {
  it('reads spans from tag ids as conlleval does', () => {
    expect(spansOfIds(ids('B-PER I-PER O I-LOC B-LOC'), names)).toEqual([
      { start: 0, end: 2, type: 'PER' },
      { start: 3, end: 4, type: 'LOC' },
      { start: 4, end: 5, type: 'LOC' },
    ]);
  });

  it('learns a type from a missed or mistyped span and a stop from a span gold does not have', () => {
    const pool = [sent('John went to Paris', 'O O O B-PER', 'B-PER O O B-LOC'), sent('The Who played', 'B-PER I-PER O', 'O O O')];
    const rules = travelRules(pool, [0, 1], names);
    expect(Object.fromEntries(rules)).toEqual({ John: 'PER', Paris: 'LOC', 'The Who': STOP });
  });

  it('keeps the more frequent answer for a phrase given two', () => {
    const pool = [sent('Paris', 'O', 'B-LOC'), sent('Paris', 'O', 'B-LOC'), sent('Paris', 'O', 'B-PER')];
    expect(travelRules(pool, [2, 0, 1], names).get('Paris')).toBe('LOC');
  });

  it('relabels every other occurrence, lets overlapping spans give way, and leaves corrected sentences alone', () => {
    const pool = [
      sent('John went to Paris', 'O O O B-PER', 'B-PER O O B-LOC'),
      sent('Paris and John', 'B-PER O O', 'B-LOC O B-PER'),
      sent('New Paris Hotel', 'B-LOC I-LOC I-LOC', 'B-LOC I-LOC I-LOC'),
      sent('The Who and Paris', 'B-PER I-PER O O', 'O O O B-LOC'),
      sent('nothing here', 'O O', 'O O'),
    ];
    const rules = travelRules(pool, [0], names);
    const changed = applyTravel(pool, rules, new Set([0]), names);
    expect([...changed.keys()].sort()).toEqual([1, 2, 3]);
    expect(changed.get(1)).toEqual(ids('B-LOC O B-PER'));
    // A travelling rule is blunt: the hotel's name loses its span (what the editor's preview shows first).
    expect(changed.get(2)).toEqual(ids('O B-LOC O'));
    expect(changed.get(3)).toEqual(ids('B-PER I-PER O B-LOC'));
    const effect = travelEffect(pool, changed);
    expect(effect).toEqual({ sentences: 3, better: 2, worse: 1, fixed: 3, broken: 3 });
  });

  it('removes stop-listed spans of exactly those words', () => {
    const pool = [sent('The Who played', 'B-PER I-PER O', 'O O O'), sent('The Who sang Who', 'B-PER I-PER O B-PER', 'O O O B-PER')];
    const changed = applyTravel(pool, travelRules(pool, [0], names), new Set([0]), names);
    expect(changed.get(1)).toEqual(ids('O O O B-PER'));
  });

  it('carries the corrections into the dictionary: a missed phrase is matched, a wrong one no longer, the feature groups unchanged', () => {
    const pool = [sent('The Who met Ann Lee in Oslo', 'B-PER I-PER O O O O O', 'O O O B-PER I-PER O B-LOC')];
    const rules = travelRules(pool, [0], names);
    const lex = makeLexicon([{ mode: 'insensitive', entries: [{ words: ['The', 'Who'], type: 'PER' }] }]);
    const { lexicon, added, stopped, skipped } = correctedLexicon(lex, rules);
    // LOC is no feature group of this dictionary: Oslo is left out rather than given a new one.
    expect({ added, stopped, skipped }).toEqual({ added: 1, stopped: 1, skipped: 1 });
    expect(lexicon.types).toEqual(['PER']);
    expect(lexiconMatcher(lexicon)('Then The Who and Ann Lee'.split(' '))).toEqual([{ start: 4, end: 6, type: 0 }]);
    expect(lexiconMatcher(lex)('Then The Who and Ann Lee'.split(' '))).toEqual([{ start: 1, end: 3, type: 0 }]);
  });
});
