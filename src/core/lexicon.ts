/**
 * Dictionary features for the model: where a sentence's tokens fall inside a gazetteer match, by
 * type (untyped matches as UNKNOWN_TYPE) and by position (first token of the match, or a later
 * one). Every match counts, overlapping and ambiguous ones too: the model, not a longest-match
 * rule, decides what to make of them. Trained with matches dropped at random (feature dropout), a
 * model uses the dictionary at prediction time and still learns from context.
 */
import { UNKNOWN_TYPE, type Span } from './types';
import { keepsItsCase } from './weak/gazetteerMatcher';
import { normalizeToken, type CaseMode } from './weak/normalize';
import { compileRule, type Rule } from './weak/rules';

export interface LexiconEntry {
  words: readonly string[];
  /** null for an untyped phrase (an entity of unknown type). */
  type: string | null;
  /**
   * How far a match of it can be trusted, in [0, 1] (entryReliability): its matches' feature value
   * in place of 1. Absent: 1.
   */
  reliability?: number;
}

/** One gazetteer's entries and the case mode it matches in. */
export interface LexiconSource {
  mode: CaseMode;
  entries: readonly LexiconEntry[];
  /** Entries of at most this many characters match only in their own case, as in the weak labels (GazetteerSpec.caseUpTo). */
  caseUpTo?: number;
  /**
   * The source's reliability per type (UNKNOWN_TYPE for its untyped entries), as the label model
   * estimates it (core/weak/reliability.ts): the value of its matches where an entry has none of its own.
   */
  reliability?: Readonly<Record<string, number>>;
}

/**
 * Dictionaries as model input: their types (UNKNOWN_TYPE last when some phrase is untyped), their
 * sources, and the project's rules, whose matches count as matches of their label.
 */
export interface Lexicon {
  types: string[];
  sources: readonly LexiconSource[];
  rules?: readonly Rule[];
  /**
   * Phrases that are no entity (the project's stop lists): no source's or rule's match of exactly
   * these words, as the weak labeler leaves them out of the aggregation (withoutStopped).
   */
  stop?: readonly string[];
  /** Per rule name, its reliability as the label model estimates it: the value of its matches (absent: 1). */
  ruleReliability?: Readonly<Record<string, number>>;
}

/** One match in a sentence: tokens [start, end) and the index of its type in `Lexicon.types`. */
export interface LexiconMatch {
  start: number;
  end: number;
  type: number;
  /** The feature's value (its entry's reliability); absent: 1. */
  value?: number;
}

/** Features per token: for each type, "first token of a match" and "later token of a match". */
export const lexiconDims = (types: readonly string[]): number => 2 * types.length;

/** The lexicon of gazetteers' typed and untyped entries (and rules), its types sorted with the unknown type last. */
export function makeLexicon(
  sources: readonly LexiconSource[],
  rules: readonly Rule[] = [],
  stop: readonly string[] = [],
  ruleReliability?: Readonly<Record<string, number>>,
): Lexicon {
  const all = sources.flatMap((s) => s.entries);
  const typed = [...new Set([...all.map((e) => e.type).filter((t): t is string => t !== null), ...rules.map((r) => r.label)])].sort();
  const types = all.some((e) => e.type === null) ? [...typed, UNKNOWN_TYPE] : typed;
  return { types, sources, ...(rules.length ? { rules } : {}), ...(stop.length ? { stop } : {}), ...(ruleReliability ? { ruleReliability } : {}) };
}

/** The entries the lexicon's features read (an aligned lexicon's left-out types not counted). */
export function lexiconSize(lex: Lexicon): number {
  const types = new Set(lex.types);
  return lex.sources.reduce((a, s) => a + s.entries.filter((e) => types.has(e.type ?? UNKNOWN_TYPE)).length, 0);
}

/**
 * A lexicon read through a trained model's dictionary groups (`types`, in the model's order), as a
 * review-loop fine-tune must: matches of a type the model has no group for are left out (`left`),
 * and a group whose type the lexicon lost stays silent, so a gazetteer that gained or lost a type
 * since the model trained (the editor's "add to gazetteer") still fits the model's input.
 */
export function alignedLexicon(lex: Lexicon, types: readonly string[]): { lexicon: Lexicon; left: string[] } {
  const keep = new Set(types);
  return { lexicon: { ...lex, types: [...types] }, left: lex.types.filter((t) => !keep.has(t)) };
}

