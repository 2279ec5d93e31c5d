/**
 * The data folder: where experiment configs' `$data/...` paths and the benchmarks' data live.
 * `--data DIR` on the command line, else NER_STUDIO_DATA, else `../shared/data` beside the
 * project's root. Paths in a config resolve against the config file's own folder.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJson } from './readCorpus';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DATA_PREFIX = '$data/';
/** The data folder when neither --data nor NER_STUDIO_DATA is given, relative to the project's parent. */
export const DEFAULT_DATA_FOLDER = 'shared/data';

export function dataFolder(flag?: string): string {
  const given = flag ?? process.env.NER_STUDIO_DATA;
  return given ? resolve(given) : resolve(ROOT, '..', DEFAULT_DATA_FOLDER);
}

/** Where a path written in a config points: `$data/...` in the data folder, else from the config's folder. */
export function resolveConfigPath(path: string, configDir: string, data: string): string {
  if (path.startsWith(DATA_PREFIX)) return resolve(data, path.slice(DATA_PREFIX.length));
  return isAbsolute(path) ? path : resolve(configDir, path);
}

/** Names of the fields that hold file paths in run and experiment configs' data parts. */
const PATH_KEYS = new Set(['text', 'labels', 'conll', 'weak', 'gold', 'corpus', 'gazetteers', 'untyped', 'rules', 'file', 'unlabeled', 'model', 'asset']);

/**
 * A config's data part (a run config's `data`, an experiment's `settings`) with every path
 * resolved, and the files that do not exist, each with the path as written.
 */
export function resolveDataPaths<T>(node: T, configDir: string, data: string, missing: { written: string; path: string }[] = []): T {
  const visit = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string' && key !== null && PATH_KEYS.has(key)) {
      if (v === '-') return v;
      const path = resolveConfigPath(v, configDir, data);
      if (!existsSync(path)) missing.push({ written: v, path });
      return path;
    }
    if (Array.isArray(v)) return v.map((x) => visit(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x, k)]));
    return v;
  };
  return visit(node, null) as T;
}

/** One error for the files a config names that do not exist, saying which setting would fix it. */
export function missingFilesError(configFile: string, missing: readonly { written: string; path: string }[], data: string): Error {
  const list = missing.map((m) => `${m.path} (written "${m.written}")`).join('; ');
  const viaData = missing.some((m) => m.written.startsWith(DATA_PREFIX));
  const hint = viaData
    ? ` The data folder is ${data}${existsSync(data) ? '' : ', which does not exist'}: give --data DIR or set NER_STUDIO_DATA to the folder that holds the data.`
    : ` Paths without ${DATA_PREFIX} resolve from the config's folder.`;
  return new Error(`${configFile}: ${missing.length === 1 ? 'file not found' : `${missing.length} files not found`}: ${list}.${hint}`);
}

/** A config file's JSON, or an error that names the file and what is wrong with it. */
export function readConfigJson(file: string): unknown {
  if (!existsSync(file)) throw new Error(`${file}: no such config file (paths are relative to the working directory, ${process.cwd()})`);
  return readJson(file);
}
