import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { trimGlove } from './embeddings';
import { readGloveAsset, readSpellingModel } from './gloveNode';
import { parseStarter, STARTER_PATH, starterGroups, starterPredictions, starterTypes } from './starter';

const raw = () => JSON.parse(readFileSync(new URL(`../../public/${STARTER_PATH}`, import.meta.url), 'utf8')) as unknown;

describe('the starter model asset', () => {
  it('is a checked asset with its provenance, CoNLL-2003 types and groups of their own', () => {
    const a = parseStarter(raw());
    expect(a.provenance.trainedOn).toMatch(/CoNLL-2003/);
    expect(a.provenance.licence).toBeTruthy();
    expect(starterTypes(a)).toEqual(['LOC', 'MISC', 'ORG', 'PER']);
    expect(starterGroups(starterTypes(a))).toContain('starter model: PER');
  });

  it('refuses a file that is not one, or a weight cut short, naming it', () => {
    expect(() => parseStarter({ format: 'x' }, 'f.json')).toThrow('f.json: not a starter model (format x');
    const a = parseStarter(raw()) as unknown as { weights: Record<string, { base64: string }> };
    a.weights['crf/start'].base64 = a.weights['crf/start'].base64.slice(8);
    expect(() => parseStarter(a, 'f.json')).toThrow(/f\.json: weight crf\/start has \d+ bytes for shape \[9\] \(36 expected\)/);
  });

  it('finds people, places and organizations in text it never saw', async () => {
    const a = parseStarter(raw());
    const sentences = [
      'Angela Merkel met Emmanuel Macron in Berlin on Tuesday .'.split(' '),
      'Shares of Microsoft rose 3 percent in New York .'.split(' '),
    ].map((words) => ({ words }));
    const glove = trimGlove(
      readGloveAsset(),
      sentences.flatMap((s) => s.words),
      readSpellingModel(),
    );
    const spans = await starterPredictions(a, glove, sentences);
    const named = spans.map((ss, i) => ss.map((s) => `${sentences[i].words.slice(s.start, s.end).join(' ')}/${s.label}`));
    expect(named[0]).toEqual(['Angela Merkel/PER', 'Emmanuel Macron/PER', 'Berlin/LOC']);
    expect(named[1]).toEqual(['Microsoft/ORG', 'New York/LOC']);
  }, 60_000);
});
