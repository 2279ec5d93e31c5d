/**
 * Dawn's Node addon (the `webgpu` npm package) as the page's WebGPU: its globals (GPUBufferUsage
 * and the rest) and `navigator.gpu`, before TensorFlow.js's WebGPU backend is imported (it
 * registers itself where navigator.gpu exists). Shared by the GPU kit's entries and bench/dawn-local.ts.
 */
export interface DawnModule {
  create: (flags: string[]) => unknown;
  globals: object;
}

/** Makes `dawn` the WebGPU of this process; `flags` are Dawn's (e.g. enable-dawn-features=…). */
export function installDawn(dawn: DawnModule, flags: string[] = []): void {
  Object.assign(globalThis, dawn.globals);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: dawn.create(flags) }, configurable: true });
}
