import type { Span, TagScheme } from './types';
import { UNKNOWN_TYPE } from './types';

/** Splits "B-PER" into ["B", "PER"]; "O" into ["O", ""]. Returns null for a malformed tag. */
export function parseTag(tag: string): [string, string] | null {
  if (tag === 'O') return ['O', ''];
  const m = /^([BIESU])[-_](.+)$/.exec(tag);
  if (!m) return null;
  return [m[1] === 'U' ? 'S' : m[1], m[2]];
}

// conlleval's chunk boundaries (Sang and Buchholz): one decoder reads BIO, IOB1, BIOES and IO
// alike, which is what makes the span metric agree with the published scorer.
function endOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === 'E' || prevTag === 'S') return true;
  if ((prevTag === 'B' || prevTag === 'I') && (tag === 'B' || tag === 'S' || tag === 'O')) return true;
  return prevTag !== 'O' && prevType !== type;
}

function startOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === 'B' || tag === 'S') return true;
  if ((prevTag === 'E' || prevTag === 'S' || prevTag === 'O') && (tag === 'E' || tag === 'I')) return true;
  return tag !== 'O' && prevType !== type;
}

/**
 * Tags to spans with conlleval chunking. `offset` shifts token indices (a sentence inside a
 * document). Throws on a malformed tag, naming its position.
 */
export function tagsToSpans(tags: readonly string[], offset = 0): Span[] {
  const spans: Span[] = [];
  let prevTag = 'O';
  let prevType = '';
  let start = -1;
  for (let i = 0; i <= tags.length; i++) {
    let tag = 'O';
    let type = '';
    if (i < tags.length) {
      const parsed = parseTag(tags[i]);
      if (!parsed) throw new Error(`token ${i + 1}: malformed tag "${tags[i]}"`);
      [tag, type] = parsed;
    }
    if (start >= 0 && endOfChunk(prevTag, tag, prevType, type)) {
      spans.push({ start: start + offset, end: i + offset, label: prevType });
      start = -1;
    }
    if (i < tags.length && startOfChunk(prevTag, tag, prevType, type)) start = i;
    prevTag = tag;
    prevType = type;
  }
  return spans;
}

/**
 * Spans to tags in a scheme, over tokens [from, to). Spans must not overlap. IO cannot tell two
 * adjacent entities of one type apart: they come back as one span.
 */
export function spansToTags(spans: readonly Span[], from: number, to: number, scheme: TagScheme): string[] {
  const tags = new Array<string>(to - from).fill('O');
  const sorted = [...spans].filter((s) => s.start >= from && s.end <= to).sort((a, b) => a.start - b.start);
  let prevEnd = -1;
  let prevLabel = '';
  for (const sp of sorted) {
    const label = sp.label || UNKNOWN_TYPE;
    const len = sp.end - sp.start;
    for (let t = sp.start; t < sp.end; t++) {
      const k = t - from;
      const first = t === sp.start;
      const last = t === sp.end - 1;
      switch (scheme) {
        case 'BIO':
          tags[k] = `${first ? 'B' : 'I'}-${label}`;
          break;
        case 'IO':
          tags[k] = `I-${label}`;
          break;
        case 'IOB1':
          tags[k] = `${first && prevEnd === sp.start && prevLabel === label ? 'B' : 'I'}-${label}`;
          break;
        case 'BIOES':
          tags[k] = `${len === 1 ? 'S' : first ? 'B' : last ? 'E' : 'I'}-${label}`;
          break;
      }
    }
    prevEnd = sp.end;
    prevLabel = label;
  }
  return tags;
}

/** Checks a tag sequence against a scheme's own grammar; returns the first offending index, or -1. */
export function firstSchemeViolation(tags: readonly string[], scheme: TagScheme): number {
  const allowed: Record<TagScheme, string> = { BIO: 'BIO', IOB1: 'BIO', BIOES: 'BIESO', IO: 'IO' };
  for (let i = 0; i < tags.length; i++) {
    const p = parseTag(tags[i]);
    if (!p || !allowed[scheme].includes(p[0])) return i;
  }
  return -1;
}
