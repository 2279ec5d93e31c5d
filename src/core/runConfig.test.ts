import { describe, expect, it } from 'vitest';
import { DEFAULT_PRESET } from '../methods/catalog';
import { entryOptionsText } from '../methods/options';
import { parseRunConfig } from './runConfig';

const data = { kind: 'files', train: { conll: 'a' }, dev: { conll: 'b' } };

describe('the run config schema', () => {
  it("gives a config that names neither method nor pipeline the training page's default run, options and all", () => {
    const cfg = parseRunConfig({ data });
    const page = JSON.parse(entryOptionsText(DEFAULT_PRESET));
    expect({ method: cfg.method, pipeline: cfg.pipeline }).toEqual(page);
    expect(cfg.pipeline).toMatchObject({ kind: 'completion', rounds: 3, typeShifts: true, keepBest: true, unlabeled: 10_000 });
    expect(cfg.model).toMatchObject({ dictionaryDropout: 'dev', weakFeatures: true, head: 'crf' });
    expect(cfg.train.lr).toBe(0.002);
  });

  it('runs a named method alone, and a named pipeline around the supervised loss', () => {
    expect(parseRunConfig({ data, method: { name: 'bond' } }).pipeline).toEqual({ kind: 'single' });
    expect(parseRunConfig({ data, pipeline: { kind: 'sst' } }).method).toEqual({ name: 'supervised' });
  });

  it('says what is wrong in a sentence that names the field', () => {
    expect(() => parseRunConfig({ data, train: { epochs: 1e9 } })).toThrow('run config: train.epochs: must be at most 1000');
    expect(() => parseRunConfig({ data, train: { epochs: 2.5 } })).toThrow('train.epochs: must be a whole number');
    expect(() => parseRunConfig({ data, train: { lr: 0 } })).toThrow('train.lr: must be more than 0');
    expect(() => parseRunConfig({ data, model: { head: 'mlp' } })).toThrow('model.head: must be one of "crf", "softmax", "span", "twopart"');
    expect(() => parseRunConfig({ data, train: { oShift: 'best' } })).toThrow('train.oShift: must be "dev" or a number');
    expect(() => parseRunConfig({ data, pipeline: { kind: 'bond', rounds: 2, round: 3 } })).toThrow('pipeline: unknown option "round"');
  });
});
