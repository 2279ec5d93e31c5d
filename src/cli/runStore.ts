/**
 * A run's store in a directory: the experiment CLI's checkpoints, so that a run longer than a
 * sitting goes on where it stopped. One file per key, written whole and then renamed, so a killed
 * process leaves the last complete value. The directory keeps the run's config; a store written
 * for another config is emptied first, since its stages belong to another run.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { RunStore } from '../model/train';

const digest = (s: string, n: number) => createHash('sha1').update(s).digest('hex').slice(0, n);

/** The directory of a run's store under `root`: its key made a file name, and a hash against clashes. */
export function runStoreDir(root: string, key: string): string {
  return join(root, `${key.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}-${digest(key, 8)}`);
}

/**
 * Takes `path` as a lock file holding this process's pid, or names the live process that holds
 * it. A lock whose process is gone (a killed sitting) is taken over.
 */
export function tryLock(path: string): { release(): void } | { heldBy: number } {
  mkdirSync(dirname(path), { recursive: true });
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(existsSync(path) ? readFileSync(path, 'utf8') : 0);
      if (pid !== process.pid && alive(pid)) return { heldBy: pid };
      rmSync(path, { force: true });
    }
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a run's store for this process until `release` (a `<dir>.lock` file): two experiment
 * processes given the same run would otherwise clear and write one directory at once.
 */
export function claimRunStore(dir: string): { release(): void } {
  const lock = tryLock(`${dir}.lock`);
  if ('heldBy' in lock) throw new Error(`${dir}: this run is already running in process ${lock.heldBy}; one process per run (stop it, or wait for its record)`);
  return lock;
}

export function fileRunStore(dir: string, config: unknown): RunStore & { clear(): void } {
  const stamp = JSON.stringify(config);
  const stampFile = join(dir, 'config.json');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') !== stamp) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(stampFile, stamp);
  const file = (key: string) => join(dir, `${digest(key, 16)}.bin`);
  return {
    async load(key) {
      const f = file(key);
      return existsSync(f) ? deserialize(readFileSync(f)) : undefined;
    },
    async save(key, value) {
      const f = file(key);
      writeFileSync(`${f}.tmp`, serialize(value));
      renameSync(`${f}.tmp`, f);
    },
    clear() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
