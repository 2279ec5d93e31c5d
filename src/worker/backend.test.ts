import { describe, expect, it } from 'vitest';
import { backendOrder } from './backend';

describe('the backend choice', () => {
  const hardware = { adapter: true, software: false };
  const software = { adapter: true, software: true };
  const none = { adapter: false, software: false };

  it("'auto' trains both encoders on WebGPU with a hardware GPU (fused kernels: 5.9x and 25x one WASM thread on an H200), on WASM with a software adapter or none", () => {
    expect(backendOrder('auto', hardware, 'bilstm')).toEqual(['webgpu', 'wasm', 'webgl', 'cpu']);
    expect(backendOrder('auto', hardware, 'idcnn')).toEqual(['webgpu', 'wasm', 'webgl', 'cpu']);
    for (const gpu of [software, none]) for (const encoder of ['bilstm', 'idcnn'] as const) expect(backendOrder('auto', gpu, encoder)[0]).toBe('wasm');
  });

  it('a backend chosen by name comes first, whatever the GPU and the encoder, with WASM and the CPU behind it', () => {
    expect(backendOrder('webgpu', software, 'bilstm')).toEqual(['webgpu', 'wasm', 'cpu']);
    expect(backendOrder('webgl', none, 'idcnn')).toEqual(['webgl', 'wasm', 'cpu']);
  });
});
