import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimRunStore, fileRunStore, runStoreDir } from './runStore';

describe('file run store', () => {
  it('keeps typed arrays across processes, forgets a store written for another config, and clears', async () => {
    const root = mkdtempSync(join(tmpdir(), 'runstore-'));
    const dir = runStoreDir(root, 'distant only/RoSTER (5 models)/1');
    expect(dir.startsWith(root)).toBe(true);
    expect(runStoreDir(root, 'a/b/1')).not.toBe(runStoreDir(root, 'a b 1'));
    const value = { epoch: 3, weights: { w: { shape: [2], data: Float32Array.from([0.5, -1.25]) } } };
    await fileRunStore(dir, { seed: 1 }).save('checkpoint 0 wsl', value);
    const again = fileRunStore(dir, { seed: 1 });
    const back = (await again.load('checkpoint 0 wsl')) as typeof value;
    expect(back.weights.w.data).toBeInstanceOf(Float32Array);
    expect(back).toEqual(value);
    expect(await again.load('stage 0 wsl')).toBeUndefined();
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(false);
    // Another config: the stages belong to another run.
    expect(await fileRunStore(dir, { seed: 2 }).load('checkpoint 0 wsl')).toBeUndefined();
    const s = fileRunStore(dir, { seed: 2 });
    await s.save('k', 1);
    s.clear();
    expect(readdirSync(root)).toEqual([]);
  });

  it('one process per run: a live claim stops a second with the other process named; a dead one is taken over', () => {
    const root = mkdtempSync(join(tmpdir(), 'runclaim-'));
    const dir = runStoreDir(root, 'twitter/WSL/2');
    const claim = claimRunStore(dir);
    expect(readdirSync(root)).toEqual([`${dir.slice(root.length + 1)}.lock`]);
    // The parent of this test process is alive: its claim holds.
    writeFileSync(`${dir}.lock`, String(process.ppid));
    expect(() => claimRunStore(dir)).toThrow(`already running in process ${process.ppid}`);
    // A process that has exited leaves a stale claim.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(`${dir}.lock`, gone);
    claimRunStore(dir).release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    claim.release();
  });
});
