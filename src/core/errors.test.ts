import { describe, expect, it } from 'vitest';
import { InputError, trainingFailure } from './errors';

describe('errors', () => {
  it('says where an input error is', () => {
    expect(new InputError({ file: 'a.tsv', line: 3 }, 'no type').message).toBe('a.tsv, line 3: no type');
  });

  it('explains the WASM heap aborts and passes other failures through', () => {
    for (const m of ['Aborted(). Build with -sASSERTIONS for more info.', 'memory access out of bounds', 'Aborted(OOM)']) {
      const said = trainingFailure(new Error(m));
      expect(said).toContain(m);
      expect(said).toMatch(/most likely out of memory: fewer hidden units/);
    }
    expect(trainingFailure(new Error('layer 3 does not exist'))).toBe('layer 3 does not exist');
    expect(trainingFailure('plain string')).toBe('plain string');
  });
});
