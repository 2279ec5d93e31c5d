import { describe, expect, it } from 'vitest';
import { emSentence } from './hmmFit';

describe('how EM ended, said on the Weak labels page', () => {
  it('says whether EM settled, and where it stopped at its cap', () => {
    expect(emSentence({ iterations: 9, cap: 15, converged: true })).toBe(' EM settled in 9 iterations.');
    expect(emSentence({ iterations: 15, cap: 15, converged: false })).toMatch(
      /^ EM stopped at its cap of 15 iterations before it settled: these weak labels can still move/,
    );
    expect(emSentence(undefined)).toBe('');
  });
});
