/**
 * WebGPU in Node without a GPU: Dawn's addon from the npm registry (the `webgpu` package, as
 * bench/gpu-node.ts packs it) on SwiftShader's Vulkan from Debian's chromium. `startLocalWebgpu`
 * re-runs the calling script once with the loader's library path set (Dawn reads it at start),
 * then makes `webgpu` TensorFlow.js's backend with the studio's kernels registered.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as tf from '../src/model/tf';
import { type DawnModule, installDawn } from './dawn-globals';

const PACK = 'bench/out/gpu-pack';

export async function startLocalWebgpu(): Promise<void> {
  if (!existsSync(`${PACK}/package/dist/linux-x64/dawn.node`)) {
    mkdirSync(PACK, { recursive: true });
    const tgz = execFileSync('npm', ['pack', 'webgpu@0.6.2', '--pack-destination', PACK, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', `${PACK}/${tgz}`, '-C', PACK]);
  }
  if (!process.env.VK_DRIVER_FILES) {
    process.env.VK_DRIVER_FILES = '/usr/lib/chromium/vk_swiftshader_icd.json';
    if (!process.env.LD_LIBRARY_PATH?.includes('/usr/lib/chromium')) {
      execFileSync(process.execPath, process.execArgv.concat(process.argv.slice(1)), {
        stdio: 'inherit',
        env: { ...process.env, LD_LIBRARY_PATH: `/usr/lib/chromium:${process.env.LD_LIBRARY_PATH ?? ''}` },
      });
      process.exit(0);
    }
  }
  installDawn(createRequire(import.meta.url)(`${process.cwd()}/${PACK}/package/index.js`) as DawnModule);
  await (await import('../src/model/webgpuStudio')).registerStudioWebgpu();
  if (!(await tf.setBackend('webgpu'))) throw new Error('the WebGPU backend did not start (is chromium installed?)');
  await tf.ready();
}
