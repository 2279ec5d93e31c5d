/**
 * Searching a project's documents for a word or phrase: the tokens of the query, matched as a
 * token sequence, case-insensitively, in every document (the query worker runs it, off the page).
 */
import { findOccurrences } from '../core/annotate';
import { tokenTexts } from '../core/types';
import type { StudioDB } from './schema';

export interface SearchMatch {
  docId: number;
  name: string;
  split: string;
  start: number;
  end: number;
  /** Up to six tokens either side, and the match itself: text, never HTML. */
  before: string;
  match: string;
  after: string;
}

/** How many matches a search lists; the count covers them all. */
export const SEARCH_LIMIT = 200;

export async function searchDocuments(db: StudioDB, projectId: number, query: string): Promise<{ total: number; documents: number; matches: SearchMatch[] }> {
  const q = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!q.length) return { total: 0, documents: 0, matches: [] };
  let total = 0;
  const docs = new Set<number>();
  const matches: SearchMatch[] = [];
  await db.documents
    .where('projectId')
    .equals(projectId)
    .each((d) => {
      const words = tokenTexts(d);
      for (let a = 0; a + q.length <= words.length; a++) {
        let hit = true;
        for (let j = 0; j < q.length && hit; j++) hit = words[a + j].toLowerCase() === q[j];
        if (!hit) continue;
        total++;
        docs.add(d.id!);
        if (matches.length < SEARCH_LIMIT)
          matches.push({
            docId: d.id!,
            name: d.name,
            split: d.split,
            start: a,
            end: a + q.length,
            before: words.slice(Math.max(0, a - 6), a).join(' '),
            match: words.slice(a, a + q.length).join(' '),
            after: words.slice(a + q.length, a + q.length + 6).join(' '),
          });
        a += q.length - 1;
      }
    });
  matches.sort((x, y) => x.docId - y.docId || x.start - y.start);
  return { total, documents: docs.size, matches };
}

/** Where a phrase occurs in the other documents, for "apply to all occurrences": each with its split, its document's name and a few words around it. */
export interface Occurrence {
  docId: number;
  start: number;
  end: number;
  split: string;
  name: string;
  context: string;
}

/**
 * Every occurrence of `words` (whole tokens, as typed) in a project: those in `docId`, and those
 * elsewhere with their context. Runs in the query worker: it reads every document.
 */
export async function occurrencesOf(
  db: StudioDB,
  projectId: number,
  docId: number,
  words: readonly string[],
): Promise<{ here: { start: number; end: number }[]; others: Occurrence[] }> {
  const docs = await db.documents.where('projectId').equals(projectId).sortBy('id');
  const toks = new Map(docs.map((d) => [d.id!, tokenTexts(d)]));
  const found = findOccurrences(
    docs.map((d) => ({ docId: d.id!, words: toks.get(d.id!)! })),
    [...words],
  );
  const byId = new Map(docs.map((d) => [d.id!, d]));
  return {
    here: found.filter((o) => o.docId === docId).map(({ start, end }) => ({ start, end })),
    others: found
      .filter((o) => o.docId !== docId)
      .map((o) => {
        const w = toks.get(o.docId)!;
        const context = [...w.slice(Math.max(0, o.start - 5), o.start), '[', ...w.slice(o.start, o.end), ']', ...w.slice(o.end, o.end + 5)].join(' ');
        return { ...o, split: byId.get(o.docId)!.split, name: byId.get(o.docId)!.name, context };
      }),
  };
}