interface Node {
  next: Map<string, Node>;
  /** Type indices of the entries that end here. */
  ends: number[];
  /** The reliability of the entry of each type in `ends` (the highest, where sources repeat one); absent: all 1. */
  values?: number[];
}

/** A matcher for one lexicon: every (start, end, type) whose words form an entry of some source. */
export function lexiconMatcher(lex: Lexicon): (words: readonly string[]) => LexiconMatch[] {
  const typeIndex = new Map(lex.types.map((t, k) => [t, k]));
  // A source whose short entries keep their case matches as two: those entries case-sensitively, the rest in its mode.
  const parts = lex.sources.flatMap((source): LexiconSource[] => {
    const up = source.caseUpTo;
    if (up === undefined || source.mode === 'sensitive') return [source];
    const short = (e: LexiconEntry) => keepsItsCase(e.words.join(' '), up);
    const reliability = source.reliability ? { reliability: source.reliability } : {};
    return [
      { mode: source.mode, entries: source.entries.filter((e) => !short(e)), ...reliability },
      { mode: 'sensitive', entries: source.entries.filter(short), ...reliability },
    ];
  });
  const tries = parts.map((source) => {
    const root: Node = { next: new Map(), ends: [] };
    for (const e of source.entries) {
      if (!e.words.length) continue;
      let node = root;
      for (const w of e.words) {
        const key = normalizeToken(w, source.mode);
        let child = node.next.get(key);
        if (!child) node.next.set(key, (child = { next: new Map(), ends: [] }));
        node = child;
      }
      const type = typeIndex.get(e.type ?? UNKNOWN_TYPE);
      // A lexicon aligned to a trained model's groups (alignedLexicon) has no index for some types.
      if (type === undefined) continue;
      const value = e.reliability ?? source.reliability?.[e.type ?? UNKNOWN_TYPE] ?? 1;
      const at = node.ends.indexOf(type);
      if (at < 0) {
        node.ends.push(type);
        if (value !== 1 || node.values) (node.values ??= node.ends.map(() => 1))[node.ends.length - 1] = value;
      } else if (node.values) node.values[at] = Math.max(node.values[at], value);
    }
    return { root, mode: source.mode };
  });
  // Rules run on the sentence as a document of its own (tokens joined by spaces); their budget
  // covers a whole corpus's sentences, not one labeling run's documents.
  const rules = (lex.rules ?? [])
    .filter((r) => typeIndex.has(r.label))
    .map((r) => ({ label: compileRule(r, 600_000), type: typeIndex.get(r.label)!, value: lex.ruleReliability?.[r.name] ?? 1 }));
  const stop = lex.stop?.length ? new Set(lex.stop) : null;
  // One trie gives each (start, end, type) once; only several sources or rules can repeat one.
  const repeats = tries.length > 1 || rules.length > 0;
  return (words) => {
    const out: LexiconMatch[] = [];
    const seen = repeats ? new Map<string, number>() : null;
    if (rules.length) {
      const offsets: number[] = [];
      let at = 0;
      for (const w of words) {
        offsets.push(at, at + w.length);
        at += w.length + 1;
      }
      const doc = { text: words.join(' '), offsets, tokens: words, sentenceStarts: [0] };
      for (const r of rules) for (const x of r.label(doc)) addMatch(out, seen, x.start, x.end, r.type, r.value);
    }
    for (const { root, mode } of tries) {
      const forms = words.map((w) => normalizeToken(w, mode));
      for (let i = 0; i < forms.length; i++) {
        let node = root.next.get(forms[i]);
        for (let j = i + 1; node; j++) {
          for (let k = 0; k < node.ends.length; k++) {
            addMatch(out, seen, i, j, node.ends[k], node.values?.[k] ?? 1);
          }
          if (j >= forms.length) break;
          node = node.next.get(forms[j]);
        }
      }
    }
    const kept = stop ? out.filter((m) => !stop.has(words.slice(m.start, m.end).join(' '))) : out;
    return kept.sort((a, b) => a.start - b.start || a.end - b.end || a.type - b.type);
  };
}

/**
 * Adds a match to a sentence's list. Where several sources or rules can give the same match
 * (`seen`, by "start,end,type": its place in `out`), it is one feature, valued by the most
 * reliable of them; one trie gives each match once, and passes no `seen`.
 */
function addMatch(out: LexiconMatch[], seen: Map<string, number> | null, start: number, end: number, type: number, value: number): void {
  if (!seen) {
    out.push(matchOf(start, end, type, value));
    return;
  }
  const key = `${start},${end},${type}`;
  const at = seen.get(key);
  if (at === undefined) {
    seen.set(key, out.length);
    out.push(matchOf(start, end, type, value));
  } else if (value > (out[at].value ?? 1)) out[at] = matchOf(start, end, type, value);
}

