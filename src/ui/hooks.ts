import { useLiveQuery } from 'dexie-react-hooks';
import { createContext, useContext } from 'react';
import { db } from '../db/instance';
import type { ProjectRow } from '../db/schema';
import { readFileText } from '../core/formats/text';

/** The project whose pages are shown; set by ProjectLayout from the route. */
export const ProjectContext = createContext<number>(NaN);

/**
 * A record id from a route segment: a positive whole number, or -1 (a key no record has) for
 * anything else ("null", "abc"), so that a bad link shows the page's "does not exist" message
 * instead of an IndexedDB DataError.
 */
export function routeId(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && /^\d+$/.test(raw) && Number.isSafeInteger(n) && n > 0 ? n : -1;
}

export function useProjectId(): number {
  return useContext(ProjectContext);
}

export function useProject(projectId: number): ProjectRow | undefined | null {
  return useLiveQuery(async () => (await db.projects.get(projectId)) ?? null, [projectId]);
}

export function useTypeColors(projectId: number): Map<string, string> {
  const p = useProject(projectId);
  return new Map((p?.types ?? []).map((t) => [t.name, t.color]));
}

/** Reads a File as UTF-8 text (decodeText: its byte-order mark dropped, another encoding an error naming the file and line). */
export const readText = readFileText;

export function download(name: string, content: string | Blob, type = 'text/plain'): void {
  const url = URL.createObjectURL(typeof content === 'string' ? new Blob([content], { type }) : content);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const pct = (x: number | undefined) => (x === undefined ? '–' : (100 * x).toFixed(1));

export { toCsv } from '../core/formats/csv';

/** "1 document", "2,481 documents": a count and its noun, in the singular for one. */
export const count = (n: number, noun: string, plural = `${noun}s`): string => `${n.toLocaleString()} ${n === 1 ? noun : plural}`;
