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
  /**
   * Entries of at most this many characters match only with their own case, whatever `mode` says:
   * the element symbols "Mg" and "P" are not the units and p-values "mg" and "p". Absent: none.
   */
  caseUpTo?: number;
}

/** The longest short entry that may keep its case (GazetteerSpec.caseUpTo). */
export const CASE_UP_TO_MAX = 10;

/**
 * Why a value for "short entries keep their case" cannot be stored, or null when it can: a whole
 * number of characters from 1 to CASE_UP_TO_MAX, or nothing (off).
 */
export function caseUpToProblem(value: number | undefined): string | null {
  if (value === undefined) return null;
  return Number.isInteger(value) && value >= 1 && value <= CASE_UP_TO_MAX
    ? null
    : `short entries keep their case up to a whole number of characters from 1 to ${CASE_UP_TO_MAX}, not ${value}`;
}

/** Whether a phrase is short enough to keep its case under `caseUpTo` (the matcher, the dictionary features and the Gazetteers page agree on it). */
export const keepsItsCase = (phrase: string, caseUpTo: number | undefined): boolean => caseUpTo !== undefined && phrase.length <= caseUpTo;

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

  /** Per entry that keeps its case (`caseUpTo`): its words' ids in the case-sensitive index; null for the others; empty when none does. */
  private readonly exactWords: (Int32Array | null)[];

  /** `exact`: the case-sensitive index of the same documents, which `spec.caseUpTo` needs unless `mode` is sensitive. */
  constructor(
    readonly spec: GazetteerSpec,
    readonly index: TokenIndex,
    readonly exact?: TokenIndex,
  ) {
    if (spec.mode !== index.mode) throw new Error(`gazetteer "${spec.name}" matches ${spec.mode}, the index is ${index.mode}`);
    const keepsCase = spec.caseUpTo !== undefined && spec.mode !== 'sensitive';
    if (keepsCase && (exact?.mode !== 'sensitive' || exact.ids.length !== index.ids.length))
      throw new Error(`gazetteer "${spec.name}": entries that keep their case need the case-sensitive index of the same documents`);
    this.entryType = spec.entries.map((e) => e.type);
    this.exactWords = keepsCase
      ? spec.entries.map((e) => (keepsItsCase(e.phrase, spec.caseUpTo) ? Int32Array.from(e.phrase.split(' '), (w) => exact!.lookup(w)) : null))
      : [];
    // A phrase with a word the corpus lacks can never match it, so it never enters the trie; the
    // rest are looked up without growing the corpus vocabulary.
    const known = new Map<string, number>();
    const phrases: Int32Array[] = [];
    const payloads: number[] = [];
    let totalLength = 0;
    spec.entries.forEach((e, k) => {
      const words = e.phrase.split(' ');
      const ids = new Int32Array(words.length);
      for (let w = 0; w < words.length; w++) {
        let id = known.get(words[w]);
        if (id === undefined) known.set(words[w], (id = index.lookup(words[w])));
        if (id < 0) return;
        ids[w] = id;
      }
      phrases.push(ids);
      payloads.push(k);
      totalLength += ids.length;
    });
    this.trie = new TokenTrie(index.vocab.size, totalLength + 1);
    phrases.forEach((ids, p) => this.trie.insert(ids, payloads[p]));
  }

  /**
   * The longest matches (start, end, node triples) less those of entries that keep their case
   * where the text's case differs; `entries` names, for a match that only some of its node's
   * entries make, those entries (their types are its label: the text "MG" is myasthenia gravis
   * where the list also has magnesium's "Mg").
   */
  private caseKept(raw: Int32Array): { raw: Int32Array; entries: Map<number, number[]> } {
    const entries = new Map<number, number[]>();
    if (!this.exactWords.some((w) => w)) return { raw, entries };
    const ids = this.exact!.ids;
    const out = new Int32Array(raw.length);
    // Per node: its entries, when one of them keeps its case (null: none does, the match stands).
    const exactNodes = new Map<number, number[] | null>();
    let m = 0;
    for (let c = 0; c < raw.length; c += 3) {
      const [s, e, node] = [raw[c], raw[c + 1], raw[c + 2]];
      let all = exactNodes.get(node);
      if (all === undefined) {
        const payloads = this.trie.payloads(node);
        exactNodes.set(node, (all = payloads.some((k) => this.exactWords[k]) ? payloads : null));
      }
      if (!all) {
        out.set(raw.subarray(c, c + 3), 3 * m++);
        continue;
      }
      const made = all.filter((k) => {
        const w = this.exactWords[k];
        return !w || (w.length === e - s && w.every((id, i) => id === ids[s + i]));
      });
      if (!made.length) continue;
      if (made.length < all.length) entries.set(m, made);
      out.set(raw.subarray(c, c + 3), 3 * m++);
    }
    return { raw: out.subarray(0, 3 * m), entries };
  }

  /** The label a trie node stands for (or some of its entries): one type, or ambiguous / untyped as UNKNOWN_TYPE. */
  private labelOf(entries: readonly number[], typeOrder: readonly string[]): Pick<Span, 'label' | 'candidates'> {
    const types = new Set<string>();
    for (const k of entries) {
      const t = this.entryType[k];
      if (t !== null) types.add(t);
    }
    if (types.size === 1) return { label: [...types][0] };
    if (types.size === 0) return { label: UNKNOWN_TYPE };
    const rank = (x: string) => (typeOrder.indexOf(x) + typeOrder.length + 1) % (typeOrder.length + 1);
    return { label: UNKNOWN_TYPE, candidates: [...types].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)) };
  }

  /**
   * Non-overlapping matches per document. The same order as `resolveOverlaps` (longer first, then
   * type order, then earlier start; one gazetteer has one priority), computed on the flat index
   * with a counting sort over (length, type rank) and an occupancy bitmap, so that the cost is
   * linear in the candidates and no object is made for a candidate that loses.
   */
  match(typeOrder: readonly string[]): Span[][] {
    const { raw, entries } = this.caseKept(this.trie.longestMatches(this.index.ids));
    const n = raw.length / 3;
    const labelOfNode = new Map<number | string, number>();
    const labels: Pick<Span, 'label' | 'candidates'>[] = [];
    const labelIx = new Int32Array(n);
    let maxLen = 1;
    for (let c = 0; c < n; c++) {
      const node = raw[3 * c + 2];
      const some = entries.get(c);
      const key = some ? some.join(',') : node;
      let l = labelOfNode.get(key);
      if (l === undefined) {
        labelOfNode.set(key, (l = labels.length));
        labels.push(this.labelOf(some ?? this.trie.payloads(node), typeOrder));
      }
      labelIx[c] = l;
      maxLen = Math.max(maxLen, raw[3 * c + 1] - raw[3 * c]);
    }
    const ranks = typeOrder.length + 1;
    const labelRank = labels.map(({ label }) => {
      const r = typeOrder.indexOf(label);
      return r < 0 ? typeOrder.length : r;
    });
    // Counting sort on key = (maxLen - length) * ranks + rank; stable, so starts stay in order.
    const key = new Int32Array(n);
    const counts = new Int32Array(maxLen * ranks + 1);
    for (let c = 0; c < n; c++) {
      key[c] = (maxLen - (raw[3 * c + 1] - raw[3 * c])) * ranks + labelRank[labelIx[c]];
      counts[key[c] + 1]++;
    }
    for (let k = 1; k < counts.length; k++) counts[k] += counts[k - 1];
    const order = new Int32Array(n);
    for (let c = 0; c < n; c++) order[counts[key[c]]++] = c;
    const taken = new Uint8Array(this.index.ids.length);
    const kept = new Uint8Array(n);
    for (let o = 0; o < n; o++) {
      const c = order[o];
      const s = raw[3 * c];
      const e = raw[3 * c + 1];
      let free = true;
      for (let t = s; t < e && free; t++) free = taken[t] === 0;
      if (!free) continue;
      taken.fill(1, s, e);
      kept[c] = 1;
    }
    const perDoc: Span[][] = Array.from({ length: this.index.docStart.length }, () => []);
    const { docOf, docToken } = this.index;
    for (let c = 0; c < n; c++) {
      if (!kept[c]) continue;
      const s = raw[3 * c];
      const start = docToken[s];
      const { label, candidates } = labels[labelIx[c]];
      const span: Span = { start, end: start + raw[3 * c + 1] - s, label };
      if (candidates) span.candidates = candidates;
      perDoc[docOf[s]].push(span);
    }
    return perDoc;
  }
}