/** A match, its value left out where it is 1. */
const matchOf = (start: number, end: number, type: number, value: number): LexiconMatch => (value === 1 ? { start, end, type } : { start, end, type, value });

/**
 * A dictionary made from labeled sentences: their distinct typed entity strings (a string labeled
 * with two types is an entry of each). The distant settings' dictionary: what the distant labels
 * matched in the training sentences, nothing from dev or test.
 */
export function lexiconFromSpans(
  sentences: readonly { words: readonly string[]; spans: readonly { start: number; end: number; label: string }[] }[],
): LexiconEntry[] {
  const seen = new Map<string, LexiconEntry>();
  for (const s of sentences) {
    for (const x of s.spans) {
      if (x.label === UNKNOWN_TYPE) continue;
      const words = s.words.slice(x.start, x.end);
      const key = `${x.label}\t${words.join(' ')}`;
      if (!seen.has(key)) seen.set(key, { words, type: x.label });
    }
  }
  return [...seen.values()];
}

/**
 * Each entry's reliability on labeled sentences (issue 45's weak-label precision): of the times its
 * words occur in them (case-sensitively, anywhere, labeled or not), the share labeled as its type
 * there. A distant dictionary's entry that its labels matched once in ten occurrences ("May", a
 * person 1 time in 10) then reads as a weak feature, one matched wherever it occurs as a strong one.
 */
export function entryReliability(
  entries: readonly LexiconEntry[],
  sentences: readonly { words: readonly string[]; spans: readonly { start: number; end: number; label: string }[] }[],
): LexiconEntry[] {
  // Where the entries' words occur: the dictionary's own matcher, case-sensitive, each place once whatever its types.
  const match = lexiconMatcher(makeLexicon([{ mode: 'sensitive', entries }]));
  const occurs = new Map<string, number>();
  const labeled = new Map<string, number>();
  const count = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
  for (const s of sentences) {
    const places = new Set(match(s.words).map((m) => `${m.start},${m.end}`));
    for (const at of places) {
      const [a, b] = at.split(',').map(Number);
      count(occurs, s.words.slice(a, b).join(' '));
    }
    for (const x of s.spans) count(labeled, `${x.label}\t${s.words.slice(x.start, x.end).join(' ')}`);
  }
  return entries.map((e) => {
    const phrase = e.words.join(' ');
    const n = occurs.get(phrase) ?? 0;
    const hits = labeled.get(`${e.type ?? UNKNOWN_TYPE}\t${phrase}`) ?? 0;
    return { ...e, reliability: n > 0 ? Math.min(1, hits / n) : 1 };
  });
}

/**
 * A sentence's weak-label spans as feature matches (model.weakFeatures): the spans of a document's
 * annotation inside the sentence's tokens [offset, offset + length), each as a match of its type's
 * feature group `base + k` (k: the type's index in `types`); untyped and unknown spans are skipped.
 */
export function spanMatches(spans: readonly Span[], offset: number, length: number, types: readonly string[], base: number): LexiconMatch[] {
  const out: LexiconMatch[] = [];
  for (const s of spans) {
    const k = types.indexOf(s.label);
    if (k < 0 || s.start < offset || s.end > offset + length) continue;
    out.push({ start: s.start - offset, end: s.end - offset, type: base + k });
  }
  return out;
}

/**
 * Sentences with spans added as feature matches (spanMatches): `spansOf` gives a sentence's spans
 * and the offset they count from (a document's annotation and the sentence's offset in it, or the
 * sentence's own spans and 0). The weak labels as features, and a starter model's predictions.
 */
export function withSpanMatches<T extends { words: readonly string[]; lex?: readonly LexiconMatch[] }>(
  xs: readonly T[],
  spansOf: (x: T, i: number) => { spans: readonly Span[]; offset: number },
  types: readonly string[],
  base: number,
): T[] {
  return xs.map((x, i) => {
    const { spans, offset } = spansOf(x, i);
    return { ...x, lex: [...(x.lex ?? []), ...spanMatches(spans, offset, x.words.length, types, base)] };
  });
}

/** The feature groups of the weak labels' types, after the dictionary's. */
export const weakFeatureTypes = (types: readonly string[]): string[] => types.map((t) => `weak label: ${t}`);
