import type { GazetteerEntry } from '../formats/gazetteer';
import type { Span } from '../types';
import { UNKNOWN_TYPE } from '../types';
import type { CaseMode } from './normalize';
import type { TokenIndex } from './tokenIndex';
import { TokenTrie } from './trie';

export interface GazetteerSpec {
  name: string;
  mode: CaseMode;
  /** Lower numbers win ties between gazetteers. */
  priority: number;
  entries: readonly GazetteerEntry[];
}

/** A span found by one source, in flat TokenIndex positions until mapped back to documents. */
export interface SourceSpan extends Span {
  doc: number;
  priority: number;
}

/**
 * Overlap resolution by the stated priority: longer first, then lower source priority, then type
 * order, then earlier start. Greedy over an occupancy map; returns the kept spans in input order
 * of documents and positions.
 */
export function resolveOverlaps<T extends SourceSpan>(spans: readonly T[], typeOrder: readonly string[]): T[] {
  const rank = (label: string) => {
    const r = typeOrder.indexOf(label);
    return r < 0 ? typeOrder.length : r;
  };
  const sorted = [...spans].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || a.priority - b.priority || rank(a.label) - rank(b.label) || a.doc - b.doc || a.start - b.start,
  );
  const taken = new Map<number, Set<number>>();
  const kept: T[] = [];
  for (const s of sorted) {
    let occ = taken.get(s.doc);
    if (!occ) taken.set(s.doc, (occ = new Set()));
    let free = true;
    for (let t = s.start; t < s.end && free; t++) free = !occ.has(t);
    if (!free) continue;
    for (let t = s.start; t < s.end; t++) occ.add(t);
    kept.push(s);
  }
  return kept.sort((a, b) => a.doc - b.doc || a.start - b.start);
}

/** One gazetteer compiled against a corpus index of the same case mode. */
export class GazetteerMatcher {
  readonly trie: TokenTrie;
  /** Per entry: its type (null when untyped). */
  private readonly entryType: (string | null)[];

  constructor(
    readonly spec: GazetteerSpec,
    readonly index: TokenIndex,
  ) {
    if (spec.mode !== index.mode) throw new Error(`gazetteer "${spec.name}" matches ${spec.mode}, the index is ${index.mode}`);
    this.trie = new TokenTrie(index.vocab.size, spec.entries.length * 2);
    this.entryType = spec.entries.map((e) => e.type);
    spec.entries.forEach((e, k) => this.trie.insert(e.phrase.split(' ').map((t) => index.intern(t)), k));
  }

  /** The label a trie node stands for: one type, or ambiguous / untyped as UNKNOWN_TYPE. */
  private labelOf(node: number, typeOrder: readonly string[]): Pick<Span, 'label' | 'candidates'> {
    const types = new Set<string>();
    for (const k of this.trie.payloads(node)) {
      const t = this.entryType[k];
      if (t !== null) types.add(t);
    }
    if (types.size === 1) return { label: [...types][0] };
    if (types.size === 0) return { label: UNKNOWN_TYPE };
    const rank = (x: string) => (typeOrder.indexOf(x) + typeOrder.length + 1) % (typeOrder.length + 1);
    return { label: UNKNOWN_TYPE, candidates: [...types].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)) };
  }

  /** Longest match at each start, before overlap resolution, in document coordinates. */
  candidates(typeOrder: readonly string[]): SourceSpan[] {
    const raw = this.trie.longestMatches(this.index.ids);
    const out: SourceSpan[] = [];
    const labels = new Map<number, Pick<Span, 'label' | 'candidates'>>();
    for (let m = 0; m < raw.length; m += 3) {
      const [s, e, node] = [raw[m], raw[m + 1], raw[m + 2]];
      let lab = labels.get(node);
      if (!lab) labels.set(node, (lab = this.labelOf(node, typeOrder)));
      const start = this.index.docToken[s];
      out.push({ doc: this.index.docOf[s], start, end: start + (e - s), priority: this.spec.priority, ...lab });
    }
    return out;
  }

  /** Non-overlapping matches per document. */
  match(typeOrder: readonly string[]): Span[][] {
    const perDoc: Span[][] = Array.from({ length: this.index.docStart.length }, () => []);
    for (const s of resolveOverlaps(this.candidates(typeOrder), typeOrder)) {
      const { doc, priority: _p, ...span } = s;
      perDoc[doc].push(span);
    }
    return perDoc;
  }
}
