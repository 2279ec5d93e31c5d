import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PUBLIC_GAZETTEERS,
  PUBLIC_ROLES,
  type PublicGazetteerInfo,
  publicGazetteerPath,
  publicLibraryApplies,
  publicLibrarySources,
  publicPhrases,
  suggestedType,
} from './publicGazetteers';

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
    // Each list's kind, known without a fetch, is its index's.
    const { lists } = JSON.parse(file('gazetteers/index.json')) as { lists: PublicGazetteerInfo[] };
    expect(Object.fromEntries(lists.map((l) => [l.id, l.role]))).toEqual(PUBLIC_ROLES);
    expect(publicLibraryApplies(['person', 'geo-loc', 'movie'])).toBe(true);
    expect(publicLibraryApplies(['Chemical', 'Disease'])).toBe(false);
  });

  it("reads the whole library as a run's dictionary features: the lists of the project's kinds of type, each its own group, none twice", async () => {
    const read = async (path: string) => file(path);
    const tweets = await publicLibrarySources(['company', 'geo-loc', 'movie', 'person'], new Set(), read);
    expect(tweets.added).toEqual([
      { id: 'cities', type: 'geo-loc' },
      { id: 'countries', type: 'geo-loc' },
      { id: 'person-name-parts', type: 'person' },
      { id: 'brands', type: 'company' },
    ]);
    expect(tweets.sources.map((s) => [s.mode, s.entries.length, s.entries[0].type])).toEqual([
      ['sensitive', 23083, 'geo-loc · public cities'],
      ['sensitive', 384, 'geo-loc · public countries'],
      ['sensitive', expect.any(Number), 'person · public person-name-parts'],
      ['sensitive', expect.any(Number), 'company · public brands'],
    ]);
    expect(tweets.sources[3].entries.some((e) => e.words.join(' ') === 'Coca-Cola')).toBe(true);
    // A list the project added itself is read as it has it; chemicals and diseases read none.
    expect((await publicLibrarySources(['PER', 'LOC', 'ORG', 'MISC'], new Set(['brands']), read)).added.map((a) => a.id)).toEqual([
      'cities',
      'countries',
      'person-name-parts',
    ]);
    expect(await publicLibrarySources(['Chemical', 'Disease'], new Set(), read)).toEqual({ sources: [], added: [] });
  });
});
