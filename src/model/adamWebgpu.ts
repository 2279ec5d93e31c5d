/**
 * Adam with clipping by global norm in a few WGSL programs on WebGPU, instead of some 17
 * TensorFlow.js programs per variable (square, sum, scale, then Adam's nine element-wise ops and
 * three assigns). TensorFlow.js spends about 0.2-0.4 ms of CPU on each program it dispatches
 * (BENCHMARKS.md), so the optimizer alone cost more than the LSTM's kernels.
 *
 * Two kernels, dispatched on the backend's own command encoder so that they run in order with
 * its programs:
 *  - `sumsq`: one workgroup per gradient, up to GROUP gradients a dispatch, each writing its sum
 *    of squares to a slot of a small norms buffer;
 *  - `update`: one dispatch per variable, every invocation summing the norms (a few dozen floats)
 *    to the clipping scale and updating its element of the variable and of Adam's two moments in
 *    place, with exactly TensorFlow.js's Adam (optimizers/adam_optimizer.js), whose state
 *    (moments named "<variable>/m" and "/v", accBeta1, accBeta2) this class keeps, so checkpoints
 *    and resumes are the same on every backend.
 * Nothing is read back: Adam's bias corrections follow beta^t in float32 on the CPU, as the
 * backend's own multiply rounds them, and are written to accBeta1/accBeta2 when the state is read.
 */
import type { NamedTensor, NamedVariableMap } from '@tensorflow/tfjs-core/dist/tensor_types';
import { programSource } from './programSource';
import * as tf from './tf';

/** Gradients a `sumsq` dispatch reads at most: 8 storage buffers a stage, one for the norms. */
const GROUP = 6;
const WG = 256;

tf.env().registerFlag('STUDIO_FUSED_ADAM', () => true);

/** The fused optimizer's dispatches are not runWebGPUProgram calls: a counter sees them here (bench/gpu-programs.ts). */
let onDispatch: ((n: number) => void) | null = null;
export function countDispatches(f: ((n: number) => void) | null): void {
  onDispatch = f;
}

/** Where the programs that make Adam's moments (on the first step only) are counted. */
export const MADE_ONCE = "Adam's moments, made once";

export function fusedAdamActive(): boolean {
  return tf.getBackend() === 'webgpu' && tf.env().getBool('STUDIO_FUSED_ADAM');
}

const sumsqCode = `
@group(0) @binding(0) var<storage, read_write> norms : array<f32>;
${Array.from({ length: GROUP }, (_, k) => `@group(0) @binding(${k + 1}) var<storage, read> g${k} : array<f32>;`).join('\n')}
struct U { base : u32, count : u32, pad0 : u32, pad1 : u32 };
@group(0) @binding(${GROUP + 1}) var<uniform> u : U;
var<workgroup> acc : array<f32, ${WG}>;
fn len(j : u32) -> u32 {
  switch j { ${Array.from({ length: GROUP }, (_, k) => `case ${k}u: { return arrayLength(&g${k}); }`).join(' ')} default: { return 0u; } }
}
fn at(j : u32, i : u32) -> f32 {
  switch j { ${Array.from({ length: GROUP }, (_, k) => `case ${k}u: { return g${k}[i]; }`).join(' ')} default: { return 0.0; } }
}
@compute @workgroup_size(${WG})
fn main(@builtin(workgroup_id) wg : vec3<u32>, @builtin(local_invocation_index) li : u32) {
  let j = wg.x;
  let n = len(j);
  var s = 0.0;
  for (var i = li; i < n; i += ${WG}u) { let x = at(j, i); s += x * x; }
  acc[li] = s;
  workgroupBarrier();
  for (var w = ${WG / 2}u; w > 0u; w = w / 2u) {
    if (li < w) { acc[li] += acc[li + w]; }
    workgroupBarrier();
  }
  if (li == 0u) { norms[u.base + j] = acc[0]; }
}`;

