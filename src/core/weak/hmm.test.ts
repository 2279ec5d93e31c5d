import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../random';
import { fitHmm, hmmLabel } from './hmm';

/** 400 documents of two sentences from three sources, seeded; many sentences repeat (no source fires, or the same matches). */
function input() {
  const rand = mulberry32(7);
  const docs = 400;
  const spans = (p: number, labels: string[]) =>
    Array.from({ length: docs }, (_, d) => {
      if (d % 3 === 0) return []; // a third of the documents: no match at all
      const out: { start: number; end: number; label: string }[] = [];
      for (let t = 0; t < 12; t += 3)
        if (rand() < p) out.push({ start: t, end: t + 1 + Math.floor(rand() * 2), label: labels[Math.floor(rand() * labels.length)] });
      return out;
    });
  return {
    sources: [
      { name: 'a', priority: 0, spans: spans(0.3, ['X']) },
      { name: 'b', priority: 1, spans: spans(0.2, ['X', 'Y']) },
      { name: 'c', priority: 2, spans: spans(0.1, ['?']) },
    ],
    sentences: Array.from(
      { length: docs },
      () =>
        [
          [0, 6],
          [6, 12],
        ] as [number, number][],
    ),
    types: ['X', 'Y'],
  };
}

describe('HMM aggregation', () => {
  it('fits and decodes each distinct observation sequence once, with the result of fitting every sentence', () => {
    const r = fitHmm(input());
    const tags = r.flatMap((x) => x.tags).join(' ');
    const conf = r.flatMap((x) => x.confidence).reduce((a, c) => a + c, 0);
    // Reference values from the implementation before sentences were grouped (every sentence fitted on its own).
    expect(tags.length).toBe(REFERENCE.tagsLength);
    expect(hash(tags)).toBe(REFERENCE.tagsHash);
    expect(conf).toBeCloseTo(REFERENCE.confidenceSum, 6);
  });
});

describe('an HMM fitted on one text decodes another', () => {
  it('decodes with the given parameters and fits nothing: its own parameters reproduce its labels; other parameters give other labels', () => {
    const train = input();
    const { results, params } = hmmLabel(train);
    expect(hmmLabel(train, {}, params).results).toEqual(results);
    // Parameters that trust source "a" less than the fitted ones change what is decoded.
    const other = { ...params, E: params.E.map((x, i) => (i < params.E.length / 3 ? 1 / 7 : x)) };
    expect(hmmLabel(train, {}, other).results.flatMap((r) => r.tags)).not.toEqual(results.flatMap((r) => r.tags));
    expect(() => hmmLabel({ ...train, sources: train.sources.slice(1) }, {}, params)).toThrow('the fitted HMM is for types X, Y and sources a, b, c');
  });
});

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const REFERENCE = { tagsLength: 11519, tagsHash: 3546069191, confidenceSum: 4597.940187077484 };

describe('how EM ended', () => {
  it('says how many iterations EM ran and whether it settled before the cap; parameters given to decode keep what their fit said', () => {
    const train = input();
    const settled = hmmLabel(train, { iterations: 200 }).params.fit!;
    expect(settled.converged).toBe(true);
    expect(settled.iterations).toBeLessThan(200);
    expect(settled.cap).toBe(200);
    // One iteration short of where it settles: stopped by the cap, not converged.
    const short = hmmLabel(train, { iterations: settled.iterations - 1 }).params;
    expect(short.fit).toEqual({ iterations: settled.iterations - 1, cap: settled.iterations - 1, converged: false });
    expect(hmmLabel(train, {}, short).params.fit).toEqual(short.fit);
    // The default cap and what it says of this input.
    expect(hmmLabel(train).params.fit!.cap).toBe(15);
  });
});
