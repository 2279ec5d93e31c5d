import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser } from '@playwright/test';

/** Serves dist/ of `root` (this checkout, or a worktree of another commit) with `vite preview` and opens the system Chromium, for benchmarks in a real browser. */
export async function withStudio<T>(
  fn: (browser: Browser, url: string) => Promise<T>,
  port = 4175,
  extraArgs: string[] = [],
  root = process.cwd(),
): Promise<T> {
  const server: ChildProcess = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    stdio: 'ignore',
    detached: true,
    cwd: root,
  });
  const url = `http://127.0.0.1:${port}/`;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(url)).ok) break;
      } catch {
        if (i > 100) throw new Error('vite preview did not start');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // WebGPU and WebGL (SwiftShader) need the GPU process; the other benchmarks turn it off.
      args: [
        '--no-sandbox',
        ...(extraArgs.includes('--enable-unsafe-webgpu') ? [] : ['--disable-gpu']),
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        ...extraArgs,
      ],
    });
    try {
      return await fn(browser, url);
    } finally {
      await browser.close();
    }
  } finally {
    if (server.pid) process.kill(-server.pid);
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
