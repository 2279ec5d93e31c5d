import { StudioDB } from './schema';

/** The page's (or the worker's) one connection to the studio database. */
export const db = new StudioDB();