/**
 * The update, and with `average` the weight average's step too (src/model/average.ts): the
 * shadow moves to the updated weight by the uniforms' (1 − decay), in the same dispatch.
 */
const updateCode = (average: boolean) => `
@group(0) @binding(0) var<storage, read_write> p : array<f32>;
@group(0) @binding(1) var<storage, read_write> m : array<f32>;
@group(0) @binding(2) var<storage, read_write> v : array<f32>;
@group(0) @binding(3) var<storage, read> g : array<f32>;
@group(0) @binding(4) var<storage, read> norms : array<f32>;
struct U { count : u32, lr : f32, beta1 : f32, beta2 : f32, eps : f32, oneMinusAccBeta1 : f32, oneMinusAccBeta2 : f32, clip : f32, decay : f32, oneMinusDecay : f32, pad0 : f32, pad1 : f32 };
@group(0) @binding(5) var<uniform> u : U;
${average ? '@group(0) @binding(6) var<storage, read_write> a : array<f32>;' : ''}
@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) id : vec3<u32>, @builtin(num_workgroups) nw : vec3<u32>) {
  let i = id.y * nw.x * ${WG}u + id.x;
  if (i >= arrayLength(&p)) { return; }
  var total = 0.0;
  for (var k = 0u; k < u.count; k++) { total += norms[k]; }
  // ops.ts applyClipped: min(1, clip / max(norm, 1e-12)).
  let scale = min(1.0, u.clip / max(sqrt(total), 1e-12));
  let gi = g[i] * scale;
  let m1 = m[i] * u.beta1 + gi * (1.0 - u.beta1);
  let v1 = v[i] * u.beta2 + (gi * gi) * (1.0 - u.beta2);
  m[i] = m1;
  v[i] = v1;
  let p1 = ((m1 / u.oneMinusAccBeta1) / (sqrt(v1 / u.oneMinusAccBeta2) + u.eps)) * -u.lr + p[i];
  p[i] = p1;
  // average.ts's update: shadow · d + weight · (1 − d).
  ${average ? 'a[i] = a[i] * u.decay + p1 * u.oneMinusDecay;' : ''}
}`;

/** The backend's internals the kernels dispatch through (tfjs-backend-webgpu 4.22's backend_webgpu.js). */
type Backend = {
  device: GPUDevice;
  tensorMap: { get(id: object): { resource: GPUBuffer | null; values: unknown; refCount: number } };
  uploadToGPU(id: object): void;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
  commandEncoder: GPUCommandEncoder;
  computePassEncoder: GPUComputePassEncoder | null;
  commandQueueOwnedIds: WeakSet<object>;
};

const pipelines = new WeakMap<GPUDevice, { sumsq: GPUComputePipeline; update: GPUComputePipeline; updateAveraged: GPUComputePipeline }>();
function pipelinesFor(device: GPUDevice) {
  let p = pipelines.get(device);
  if (!p) {
    const make = (code: string) =>
      device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code }), entryPoint: 'main' } });
    p = { sumsq: make(sumsqCode), update: make(updateCode(false)), updateAveraged: make(updateCode(true)) };
    pipelines.set(device, p);
  }
  return p;
}

type AdamInternals = {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  accBeta1: tf.Variable;
  accBeta2: tf.Variable;
  accumulatedFirstMoment: { originalName: string; variable: tf.Variable }[];
  accumulatedSecondMoment: { originalName: string; variable: tf.Variable }[];
  incrementIterations(): void;
};

/**
 * TensorFlow.js's Adam, whose clipped step (`applyClipped`) runs as the two kernels above on
 * WebGPU; every other method (and every other backend) is the parent's.
 */
export class FusedAdam extends tf.AdamOptimizer {
  /** beta^t as the backend's float32 multiply makes it, mirrored here so that no step reads it back; null: read it first. */
  private acc: [number, number] | null = null;
  private buffers: { device: GPUDevice; norms: GPUBuffer; uniforms: GPUBuffer; slots: number } | null = null;

