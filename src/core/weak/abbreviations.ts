/**
 * Abbreviations the text defines, read into the weak labels. "chloroacetaldehyde ( CAA )": where
 * a typed weak span ends right before a short form in parentheses, and the short form's letters
 * can be read, in order, out of the words that end in that span (Schwartz & Hearst, "A simple
 * algorithm for identifying abbreviation definitions in biomedical text", 2003), the short form
 * takes the span's type: there, and at every later occurrence of the same token in the defining
 * document, wherever the weak labels say O. A dictionary lists the long forms; the text itself says
 * what its abbreviations stand for, and no dictionary can list those.
 *
 * It runs after the label model, on its output: as one more source beside the dictionary, the HMM
 * learns that it fires where the others are silent and discounts it (bc5cdr core, dev: 590 spans
 * at 91.5 % precision moved the aggregate's F1 by 0.2).
 *
 * Corpora of one sentence a document (a file of lines, CoNLL without -DOCSTART-) keep the text's
 * order but not its documents: `following` lets a definition also hold in that many following
 * documents, and read a long form that ends the document before ("chloroacetaldehyde" ending one
 * line, "( CAA ) is ..." opening the next: bc5cdr's sentence splits do this).
 */
import { z } from 'zod';
import type { Annotation, Span } from '../types';
import { UNKNOWN_TYPE } from '../types';

/** The most following documents a definition may hold in (a setting's bound, checked where it is entered). */
export const MAX_FOLLOWING = 1000;

/** How many following documents a definition also holds in (0: its own document only). */
export const abbreviationOptionsSchema = z.object({ following: z.number().int().min(0).max(MAX_FOLLOWING) }).strict();
export type AbbreviationOptions = z.infer<typeof abbreviationOptionsSchema>;

/** The window as a person types it (the page's field, the CLI's flag): its options, or what is wrong with it (for the caller to name the field). */
export function parseFollowing(text: string): AbbreviationOptions | { error: string } {
  return /^\s*\d{1,4}\s*$/.test(text) && Number(text) <= MAX_FOLLOWING
    ? { following: Number(text) }
    : { error: `a whole number from 0 to ${MAX_FOLLOWING}, not "${text}"` };
}

/** A short form: 2 to 10 letters, digits or hyphens, starting with a letter or digit, at least two capitals ("CAA", "5-FU", "NMBAs"). */
export function isShortForm(token: string): boolean {
  return /^[\p{L}\p{N}][\p{L}\p{N}-]{1,9}$/u.test(token) && /\p{L}/u.test(token) && (token.match(/\p{Lu}/gu)?.length ?? 0) >= 2;
}

/**
 * Where the long form of `short` starts in `long` (words joined by spaces), or -1: each letter or
 * digit of the short form, right to left, found in order right to left in the long form, the first
 * one at the start of a word (Schwartz & Hearst's findBestLongForm).
 */
export function longFormStart(short: string, long: string): number {
  const lower = (c: string) => c.toLowerCase();
  const alnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  let s = short.length - 1;
  let l = long.length - 1;
  while (s >= 0) {
    const c = lower(short[s]);
    if (!alnum(c)) {
      s--;
      continue;
    }
    while (l >= 0 && (lower(long[l]) !== c || (s === 0 && l > 0 && alnum(long[l - 1])))) l--;
    if (l < 0) return -1;
    l--;
    s--;
  }
  return l + 1;
}

interface Definition {
  short: string;
  label: string;
  doc: number;
  /** The short form's token in its document. */
  at: number;
}

/**
 * The weak layer with every defined short form labeled, from its definition on, in its document
 * and the `following` ones, where no span covers it; a later definition of the same short form
 * replaces an earlier one from where it stands. Spans of unknown type define nothing.
 */
export function withAbbreviations(
  docs: readonly { tokens: readonly string[] }[],
  anns: readonly Annotation[],
  opt: AbbreviationOptions,
): { annotations: Annotation[]; added: number } {
  const found = abbreviationSpans(
    docs,
    anns.map((a) => a.spans),
    opt,
  );
  let added = 0;
  const annotations = anns.map((a, d) => {
    const free = found[d].filter((s) => !a.spans.some((x) => x.start < s.end && s.start < x.end));
    added += free.length;
    return free.length ? { ...a, spans: [...a.spans, ...free].sort((x, y) => x.start - y.start) } : a;
  });
  return { annotations, added };
}

/**
 * Every defined short form's occurrences, per document, from its definition on, in its document
 * and the `following` ones. `typed` holds each document's spans that may be long forms (those of
 * unknown type are ignored).
 */
export function abbreviationSpans(docs: readonly { tokens: readonly string[] }[], typed: readonly (readonly Span[])[], opt: AbbreviationOptions): Span[][] {
  const defs: Definition[] = [];
  docs.forEach((doc, d) => {
    const toks = doc.tokens;
    for (let i = 0; i + 2 < toks.length; i++) {
      if (toks[i] !== '(' || toks[i + 2] !== ')' || !isShortForm(toks[i + 1])) continue;
      // The long form ends right before the parenthesis: in this document, or ending the one before.
      const [ld, end] = i > 0 ? [d, i] : opt.following > 0 && d > 0 ? [d - 1, docs[d - 1].tokens.length] : [-1, -1];
      if (ld < 0) continue;
      const match = typed[ld].filter((s) => s.end === end && s.label !== UNKNOWN_TYPE).reduce<Span | null>((a, s) => (!a || s.start < a.start ? s : a), null);
      if (!match) continue;
      // The long form may start a few words before the weak span ("puromycin aminonucleoside" for PAN, the span "aminonucleoside").
      const short = toks[i + 1];
      const words = docs[ld].tokens;
      const reach = Math.max(match.start - Math.min(short.length + 5, 2 * short.length), 0);
      let ok = false;
      for (let from = match.start; from >= reach && !ok; from--) ok = longFormStart(short, words.slice(from, end).join(' ')) >= 0;
      if (ok) defs.push({ short, label: match.label, doc: d, at: i + 1 });
    }
  });
  const out: Span[][] = docs.map(() => []);
  // Definitions in text order; each occurrence takes the nearest definition before it in scope.
  const byShort = new Map<string, Definition[]>();
  for (const def of defs) {
    const list = byShort.get(def.short);
    if (list) list.push(def);
    else byShort.set(def.short, [def]);
  }
  docs.forEach((doc, d) => {
    doc.tokens.forEach((t, j) => {
      const cands = byShort.get(t);
      if (!cands) return;
      let def: Definition | null = null;
      for (const c of cands) if ((c.doc < d || (c.doc === d && c.at <= j)) && d - c.doc <= opt.following) def = c;
      if (def) out[d].push({ start: j, end: j + 1, label: def.label });
    });
  });
  return out;
}
