import { describe, expect, it } from 'vitest';
import { METHOD_CATALOG } from './catalog';

describe('the method catalog', () => {
  it('says for every method, in one line, when to use it', () => {
    for (const m of METHOD_CATALOG) {
      expect(m.when.length, m.id).toBeGreaterThan(30);
      expect(m.when.length, m.id).toBeLessThan(200);
      expect(m.when, m.id).not.toContain('\n');
    }
    expect(new Set(METHOD_CATALOG.map((m) => m.when)).size).toBe(METHOD_CATALOG.length);
  });
});
