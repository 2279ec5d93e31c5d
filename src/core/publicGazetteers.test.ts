import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PUBLIC_GAZETTEERS, type PublicGazetteerInfo, publicGazetteerPath, publicPhrases, suggestedType } from './publicGazetteers';

const file = (path: string) => readFileSync(new URL(`../../public/${path}`, import.meta.url), 'utf8');

describe('the public gazetteer library', () => {
  it('ships every list it names, with its source and as many entries as its index says', () => {
    const { lists } = JSON.parse(file('gazetteers/index.json')) as { lists: PublicGazetteerInfo[] };
    expect(lists.map((l) => l.id)).toEqual([...PUBLIC_GAZETTEERS]);
    for (const l of lists) {
      expect(l.source, l.id).toMatch(/\((MIT|CC0 1\.0|CC BY[^)]*)\)/);
      const phrases = publicPhrases(file(publicGazetteerPath(l.id)));
      expect(phrases.length, l.id).toBe(l.entries);
      expect(new Set(phrases.map((p) => p.join(' '))).size, l.id).toBe(l.entries);
    }
    // Tokenized as the studio tokenizes: punctuation apart.
    expect(file('gazetteers/cities.txt')).toContain('\nWashington , D.C.\n');
  });

  it("maps a list onto the project's type of its kind, by name", () => {
    expect(suggestedType('location', ['PER', 'LOC', 'ORG'])).toBe('LOC');
    expect(suggestedType('location', ['person', 'geo-loc', 'company'])).toBe('geo-loc');
    expect(suggestedType('person', ['person', 'geo-loc'])).toBe('person');
    expect(suggestedType('person', ['Chemical', 'Disease'])).toBeNull();
  });
});
