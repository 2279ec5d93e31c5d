import { afterEach, describe, expect, it } from 'vitest';
import { readKept } from './kept';

const store = new Map<string, string>();
Object.defineProperty(globalThis, 'localStorage', {
  value: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) },
  configurable: true,
});

describe('form state kept across reloads', () => {
  afterEach(() => store.clear());
  it('takes the defaults where nothing is kept, and the kept fields of the same type where something is', () => {
    const defaults = { epochs: '30', dictionary: true, method: 'completion' };
    expect(readKept('f', defaults)).toEqual(defaults);
    store.set('ner-studio/f', JSON.stringify({ epochs: '5', dictionary: 'yes', gone: 1 }));
    expect(readKept('f', defaults)).toEqual({ epochs: '5', dictionary: true, method: 'completion' });
    store.set('ner-studio/f', '{not json');
    expect(readKept('f', defaults)).toEqual(defaults);
    store.set('ner-studio/t', JSON.stringify('kept text'));
    expect(readKept('t', 'default text')).toBe('kept text');
  });
});
