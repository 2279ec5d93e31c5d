import { describe, expect, it } from 'vitest';
import { trainSchema } from './runConfig';
import { gpuTraining } from './gpuBatch';

describe('gpuTraining', () => {
  it('scales the page defaults to what dev chose for the GPU: batch 128, lr 0.008, 60 epochs, patience 10', () => {
    const d = trainSchema.parse({});
    expect(gpuTraining(d)).toEqual({ batchSize: 128, lr: 0.008, epochs: 60, patience: 10 });
  });
  it('scales what the user typed, and keeps the epochs inside the schema', () => {
    expect(gpuTraining({ batchSize: 16, lr: 0.001, epochs: 800, patience: 3 })).toEqual({ batchSize: 64, lr: 0.004, epochs: 1000, patience: 6 });
    expect(trainSchema.safeParse(gpuTraining({ batchSize: 16, lr: 0.001, epochs: 800, patience: 3 })).success).toBe(true);
  });
});
