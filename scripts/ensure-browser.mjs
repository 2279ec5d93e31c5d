#!/usr/bin/env node
/**
 * Before the browser tests: finds a Chromium (CHROMIUM_PATH, Debian's /usr/bin/chromium,
 * Playwright's own download), and where there is none installs Debian's chromium package when
 * apt-get is there and we are root or sudo needs no password. Otherwise it stops with one line
 * saying which command installs one. No browser is downloaded from outside the Debian registry.
 * playwright.config.ts picks the same browser (scripts/browserPath.mjs).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findBrowser } from './browserPath.mjs';

if (process.env.CHROMIUM_PATH && !existsSync(process.env.CHROMIUM_PATH)) {
  console.error(
    `browser tests: CHROMIUM_PATH is ${process.env.CHROMIUM_PATH}, which does not exist; unset it to use /usr/bin/chromium, or point it at a Chromium binary.`,
  );
  process.exit(1);
}
const found = await findBrowser();
if (found) {
  console.error(`browser tests: ${found}`);
  process.exit(0);
}
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const root = process.getuid?.() === 0;
const sudo = !root && has('sudo') && spawnSync('sudo', ['-n', 'true']).status === 0;
if (has('apt-get') && (root || sudo)) {
  console.error("browser tests: no Chromium found; installing Debian's chromium package (apt-get install chromium)");
  const pre = root ? [] : ['sudo', '-n'];
  const run = (args) =>
    execFileSync(pre[0] ?? args[0], pre.length ? [...pre.slice(1), ...args] : args.slice(1), {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
  if (existsSync('/usr/bin/chromium')) {
    console.error('browser tests: /usr/bin/chromium');
    process.exit(0);
  }
}
console.error(
  'browser tests: no Chromium found. Install one with `sudo apt-get install chromium` (Debian), or point CHROMIUM_PATH at a Chromium or Chrome binary.',
);
process.exit(1);