  constructor(learningRate: number) {
    super(learningRate, 0.9, 0.999);
  }

  private get s(): AdamInternals {
    return this as unknown as AdamInternals;
  }

  /**
   * One step on `vars` with their gradients (by name, every variable present), clipped to global
   * norm `clip`; with `average`, each variable's shadow (where it has one) takes its step too.
   */
  async applyClipped(
    vars: readonly tf.Variable[],
    grads: tf.NamedTensorMap,
    clip: number,
    average?: { shadows: readonly (tf.Variable | null)[]; decay: number },
  ): Promise<void> {
    const s = this.s;
    if (!this.acc) this.acc = [(await s.accBeta1.data())[0], (await s.accBeta2.data())[0]];
    const backend = tf.backend() as unknown as Backend;
    const device = backend.device;
    // Adam's moments, made as the parent makes them (by position, named after the variable).
    programSource(MADE_ONCE, () =>
      vars.forEach((v, i) => {
        s.accumulatedFirstMoment[i] ??= { originalName: `${v.name}/m`, variable: tf.tidy(() => tf.zerosLike(v).variable(false)) };
        s.accumulatedSecondMoment[i] ??= { originalName: `${v.name}/v`, variable: tf.tidy(() => tf.zerosLike(v).variable(false)) };
      }),
    );
    if (!this.buffers || this.buffers.device !== device || this.buffers.slots < vars.length) {
      this.disposeBuffers();
      const slots = Math.max(vars.length, 8);
      this.buffers = {
        device,
        slots,
        norms: device.createBuffer({ size: 4 * slots, usage: GPUBufferUsage.STORAGE }),
        // The update's uniforms, then one (base, count) per sumsq dispatch, each at a 256-byte offset (minUniformBufferOffsetAlignment).
        uniforms: device.createBuffer({ size: 256 * (Math.ceil(slots / GROUP) + 1), usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }),
      };
    }
    const { norms, uniforms } = this.buffers;
    const { sumsq, update, updateAveraged } = pipelinesFor(device);
    const oneMinus = [Math.fround(1 - this.acc[0]), Math.fround(1 - this.acc[1])];
    const groups = Math.ceil(vars.length / GROUP);
    const u = new ArrayBuffer(256 * (groups + 1));
    const head = new DataView(u);
    head.setUint32(0, vars.length, true);
    // The decay and 1 − decay as TensorFlow.js's scalars hold them (average.ts's generic update).
    const decay = average?.decay ?? 0;
    [s.learningRate, s.beta1, s.beta2, s.epsilon, oneMinus[0], oneMinus[1], clip, decay, 1 - decay].forEach((x, k) => head.setFloat32(4 + 4 * k, x, true));
    for (let gi = 0; gi < groups; gi++) {
      head.setUint32(256 * (gi + 1), gi * GROUP, true);
      head.setUint32(256 * (gi + 1) + 4, Math.min(GROUP, vars.length - gi * GROUP), true);
    }
    const uniformBuffer = uniforms;
    device.queue.writeBuffer(uniformBuffer, 0, u);

    const binding = (t: tf.Tensor, write: boolean): GPUBufferBinding => {
      backend.uploadToGPU(t.dataId);
      const data = backend.tensorMap.get(t.dataId);
      // Written in place: no CPU copy may outlive this step.
      if (write) data.values = null;
      backend.commandQueueOwnedIds.add(t.dataId);
      return { buffer: data.resource!, offset: 0, size: 4 * t.size };
    };
    // In-place writes need buffers no other tensor shares.
    const own = (v: tf.Variable) => {
      if (backend.tensorMap.get(v.dataId).refCount <= 1) return;
      const copy = tf.tidy(() => tf.add(v, 0));
      v.assign(copy);
      copy.dispose();
    };
    const shadows = vars.map((_, i) => average?.shadows[i] ?? null);
    for (let i = 0; i < vars.length; i++) {
      own(vars[i]);
      own(s.accumulatedFirstMoment[i].variable);
      own(s.accumulatedSecondMoment[i].variable);
      const a = shadows[i];
      if (a) own(a);
    }

    // Every binding first: a tensor still on the CPU is uploaded by a copy on the backend's
    // encoder, which may not be recorded while a compute pass is open on it.
    const maxX = device.limits.maxComputeWorkgroupsPerDimension;
    const sumsqGroups = Array.from({ length: groups }, (_, gi) => {
      const gs = vars.slice(gi * GROUP, (gi + 1) * GROUP).map((v) => binding(grads[v.name], false));
      return device.createBindGroup({
        layout: sumsq.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: norms } },
          ...Array.from({ length: GROUP }, (_, k) => ({ binding: k + 1, resource: gs[k] ?? gs[0] })),
          { binding: GROUP + 1, resource: { buffer: uniformBuffer, offset: 256 * (gi + 1), size: 16 } },
        ],
      });
    });
    const pipelineOf = (i: number) => (shadows[i] ? updateAveraged : update);
    const updateGroups = vars.map((v, i) => {
      const a = shadows[i];
      return device.createBindGroup({
        layout: pipelineOf(i).getBindGroupLayout(0),
        entries: [
          binding(v, true),
          binding(s.accumulatedFirstMoment[i].variable, true),
          binding(s.accumulatedSecondMoment[i].variable, true),
          binding(grads[v.name], false),
          { buffer: norms },
          { buffer: uniformBuffer, offset: 0, size: 48 },
          ...(a ? [binding(a, true)] : []),
        ].map((resource, k) => ({ binding: k, resource })),
      });
    });
    backend.ensureCommandEncoderReady();
    backend.endComputePassEncoder();
    const pass = backend.commandEncoder.beginComputePass();
    sumsqGroups.forEach((group, gi) => {
      pass.setPipeline(sumsq);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(Math.min(GROUP, vars.length - gi * GROUP));
    });
    vars.forEach((v, i) => {
      pass.setPipeline(pipelineOf(i));
      pass.setBindGroup(0, updateGroups[i]);
      const wgs = Math.ceil(v.size / WG);
      pass.dispatchWorkgroups(Math.min(wgs, maxX), Math.ceil(wgs / maxX));
    });
    const dispatches = groups + vars.length;
    pass.end();
    // Submitted now: the next step rewrites the uniforms.
    backend.submitQueue();
    onDispatch?.(dispatches);
    this.acc = [Math.fround(this.acc[0] * Math.fround(s.beta1)), Math.fround(this.acc[1] * Math.fround(s.beta2))];
    s.incrementIterations();
  }

  /** Writes the mirrored beta^t back to accBeta1/accBeta2, so that state read now is the parent's. */
  private syncAcc(): void {
    if (!this.acc) return;
    const s = this.s;
    for (const [v, x] of [
      [s.accBeta1, this.acc[0]],
      [s.accBeta2, this.acc[1]],
    ] as const) {
      const t = tf.scalar(x);
      v.assign(t);
      t.dispose();
    }
  }

  override async getWeights(): Promise<NamedTensor[]> {
    this.syncAcc();
    return super.getWeights();
  }

  override async setWeights(weights: NamedTensor[]): Promise<void> {
    await super.setWeights(weights);
    this.acc = null;
  }

  /** After accBeta1/accBeta2 are assigned from outside (restoreOptimizer), read them again before the next step. */
  forgetAcc(): void {
    this.acc = null;
  }

  override applyGradients(grads: NamedVariableMap | NamedTensor[]): void {
    this.syncAcc();
    this.acc = null;
    super.applyGradients(grads);
  }

  private disposeBuffers(): void {
    this.buffers?.norms.destroy();
    this.buffers?.uniforms.destroy();
    this.buffers = null;
  }

  override dispose(): void {
    this.disposeBuffers();
    super.dispose();
  }
}
