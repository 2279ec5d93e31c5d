/**
 * The public gazetteer library: lists built from well-kept npm packages by
 * scripts/build-public-gazetteers.ts into public/gazetteers/ (one phrase a line, as the studio
 * tokenizes; provenance and licence in its index.json). A project adds one with one click, mapped
 * onto one of its types; an experiment setting names them in `publicGazetteers`. Each list keeps a
 * dictionary-feature group of its own, so that a model learns what a match of it is worth apart
 * from the project's own dictionaries.
 */
import type { LexiconSource } from './lexicon';

export const PUBLIC_GAZETTEERS = ['cities', 'countries', 'person-name-parts', 'brands'] as const;
export type PublicGazetteerId = (typeof PUBLIC_GAZETTEERS)[number];

/** What index.json says of a list. */
export interface PublicGazetteerInfo {
  id: PublicGazetteerId;
  title: string;
  /** What its entries are, for the type a project maps it onto. */
  role: 'location' | 'person' | 'organization';
  source: string;
  note: string;
  entries: number;
}

/** Each list's kind (index.json's role; a test holds the two together), for what needs no fetch. */
export const PUBLIC_ROLES: Record<PublicGazetteerId, PublicGazetteerInfo['role']> = {
  cities: 'location',
  countries: 'location',
  'person-name-parts': 'person',
  brands: 'organization',
};

/** Whether some list of the library maps onto one of these types (model.publicLibrary reads none otherwise). */
export const publicLibraryApplies = (types: readonly string[]): boolean => PUBLIC_GAZETTEERS.some((id) => suggestedType(PUBLIC_ROLES[id], types) !== null);

/** The feature group of a public list mapped onto a type: its own, beside the type's group from the project's dictionaries. */
export const publicGroup = (type: string, id: string): string => `${type} · public ${id}`;

/** Where a public list lies, relative to the app's root (the files in public/ are served there). */
export const publicGazetteerPath = (id: PublicGazetteerId): string => `gazetteers/${id}.txt`;

/** A list's text as phrases of words (one phrase a line, tokens between spaces). */
export function publicPhrases(text: string): string[][] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => l.split(' '));
}

/** The project type a list's role maps onto by default, by the type's name (LOC, geo-loc, location, GPE; PER, person; ORG, company), or null. */
export function suggestedType(role: PublicGazetteerInfo['role'], types: readonly string[]): string | null {
  const by: Record<PublicGazetteerInfo['role'], RegExp> = {
    location: /^(loc|location|geo-?loc|gpe|place)$/i,
    person: /^(per|person|people)$/i,
    organization: /^(org|organi[sz]ation|company)$/i,
  };
  return types.find((t) => by[role].test(t)) ?? null;
}

/** The library's index (public/gazetteers/index.json). */
export const PUBLIC_INDEX_PATH = 'gazetteers/index.json';

/**
 * The whole library as dictionary features of a run (model.publicLibrary), as the suite measured
 * it (bench/configs/public-gazetteers-brands.json): every list whose kind maps onto one of the
 * project's types by name (suggestedType), matched case-sensitively, each in a feature group of
 * its own. A list the project has added already is read as the project has it, not twice; a
 * project with no type of a list's kind (chemicals and diseases) reads none of them.
 */
export async function publicLibrarySources(
  types: readonly string[],
  have: ReadonlySet<string>,
  read: (path: string) => Promise<string>,
): Promise<{ sources: LexiconSource[]; added: { id: string; type: string }[] }> {
  const { lists } = JSON.parse(await read(PUBLIC_INDEX_PATH)) as { lists: PublicGazetteerInfo[] };
  const added: { id: string; type: string }[] = [];
  const sources: LexiconSource[] = [];
  for (const l of lists) {
    const type = suggestedType(l.role, types);
    if (!type || have.has(l.id)) continue;
    const group = publicGroup(type, l.id);
    const entries = publicPhrases(await read(publicGazetteerPath(l.id))).map((words) => ({ words, type: group }));
    sources.push({ mode: 'sensitive', entries });
    added.push({ id: l.id, type });
  }
  return { sources, added };
}
