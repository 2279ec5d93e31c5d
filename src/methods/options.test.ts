import { describe, expect, it } from 'vitest';
import { METHOD_CATALOG } from './catalog';
import { entryOptionsText, OPTION_CHOICES, parseOptionsText } from './options';

describe('method options on the training page', () => {
  it('fills in every option of every catalog entry, and reads them back unchanged', () => {
    for (const entry of METHOD_CATALOG) {
      const text = entryOptionsText(entry);
      expect(parseOptionsText(text)).toEqual(JSON.parse(text));
    }
    const roster = JSON.parse(entryOptionsText(METHOD_CATALOG.find((e) => e.id === 'roster')!));
    expect(roster.method).toEqual({ name: 'roster', q: 0, tau: 0.3, removeFromEpoch: 2, dropO: 0.25 });
    expect(roster.pipeline.kind).toBe('roster');
    const needle = JSON.parse(entryOptionsText(METHOD_CATALOG.find((e) => e.id === 'needle')!));
    expect(needle.pipeline).toMatchObject({ kind: 'needle', wlc: true, nal: true, ft: true });
  });

  it('takes an ablation and names the field at fault', () => {
    expect(parseOptionsText('{"method": {"name": "roster", "q": 0}, "pipeline": {"kind": "roster", "rounds": 0}}').method).toMatchObject({ q: 0, tau: 0.3 });
    expect(() => parseOptionsText('{"method": {"name": "roster", "q": 2}}')).toThrow(/method options: method\.q: .*1/);
    expect(() => parseOptionsText('{"method": {"name": "roster", "qq": 1}}')).toThrow(/method options: method.*qq/);
    expect(() => parseOptionsText('{"method": {"name": "nope"}}')).toThrow(/method options: method\.name: unknown method "nope"/);
    expect(() => parseOptionsText('{"method": {"name": "wsl"}, "pipeline": {"kind": "needle", "ft": "no"}}')).toThrow(/method options: pipeline\.ft:/);
    expect(() => parseOptionsText('{"method": {"name": "wsl"},')).toThrow(/method options: invalid JSON/);
    expect(() => parseOptionsText('{"methods": {}}')).toThrow(/unknown key "methods"/);
  });

  it('takes the choices of fixed-set options from the schemas', () => {
    expect(OPTION_CHOICES['method.sampling']).toEqual(['uniform', 'weighted']);
    expect(OPTION_CHOICES['pipeline.pseudoLabels']).toEqual(['soft', 'hard']);
    expect(OPTION_CHOICES['method.tau']).toBeUndefined();
  });
});
