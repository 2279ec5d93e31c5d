import { describe, expect, it } from 'vitest';
import {
  applyTravel,
  budgetCount,
  combineRanks,
  correctedLexicon,
  doubt,
  doubtedPhrases,
  foldsOf,
  phraseCounts,
  precisionOf,
  queueOrder,
  randomOrder,
  rankBy,
  rankByCover,
  reachItems,
  reachScore,
  spansOfIds,
  STOP,
  tokenErrors,
  travelEffect,
  travelOracle,
  travelOracleItems,
  travelRules,
  uncertaintyMax,
  uncertaintySum,
  type PoolSentence,
} from './guidedCorrection';
import { lexiconMatcher, makeLexicon } from './lexicon';
import { mulberry32 } from './random';
import { rankSentences, reachSignal, uncertaintyOf, uncertaintySignal, uncertaintySumSignal } from './reviewSignals';

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
    expect(uncertaintyMax(m, 2)).toBeCloseTo(0.2, 6);
  });

  it("ranks by the least sure token as the studio's uncertainty does, and by the sum as its uncertainty-sum does", () => {
    // Sentences of 1 to 12 tokens, K = 3, each token's marginals drawn at random.
    const rand = mulberry32(7);
    const K = 3;
    const margs = Array.from({ length: 40 }, (_, i) => {
      const m = new Float32Array((1 + (i % 12)) * K);
      for (let t = 0; t < m.length / K; t++) {
        const raw = [rand() ** 3, rand(), rand()];
        const z = raw.reduce((a, b) => a + b, 0);
        raw.forEach((x, k) => (m[t * K + k] = x / z));
      }
      return m;
    });
    const docs = margs.map((m, i) => {
      const n = m.length / K;
      return {
        docId: i + 1,
        name: `d${i}`,
        words: Array.from({ length: n }, (_, t) => `w${t}`),
        sentences: [[0, n] as const],
        weak: [],
        signals: { uncertainty: uncertaintyOf(m, K) },
      };
    });
    const queue = rankSentences(docs, uncertaintySignal).map((e) => e.docId - 1);
    expect(
      rankBy(
        margs.map((m) => uncertaintyMax(m, K)),
        1,
      ),
    ).toEqual(queue);
    const bySum = rankBy(
      margs.map((m) => uncertaintySum(m, K)),
      1,
    );
    expect(bySum).not.toEqual(queue);
    expect(bySum).toEqual(rankSentences(docs, uncertaintySumSignal).map((e) => e.docId - 1));
  });

  it("puts the pool in the studio queue's order, the sentences it leaves out after", () => {
    // Marginals over O, B-PER, I-PER, B-LOC, I-LOC, one row per token.
    const row = (p: number[]) => p;
    const pool = [sent('Ann met Bo', 'B-PER O O', 'B-PER O B-PER'), sent('Bo ran', 'O O', 'B-PER O'), sent('it rained', 'O O', 'O O')];
    const marg = [
      Float32Array.from([...row([0.05, 0.9, 0.02, 0.02, 0.01]), ...row([0.99, 0, 0, 0, 0.01]), ...row([0.3, 0.6, 0.05, 0.05, 0])]),
      Float32Array.from([...row([0.4, 0.5, 0.05, 0.05, 0]), ...row([1, 0, 0, 0, 0])]),
      Float32Array.from([...row([1, 0, 0, 0, 0]), ...row([1, 0, 0, 0, 0])]),
    ];
    const paths = [ids('B-PER O B-PER'), ids('B-PER O'), ids('O O')];
    const order = queueOrder(pool, marg, paths, names, reachSignal, 1);
    // "Bo", predicted where the weak labels have nothing, in two sentences: the first that holds it
    // settles it; then the rest by their least sure token; "it rained", flagged by neither, last.
    expect(order).toHaveLength(3);
    expect(order[2]).toBe(2);
    const docs = pool.map((p, i) => ({
      docId: i,
      name: '',
      words: p.words,
      sentences: [[0, p.words.length] as const],
      weak: spansOfIds(p.weak, names).map((x) => ({ start: x.start, end: x.end, label: x.type })),
      predicted: spansOfIds(paths[i], names).map((x) => ({ start: x.start, end: x.end, label: x.type })),
      signals: { uncertainty: uncertaintyOf(marg[i], names.length) },
    }));
    expect(order.slice(0, 2)).toEqual(rankSentences(docs, reachSignal).map((e) => e.docId));
    expect(rankSentences(docs, reachSignal)[0].reasons[0]).toMatch(/^Bo \(2 occurrences; weak O, run PER/);
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

describe('reach: what a correction fixes once it travels', () => {
  /** Marginals [T·K] putting p on each token's tag of `row` and the rest spread evenly. */
  const marg = (row: string, p: number[]) => {
    const t = ids(row);
    const out = new Float32Array(t.length * names.length);
    t.forEach((k, i) => {
      for (let j = 0; j < names.length; j++) out[i * names.length + j] = j === k ? p[i] : (1 - p[i]) / (names.length - 1);
    });
    return out;
  };

  it('counts a phrase where its words occur in sequence, and nowhere else', () => {
    const counts = phraseCounts(
      [
        ['New', 'York', 'and', 'York'],
        ['York', 'New', 'York'],
      ],
      ['New York', 'York', 'Paris'],
    );
    expect(Object.fromEntries(counts)).toEqual({ 'New York': 2, York: 4, Paris: 0 });
  });

  it("doubts the weak spans and the model's own spans by the least likely weak tag among their tokens", () => {
    // The weak labels call "Paris Hilton" a place; the model, fairly sure, a person, and it finds "John" the weak labels missed.
    const words = ['John', 'met', 'Paris', 'Hilton'];
    const weak = ids('O O B-LOC I-LOC');
    const m = marg('B-PER O B-PER I-PER', [0.8, 1, 0.7, 0.9]);
    const d = doubtedPhrases(words, weak, m, names);
    expect([...d.keys()].sort()).toEqual(['John', 'Paris Hilton']);
    expect(d.get('Paris Hilton')).toBeCloseTo(1 - 0.1 / 4, 5);
    expect(d.get('John')).toBeCloseTo(1 - 0.2 / 4, 5);
  });

  it('ranks a doubted phrase that recurs above one that does not, and leaves the undoubted to uncertainty', () => {
    const counts = new Map([
      ['CAA', 9],
      ['cocaine', 200],
      ['rare', 1],
    ]);
    const recurring = reachScore(new Map([['CAA', 0.6]]), counts, 0.6);
    const once = reachScore(new Map([['rare', 0.9]]), counts, 0.9);
    const sure = reachScore(new Map([['cocaine', 0.05]]), counts, 0.05);
    expect(recurring).toBeCloseTo(5.4 + 6e-4, 6);
    expect(once).toBeGreaterThan(sure);
    expect(sure).toBeCloseTo(5e-5, 8);
  });

  it("ranks by gold the errors a sentence's correction fixes, its own and where it travels, less what it breaks", () => {
    const pool = [
      sent('John went home', 'O O O', 'B-PER O O'),
      sent('John and John', 'O O O', 'B-PER O B-PER'),
      sent('John again', 'O O', 'B-PER O'),
      sent('Paris Hilton', 'B-LOC I-LOC', 'B-PER I-PER'),
      sent('Paris', 'B-LOC', 'B-LOC'),
    ];
    // Each John sentence fixes all four Johns; "Paris Hilton" fixes its own two and leaves the lone Paris, which its rule (the whole phrase) does not reach.
    expect(travelOracle(pool, names)).toEqual([4, 4, 4, 2, 0]);
  });
});

describe('reach as a set: each phrase counted once', () => {
  it('takes the sentence worth most given those above it, so one frequent name does not fill the top', () => {
    const items = [
      { own: 0.1, phrases: new Map([['U.S.', 10]]) },
      { own: 0.2, phrases: new Map([['U.S.', 10]]) },
      { own: 0, phrases: new Map([['Bonn', 6]]) },
      { own: 0.3, phrases: new Map<string, number>() },
    ];
    // Alone: 10.1, 10.2, 6, 0.3. Once the second takes U.S., the first is worth 0.1.
    expect(rankByCover(items, 1)).toEqual([1, 2, 3, 0]);
    expect(rankByCover(items, 2)).toEqual([1, 2, 3, 0]);
    const ties = [
      { own: 1, phrases: new Map() },
      { own: 1, phrases: new Map() },
      { own: 1, phrases: new Map() },
    ];
    expect(new Set([1, 2, 3, 4, 5].map((seed) => rankByCover(ties, seed).join()))).not.toEqual(new Set(['0,1,2']));
  });

  it("values reach's phrases by doubt times occurrences, the undoubted not at all", () => {
    const items = reachItems(
      [
        new Map([
          ['CAA', 0.6],
          ['zinc', 0.1],
        ]),
      ],
      new Map([
        ['CAA', 9],
        ['zinc', 40],
      ]),
      [2],
    );
    expect(items[0].own).toBeCloseTo(0.002, 6);
    expect([...items[0].phrases]).toEqual([['CAA', expect.closeTo(5.4, 6)]]);
  });

  it("gives the oracle each rule's net fixes in the other sentences, and the sentence's own errors apart", () => {
    const pool = [
      sent('John went home', 'O O O', 'B-PER O O'),
      sent('John and John', 'O O O', 'B-PER O B-PER'),
      sent('John again', 'O O', 'B-PER O'),
      sent('Paris Hilton', 'B-LOC I-LOC', 'B-PER I-PER'),
    ];
    const items = travelOracleItems(pool, names);
    expect(items.map((x) => x.own)).toEqual([1, 2, 1, 2]);
    expect(items.map((x) => Object.fromEntries(x.phrases))).toEqual([{ John: 3 }, { John: 2 }, { John: 3 }, { 'Paris Hilton': 0 }]);
    // As a set: one John sentence (each worth 4), then the rest by their own errors, John's travel taken.
    const order = rankByCover(items, 1);
    expect([0, 1, 2]).toContain(order[0]);
    const left = order.slice(1).map((i) => items[i].own);
    expect(left).toEqual([...left].sort((a, b) => b - a));
  });
});
