import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenTexts } from '../core/types';
import { readConfigJson } from './dataFolder';
import { readCorpus, readGazetteer } from './readCorpus';
import { readRulesFile } from './weakLabel';

const BOM = '\uFEFF';

function files(entries: Record<string, string>): (name: string) => string {
  const dir = mkdtempSync(join(tmpdir(), 'studio-read-'));
  for (const [name, text] of Object.entries(entries)) writeFileSync(join(dir, name), text);
  return (name) => join(dir, name);
}

describe('the files the command line reads', () => {
  it('drop the byte-order mark a Windows editor writes, as the browser does: the first token, tag and entry read as written', () => {
    const at = files({
      'a.conll': `${BOM}Aspirin B-Chemical\r\nhelps O\r\n`,
      'a.txt': `${BOM}Aspirin helps\n`,
      'a.tags': `${BOM}B-Chemical O\n`,
      'g.tsv': `${BOM}Chemical\taspirin\n`,
    });
    const conll = readCorpus(at('a.conll'), { format: 'conll' });
    expect(tokenTexts(conll.docs[0])).toEqual(['Aspirin', 'helps']);
    expect(conll.layers[0].annotations[0].spans.map((a) => [a.start, a.end, a.label])).toEqual([[0, 1, 'Chemical']]);
    const lines = readCorpus(at('a.txt'), { format: 'lines', labels: [{ file: at('a.tags'), kind: 'gold', name: 'gold' }] });
    expect(tokenTexts(lines.docs[0])).toEqual(['Aspirin', 'helps']);
    expect(lines.layers[0].annotations[0].spans.map((a) => [a.start, a.end, a.label])).toEqual([[0, 1, 'Chemical']]);
    expect(readGazetteer(at('g.tsv'), 'tsv').entries.map((e) => [e.phrase, e.type])).toEqual([['aspirin', 'Chemical']]);
  });

  it('say which file is missing, or a folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-read-'));
    expect(() => readCorpus(join(dir, 'none.conll'), { format: 'conll' })).toThrow(
      `${join(dir, 'none.conll')}: no such file (paths are relative to the working directory`,
    );
    expect(() => readGazetteer(dir, 'tsv')).toThrow(`${dir}: a folder, not a file`);
  });

  it('refuse a file that is not UTF-8, naming it and the line, as the page does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-read-'));
    writeFileSync(join(dir, 'latin1.conll'), Buffer.from('Aspirin B-Chemical\ncaf\u00e9 O\n', 'latin1'));
    expect(() => readCorpus(join(dir, 'latin1.conll'), { format: 'conll' })).toThrow(`${join(dir, 'latin1.conll')}, line 2: byte 0xE9 is not UTF-8`);
  });

  it('read a config or rules file with a byte-order mark, and name the file where one is not JSON or not a list of rules', () => {
    const rule = { kind: 'tokens', name: 'ine', label: 'Chemical', pattern: [{ LOWER: { REGEX: 'ine$' } }] };
    const at = files({
      'c.json': `${BOM}{"name": "x"}`,
      'r.json': `${BOM}${JSON.stringify([rule])}`,
      'bad.json': '[{"name": ',
      'obj.json': '{"rules": []}',
    });
    expect(readConfigJson(at('c.json'))).toEqual({ name: 'x' });
    expect(readRulesFile(at('r.json'))).toHaveLength(1);
    expect(() => readRulesFile(at('bad.json'))).toThrow(/bad\.json: invalid JSON/);
    expect(() => readRulesFile(at('obj.json'))).toThrow(/obj\.json: a rules file is a JSON array of rules, not object/);
    expect(() => readConfigJson(at('bad.json'))).toThrow(/bad\.json: invalid JSON/);
  });
});
