/**
 * WebGPU training speed on a real GPU: builds a self-contained kit for a machine that has a GPU
 * and neither Node, Chromium nor network access (the `device` machines), and, with --local, runs
 * it here. The kit trains the studio's tagger with the studio's loop, on WebGPU through Dawn (the
 * `webgpu` npm package: the WebGPU implementation inside Chromium, as a Node addon) and on WASM,
 * and the same architecture in PyTorch on the GPU and the CPU (bench/torch_tagger.py), on the
 * same sentences: ratios in one run on one machine.
 *
 *   npx tsx bench/gpu-node.ts [--sentences 1000] [--epochs 2] [--baseline REV] [--local]
 *
 * --dev N adds N CoNLL-2003 dev sentences, for runs to convergence scored on dev (run.sh with
 * CONVERGE=1: WebGPU against WASM, 3 seeds each, and the batch for the GPU; CONVERGE_MODEL=idcnn,
 * CONVERGE_EPOCHS, GPU_BATCH=0 to change what).
 * --baseline REV also bundles the loop as it was at commit REV (run-baseline.mjs, from a git
 * worktree), so that run.sh times the old code's WebGPU training beside today's in one run.
 *
 * The kit (bench/out/gpu-kit, about 40 MB, under the device's 64 MiB) holds: this machine's Node
 * binary and Dawn's addon, xz-compressed; the bundled loop (gpu-node-entry.ts); the WASM files;
 * the sentences and trimmed GloVe vectors; the Vulkan loader's Debian packages (`apt-get
 * download`); run.sh. Everything comes from the npm and Debian registries. On the device:
 *   bash bench/out/gpu-kit/run.sh          (results in $OUT/gpu-node.jsonl)
 * Needs the data folder (NER_STUDIO_DATA, default ../shared/data) and public/glove.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { THROUGHPUT_MODELS, throughputInput, torchShapes } from './throughput-input';

const WEBGPU = 'webgpu@0.6.2';
const VULKAN_DEBS = ['libvulkan1', 'libegl1', 'libglvnd0', 'libopengl0', 'libgl1', 'libglx0', 'libgles2'];
const { values } = parseArgs({
  options: {
    sentences: { type: 'string', default: '1000' },
    epochs: { type: 'string', default: '2' },
    baseline: { type: 'string' },
    dev: { type: 'string', default: '0' },
    local: { type: 'boolean' },
  },
});
const KIT = 'bench/out/gpu-kit';
rmSync(KIT, { recursive: true, force: true });
mkdirSync(`${KIT}/wasm`, { recursive: true });
mkdirSync(`${KIT}/debs`, { recursive: true });
mkdirSync(`${KIT}/webgpu/dist/linux-x64`, { recursive: true });

// The sentences and vectors, and their shapes for PyTorch (as bench/train-throughput.ts).
const input = throughputInput(Number(values.sentences), Number(values.dev));
const { sentences } = input;
const epochs = Number(values.epochs);
writeFileSync(
  `${KIT}/input.json`,
  JSON.stringify({ ...input, glove: { ...input.glove, vectors: Array.from(input.glove.vectors) }, epochs, models: THROUGHPUT_MODELS }),
);
writeFileSync(`${KIT}/shapes.json`, JSON.stringify(torchShapes(input, epochs)));
copyFileSync('bench/torch_tagger.py', `${KIT}/torch_tagger.py`);

// The loop, bundled; Dawn's module is loaded from the kit at run time.
async function bundleLoop(root: string, outfile: string, entry = 'bench/gpu-node-entry.ts') {
  await build({
    entryPoints: [`${root}/${entry}`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    nodePaths: [`${process.cwd()}/node_modules`],
    logLevel: 'error',
    // Minified to fit the device's 64 MiB with the repository; the names kept, since the profiler names programs by their class.
    minify: true,
    keepNames: true,
    // The WASM backend's glue reads require and __dirname, which an ES module lacks.
    banner: {
      js: "import { createRequire } from 'node:module'; import { fileURLToPath } from 'node:url'; import { dirname } from 'node:path'; const require = createRequire(import.meta.url); const __dirname = dirname(fileURLToPath(import.meta.url));",
    },
  });
}
await bundleLoop('.', `${KIT}/run.mjs`);
await bundleLoop('.', `${KIT}/kernel-times.mjs`, 'bench/gpu-kernel-times-entry.ts');
if (values.baseline) {
  const tree = 'bench/out/gpu-baseline-tree';
  rmSync(tree, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'prune']);
  execFileSync('git', ['worktree', 'add', '--detach', tree, values.baseline], { stdio: 'ignore' });
  await bundleLoop(tree, `${KIT}/run-baseline.mjs`);
  writeFileSync(`${KIT}/baseline.txt`, execFileSync('git', ['rev-parse', '--short', values.baseline], { encoding: 'utf8' }).trim());
  execFileSync('git', ['worktree', 'remove', '--force', tree]);
}
for (const f of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm'])
  copyFileSync(`node_modules/@tensorflow/tfjs-backend-wasm/dist/${f}`, `${KIT}/wasm/${f}`);

// Dawn's Node addon, from the npm registry; Node itself, this machine's binary.
const pack = 'bench/out/gpu-pack';
mkdirSync(pack, { recursive: true });
const tgz = execFileSync('npm', ['pack', WEBGPU, '--pack-destination', pack, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop()!;
execFileSync('tar', ['xzf', `${pack}/${tgz}`, '-C', pack]);
copyFileSync(`${pack}/package/index.js`, `${KIT}/webgpu/index.js`);
copyFileSync(`${pack}/package/package.json`, `${KIT}/webgpu/package.json`);
copyFileSync(`${pack}/package/dist/linux-x64/dawn.node`, `${KIT}/webgpu/dist/linux-x64/dawn.node`);
execFileSync('xz', ['-T2', '-6', `${KIT}/webgpu/dist/linux-x64/dawn.node`]);
copyFileSync(process.execPath, `${KIT}/node`);
execFileSync('xz', ['-T2', '-6', `${KIT}/node`]);
// The Vulkan loader (the device's image has the NVIDIA driver and its ICD, not the loader).
execFileSync('apt-get', ['download', ...VULKAN_DEBS], { cwd: `${KIT}/debs`, stdio: 'ignore' });

writeFileSync(
  `${KIT}/run.sh`,
  `#!/bin/bash
# Runs the kit: WebGPU (Dawn on Vulkan) and WASM in Node, PyTorch on the GPU and the CPU.
# LOCAL=1: no packages unpacked, no GPU (VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json: SwiftShader).
set -u
K=$(cd "$(dirname "$0")" && pwd)
OUT=\${OUT:-$K/out}; mkdir -p "$OUT"
if [ -z "\${LOCAL:-}" ]; then
  for f in "$K"/debs/*.deb; do dpkg -x "$f" /; done; ldconfig
  ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -f $ICD ] && export VK_DRIVER_FILES=$ICD __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
fi
for f in node webgpu/dist/linux-x64/dawn.node; do [ -f "$K/$f" ] || xz -dk "$K/$f.xz" 2>/dev/null || python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$K/$f.xz" "$K/$f"; done
chmod +x "$K/node"
grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | tee "$OUT/cpu.txt"; nproc | tee -a "$OUT/cpu.txt"
# Dev F1 on WebGPU against WASM (CONVERGE=1, a kit built with --dev N), then nothing else: 3 seeds each at
# batch 32 for CONVERGE_EPOCHS (20) epochs of CONVERGE_MODEL (bilstm), the WASM seeds in parallel on their
# own cores; and, with GPU_BATCH=1 (the default), the training page's batch for the GPU on WebGPU.
if [ "\${CONVERGE:-0}" = 1 ]; then
  CM=\${CONVERGE_MODEL:-bilstm}; CE=\${CONVERGE_EPOCHS:-20}
  for s in 1 2 3; do MODELS=$CM EPOCHS=$CE SEEDS=$s "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" wasm > "$OUT/converge-wasm-$s.jsonl" 2>&1 & done
  MODELS=$CM EPOCHS=$CE SEEDS=1,2,3 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/converge.jsonl"
  if [ "\${GPU_BATCH:-1}" = 1 ]; then MODELS=$CM EPOCHS=$((2 * CE)) BATCH=128 LR=0.008 SEEDS=1,2,3 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/converge.jsonl"; fi
  wait; cat "$OUT"/converge-wasm-*.jsonl | tee -a "$OUT/converge.jsonl"; rm -f "$OUT"/converge-wasm-*.jsonl
  exit 0
fi
# ALTERNATE=N (a kit built with --baseline): the BiLSTM-CRF on WebGPU at batch 32 for 3 epochs, today's code, the
# baseline's and today's with TensorFlow.js's staging uploads (NO_QUEUE_UPLOADS), alternated N rounds; then on
# with the rest. One epoch on a GPU is under a second, and the first process of a call ran slower than the rest.
if [ "\${ALTERNATE:-0}" -gt 0 ]; then
  for r in $(seq "$ALTERNATE"); do
    MODELS=bilstm EPOCHS=3 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | sed "s/^{/{\\"round\\":$r,/" | tee -a "$OUT/alternate.jsonl"
    MODELS=bilstm EPOCHS=3 "$K/node" "$K/run-baseline.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | sed "s/^{\\"where\\":\\"/{\\"round\\":$r,\\"where\\":\\"code of $(cat "$K/baseline.txt"), /" | tee -a "$OUT/alternate.jsonl"
    NO_QUEUE_UPLOADS=1 MODELS=bilstm EPOCHS=3 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | sed "s/^{/{\\"round\\":$r,/" | tee -a "$OUT/alternate.jsonl"
  done
fi
"$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" \${BACKENDS:-webgpu,wasm} 2>&1 | tee "$OUT/gpu-node.jsonl"
# The loop as it was at the commit in baseline.txt (gpu-node.ts --baseline REV), on WebGPU at batch 32, beside today's.
if [ -f "$K/run-baseline.mjs" ]; then "$K/node" "$K/run-baseline.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | sed "s/^{\\"where\\":\\"/{\\"where\\":\\"code of $(cat "$K/baseline.txt"), /" | tee -a "$OUT/gpu-node.jsonl"; fi
# Each GPU program's own time in a training step, beside the step's wall time, and the LSTM recurrence
# kernels alone at 8 to 2,048 sentences (bench/gpu-kernel-times-entry.ts; KERNEL_TIMES=0: not run).
if [ "\${KERNEL_TIMES:-1}" = 1 ]; then "$K/node" "$K/kernel-times.mjs" "$K/input.json" "$K/webgpu/index.js" 2>&1 | tee "$OUT/kernel-times.jsonl"; fi
# Batches of 128 sentences on both backends (BATCH128=0: not run): the GPU's cost is per program, so larger batches gain there.
if [ "\${BATCH128:-1}" = 1 ]; then BATCH=128 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu,wasm 2>&1 | tee -a "$OUT/gpu-node.jsonl"; fi
# Adam as TensorFlow.js's generic ops (UNFUSED=0: not run), against the fused kernels above (src/model/adamWebgpu.ts).
if [ "\${UNFUSED:-1}" = 1 ]; then TFJS_FLAGS='{"STUDIO_FUSED_ADAM":false}' "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/gpu-node.jsonl"; fi
# The LSTM's recurrence as the generic ops (GENERIC=0: not run), against its WGSL kernels above.
if [ "\${GENERIC:-1}" = 1 ]; then NO_LSTM_KERNEL=1 "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/gpu-node.jsonl"; fi
# WebGPU's queue submitted every 200 programs instead of 15 (SUBMIT200=1).
if [ "\${SUBMIT200:-0}" = 1 ]; then TFJS_FLAGS='{"WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE":200}' "$K/node" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/gpu-node.jsonl"; fi
# A CPU profile of the BiLSTM-CRF's WebGPU training, 6 epochs (CPUPROF=1): where the host's time goes
# (bench/cpu-profile-summary.ts reads it), beside the GPU's own time above.
if [ "\${CPUPROF:-0}" = 1 ]; then MODELS=bilstm EPOCHS=6 "$K/node" --cpu-prof --cpu-prof-dir="$OUT/prof" "$K/run.mjs" "$K/input.json" "$K/webgpu/index.js" "$K/wasm" webgpu 2>&1 | tee -a "$OUT/gpu-node.jsonl"; fi
PY=\${PY:-python3}
N=$(nproc)
if [ -z "\${LOCAL:-}" ] && [ "\${TORCH:-1}" = 1 ]; then $PY "$K/torch_tagger.py" "$K/shapes.json" 1 cuda 2>&1 | sed 's/^{/{"where":"PyTorch, cuda",/' | tee -a "$OUT/gpu-node.jsonl"; fi
if [ "\${TORCH:-1}" = 1 ] && $PY -c 'import torch' 2>/dev/null; then $PY "$K/torch_tagger.py" "$K/shapes.json" $N cpu 2>&1 | sed "s/^{/{\\"where\\":\\"PyTorch, $N CPU threads\\",/" | tee -a "$OUT/gpu-node.jsonl"; fi
`,
);
console.error(`kit in ${KIT}: ${execFileSync('du', ['-sh', KIT], { encoding: 'utf8' }).split('\t')[0]}; ${sentences.length} sentences, ${epochs} epochs`);
// Here: SwiftShader's Vulkan (Chromium's), a software adapter, to check the kit runs.
if (values.local)
  execFileSync('bash', [`${KIT}/run.sh`], {
    stdio: 'inherit',
    env: {
      VK_DRIVER_FILES: '/usr/lib/chromium/vk_swiftshader_icd.json',
      ...process.env,
      // The Vulkan loader comes with Debian's chromium too.
      LD_LIBRARY_PATH: `/usr/lib/chromium:${process.env.LD_LIBRARY_PATH ?? ''}`,
      LOCAL: '1',
      PY: '/usr/bin/python3',
    },
  });
