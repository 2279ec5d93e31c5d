/**
 * Where tests find data: the committed fixtures (small slices of the reference data, always
 * there) and the data folder (the whole files, for `npm run test:data` only).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dataFolder } from '../cli/dataFolder';

/** The committed slices, laid out as the data folder is. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/data/', import.meta.url));

/** The data folder for the tests that need whole files; an error naming the setting when it is missing. */
export function fullData(): string {
  const dir = dataFolder();
  if (!existsSync(dir)) throw new Error(`the data folder ${dir} does not exist: set NER_STUDIO_DATA to the folder that holds conll03-distant/ and bc5cdr/`);
  return dir;
}
