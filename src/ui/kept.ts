/**
 * Form state kept across reloads in localStorage (UI state only; stored data lives in IndexedDB).
 * A kept object takes the defaults' shape: fields the page no longer has are dropped, new ones
 * get their default, and a value of another type than its default's is ignored.
 */
import { useEffect, useState } from 'react';

const PREFIX = 'ner-studio/';

export function readKept<T>(key: string, defaults: T): T {
  try {
    const raw = globalThis.localStorage?.getItem(PREFIX + key);
    if (raw === null || raw === undefined) return defaults;
    const kept = JSON.parse(raw) as unknown;
    if (typeof defaults !== 'object' || defaults === null) return typeof kept === typeof defaults ? (kept as T) : defaults;
    if (typeof kept !== 'object' || kept === null) return defaults;
    const out = { ...defaults } as Record<string, unknown>;
    for (const [k, v] of Object.entries(defaults as Record<string, unknown>)) {
      const x = (kept as Record<string, unknown>)[k];
      if (x !== undefined && typeof x === typeof v) out[k] = x;
    }
    return out as T;
  } catch {
    return defaults;
  }
}

export function useKept<T>(key: string, defaults: T): [T, (v: T) => void] {
  const [value, setValue] = useState<T>(() => readKept(key, defaults));
  useEffect(() => {
    try {
      globalThis.localStorage?.setItem(PREFIX + key, JSON.stringify(value));
    } catch {
      // A full or disabled storage only loses what was typed.
    }
  }, [key, value]);
  return [value, setValue];
}
