import { describe, expect, it } from 'vitest';
import { checkModelFile, decodeFloat32, encodeFloat32, fileWeights, type ModelFile } from './modelFile';

describe('model files', () => {
  it('float32 values survive base64 exactly, past the encoder’s 32 KiB chunks', () => {
    const f = Float32Array.from({ length: 20_001 }, (_, i) => Math.sin(i) * 10 ** ((i % 9) - 4));
    f[7] = Number.NaN;
    f[8] = -0;
    const back = decodeFloat32(encodeFloat32(f));
    expect(back).toHaveLength(f.length);
    expect(Object.is(back[8], -0)).toBe(true);
    expect(Number.isNaN(back[7])).toBe(true);
    expect(Array.from(back.slice(9))).toEqual(Array.from(f.slice(9)));
    // A view into a larger buffer encodes only its own values.
    expect(Array.from(decodeFloat32(encodeFloat32(f.subarray(3, 6))))).toEqual(Array.from(f.subarray(3, 6)));
  });

  it('reads weights written as numbers or as base64, and refuses a file that is not one, or whose sizes or feature groups do not add up', () => {
    const w = Float32Array.from([1.5, -2, 3.25, 0, 7, 8]);
    const file = {
      format: 'ner-studio-model/1',
      config: { data: { kind: 'project', projectId: 1, layerId: 1, goldLayerId: 2 } },
      tags: ['O', 'B-X', 'I-X'],
      weights: { a: { shape: [2, 3], base64: encodeFloat32(w) }, b: { shape: [3], data: [1, 2, 3] } },
    } as unknown as ModelFile;
    expect(checkModelFile(file, 'm.json')).toBe(file);
    const read = fileWeights(file.weights);
    expect(Array.from(read.a.data)).toEqual(Array.from(w));
    expect(read.b).toEqual({ shape: [3], data: Float32Array.from([1, 2, 3]) });
    expect(() => checkModelFile({ format: 'ner-studio-project' }, 'p.json')).toThrow(
      'p.json: not a model file written by "train --out" or downloaded from a run\'s page (format ner-studio-project)',
    );
    expect(() => checkModelFile({ ...file, config: { ...file.config, model: { hidden: -1 } } }, 'm.json')).toThrow('m.json: config: model.hidden:');
    expect(() => checkModelFile({ ...file, tags: ['B-X', 'I-X'] }, 'm.json')).toThrow('m.json: tags must be O and B-/I- tags, not ["B-X","I-X"]');
    expect(() => checkModelFile({ ...file, weights: { a: { shape: [2, 4], base64: encodeFloat32(w) } } }, 'm.json')).toThrow(
      'm.json: weight a holds 6 values for shape [2, 4] (8 expected)',
    );
    expect(() => checkModelFile({ ...file, weights: { b: { shape: [2], data: [1, 2, 3] } } }, 'm.json')).toThrow('m.json: weight b holds 3 values');
    expect(() => checkModelFile({ ...file, inputs: { groups: ['X', 'weak label: X'], lexicon: { types: ['X'], sources: [] } } }, 'm.json')).toThrow(
      'm.json: the model reads 2 feature groups, and the file says how to make 1 of them',
    );
  });
});
