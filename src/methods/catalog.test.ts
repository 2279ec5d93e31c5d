import { describe, expect, it } from 'vitest';
import { METHOD_CATALOG, trainsTokenTagger } from './catalog';
import './pipelines';
import { getPipeline } from './registry';

describe('the method catalog', () => {
  it('says for every method, in one line, when to use it', () => {
    for (const m of METHOD_CATALOG) {
      expect(m.when.length, m.id).toBeGreaterThan(30);
      expect(m.when.length, m.id).toBeLessThan(200);
      expect(m.when, m.id).not.toContain('\n');
    }
    expect(new Set(METHOD_CATALOG.map((m) => m.when)).size).toBe(METHOD_CATALOG.length);
  });

  it('says which methods train no token tagger, as their modules do (the page loads no module to ask)', () => {
    for (const m of METHOD_CATALOG) {
      const kind = m.pipeline?.kind ?? 'single';
      expect(trainsTokenTagger({ pipeline: { kind } }), m.id).toBe(!getPipeline(kind).spanModel);
    }
  });
});
