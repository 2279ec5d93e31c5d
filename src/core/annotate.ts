/**
 * The annotation editor's state and operations, free of any view: spans over tokens, the tokens
 * marked definitely O by review, and undo / redo. Every operation returns a new state.
 */
import type { Span } from './types';

export interface EditState {
  spans: Span[];
  /** Tokens a reviewer marked as definitely O (the rest outside spans are "no decision"). */
  oTokens: number[];
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;
const sorted = (spans: Span[]) => [...spans].sort((a, b) => a.start - b.start);

/** Labels [start, end) with a type, replacing every span it overlaps; its tokens stop being O. */
export function labelSpan(s: EditState, start: number, end: number, label: string): EditState {
  const span = { start, end, label };
  return { spans: sorted([...s.spans.filter((x) => !overlaps(x, span)), span]), oTokens: s.oTokens.filter((t) => t < start || t >= end) };
}

/** Removes the span covering a token (nothing when none does). */
export function removeAt(s: EditState, token: number): EditState {
  return { ...s, spans: s.spans.filter((x) => !(x.start <= token && token < x.end)) };
}

/** Marks a sentence reviewed: its tokens outside spans become definitely O. */
export function markReviewed(s: EditState, from: number, to: number): EditState {
  const inSpan = new Set(s.spans.flatMap((x) => Array.from({ length: x.end - x.start }, (_, i) => x.start + i)));
  const o = new Set(s.oTokens);
  for (let t = from; t < to; t++) if (!inSpan.has(t)) o.add(t);
  return { ...s, oTokens: [...o].sort((a, b) => a - b) };
}

/**
 * A decision on a whole sentence [from, to): its spans become `spans` (those inside it), and it is
 * marked reviewed. The review queue's accept (the run's labels) and keep (the weak labels).
 */
export function decideSentence(s: EditState, from: number, to: number, spans: readonly Span[]): EditState {
  const inside = spans.filter((x) => x.start >= from && x.end <= to);
  const kept = s.spans.filter((x) => x.end <= from || x.start >= to);
  const cleared = { spans: sorted([...kept, ...inside]), oTokens: s.oTokens.filter((t) => t < from || t >= to) };
  return markReviewed(cleared, from, to);
}

/** Undo and redo over whole states. */
export class History {
  private past: EditState[] = [];
  private future: EditState[] = [];

  constructor(public state: EditState) {}

  apply(next: EditState): EditState {
    this.past.push(this.state);
    this.future = [];
    return (this.state = next);
  }

  undo(): EditState {
    const prev = this.past.pop();
    if (prev) {
      this.future.push(this.state);
      this.state = prev;
    }
    return this.state;
  }

  redo(): EditState {
    const next = this.future.pop();
    if (next) {
      this.past.push(this.state);
      this.state = next;
    }
    return this.state;
  }

  get canUndo(): boolean {
    return this.past.length > 0;
  }

  /** How many states undo can go back through: a bulk change remembers it, to know it is still the last. */
  get depth(): number {
    return this.past.length;
  }
}

/**
 * A training document's labels where an annotator corrected some of its sentences: a sentence the
 * strong row settles (every sentence of a complete row, a reviewed one of a partial row) takes the
 * strong row's spans and counts as strong; every other sentence keeps the weak spans and stays
 * weak. `strongStarts` are the start tokens of the strong sentences.
 */
export function mergeCorrections(
  weak: readonly Span[],
  strong: { spans: readonly Span[]; oMode?: 'complete' | 'partial'; reviewedAt?: Record<number, number> } | undefined,
  sentences: readonly (readonly [number, number])[],
): { spans: Span[]; strongStarts: Set<number> } {
  if (!strong) return { spans: [...weak], strongStarts: new Set() };
  const settled = sentences.filter(([a]) => strong.oMode !== 'partial' || strong.reviewedAt?.[a] !== undefined);
  const inSettled = (x: Span) => settled.some(([a, b]) => x.start < b && a < x.end);
  return {
    spans: sorted([...weak.filter((x) => !inSettled(x)), ...strong.spans.filter(inSettled)]),
    strongStarts: new Set(settled.map(([a]) => a)),
  };
}

/** Where a token sequence occurs in documents (exact, case-sensitive), in document order. */
export function findOccurrences(
  docs: readonly { docId: number; words: readonly string[] }[],
  phrase: readonly string[],
): { docId: number; start: number; end: number }[] {
  const out: { docId: number; start: number; end: number }[] = [];
  const L = phrase.length;
  if (!L) return out;
  for (const d of docs)
    for (let a = 0; a + L <= d.words.length; a++) {
      let hit = true;
      for (let j = 0; j < L && hit; j++) hit = d.words[a + j] === phrase[j];
      if (hit) {
        out.push({ docId: d.docId, start: a, end: a + L });
        a += L - 1;
      }
    }
  return out;
}

/** Labels every given occurrence in a document's state (each replacing what it overlaps). */
export function labelOccurrences(s: EditState, occurrences: readonly { start: number; end: number }[], label: string): EditState {
  return occurrences.reduce((st, o) => labelSpan(st, o.start, o.end, label), s);
}
