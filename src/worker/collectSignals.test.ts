import { describe, expect, it } from 'vitest';
import type { LabeledSentence } from '../model/data';
import { collectSignals } from './trainJob';

const sentence = (doc: number, offset: number, n: number): LabeledSentence => ({ words: Array(n).fill('w'), tags: Array(n).fill(0), doc, offset });

describe('a run’s per-token records, stored per document', () => {
  it("places each method's records, by the kind its module declares, at their sentence's offset in its document", () => {
    // Document 0: two sentences of 2 and 3 tokens; document 1: one of 2.
    const train = [sentence(0, 0, 2), sentence(0, 2, 3), sentence(1, 0, 2)];
    const out = collectSignals(
      [5, 2],
      train,
      null,
      train,
      {
        rosterRemoved: [Uint8Array.of(0, 0), Uint8Array.of(0, 1, 0), null],
        oValue: [Float32Array.of(0.5, 0.25), Float32Array.of(1, 2, 3), Float32Array.of(-1, -2)],
        oValueEpochs: [[Float32Array.of(9, 8)], [Float32Array.of(7, 6, 5)], [Float32Array.of(4, 3)]],
        puRemoved: [Uint8Array.of(1, 0), Uint8Array.of(0, 0, 0), Uint8Array.of(0, 0)],
        completion: [null, { 1: 2 }, null],
      },
      ['O', 'B-PER', 'I-PER'],
    );
    expect([...out[0]!.rosterRemoved!]).toEqual([0, 0, 0, 1, 0]);
    expect(out[1]!.rosterRemoved).toBeUndefined(); // a document with no flag stores none
    expect([...out[0]!.oValue!]).toEqual([0.5, 0.25, 1, 2, 3]);
    expect([...out[0]!.oValueEpochs![0]]).toEqual([9, 8, 7, 6, 5]);
    expect([...out[0]!.puRemoved!]).toEqual([1, 0, 0, 0, 0]);
    expect(out[1]!.puRemoved).toBeUndefined();
    expect(out[0]!.completion).toEqual({ 3: 'I-PER' });
  });
});
