/**
 * The simulated annotator's arithmetic (`studio simulate-review`): which training sentences a
 * budget of corrections goes to, under each ranking signal, random and the oracle; what a
 * correction changes; and how a correction travels to the other occurrences of the same words
 * (the editor's "apply to all occurrences" and "add to the stop list") and into the dictionary
 * ("add to gazetteer"). Sentences are tag-id rows over one tag set (BIO); nothing here trains or
 * reads files.
 */
import { alignedLexicon, type Lexicon } from './lexicon';
import { mulberry32 } from './random';
import { type QueueDoc, rankSentences, type ReviewSignal, uncertaintyOf } from './reviewSignals';
import type { Span } from './types';

/** A sentence the annotator may correct: its words, its weak tags and the gold tags the annotator knows. */
export interface PoolSentence {
  words: readonly string[];
  weak: readonly number[];
  gold: readonly number[];
  /** The spans of each weak source the weak tags aggregate (a dictionary setting's gazetteers and rules), in the sentence's coordinates. */
  sources?: readonly { name: string; spans: readonly Span[] }[];
}

/** The tokens whose weak tag differs from gold: the oracle ranks by it, and a sentence with one has a label error. */
export function tokenErrors(s: Pick<PoolSentence, 'weak' | 'gold'>): number {
  let n = 0;
  for (let t = 0; t < s.weak.length; t++) if (s.weak[t] !== s.gold[t]) n++;
  return n;
}

/** The number of sentences a budget fraction of the pool buys (at least one). */
export function budgetCount(poolSize: number, fraction: number): number {
  return Math.max(1, Math.round(poolSize * fraction));
}

/** A fold index (0..k−1) per sentence, as even as can be, the same for a seed. */
export function foldsOf(n: number, k: number, seed: number): number[] {
  const rand = mulberry32(seed * 7_477 + 11);
  const order = Array.from({ length: n }, (_, i) => [rand(), i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(n);
  order.forEach(([, i], r) => (out[i] = r % k));
  return out;
}

/**
 * How much a model doubts a sentence's weak tags: Σ over tokens of 1 − p(weak tag), from its
 * marginals ([T·K], row per token). From a model that did not train on the sentence (a
 * cross-fitted fold), this is the expected number of weak-tag errors as that model sees them.
 */
export function doubt(marginals: Float32Array, weak: readonly number[], K: number): number {
  let d = 0;
  for (let t = 0; t < weak.length; t++) d += 1 - marginals[t * K + weak[t]];
  return d;
}

/**
 * Σ over tokens of 1 − the largest marginal: how unsure a model is of the sentence, whatever its
 * weak tags. Read from `uncertaintyOf`, the values the studio stores, so it sums as the queue's
 * uncertainty-sum does.
 */
export function uncertaintySum(marginals: Float32Array, K: number): number {
  return uncertaintyOf(marginals, K).reduce((a, u) => a + u, 0);
}

/**
 * The largest over tokens of 1 − the largest marginal: how unsure a model is of its least sure
 * token. The studio's review queue ranks by it (reviewSignals.ts uncertaintySignal, `score: 'max'`).
 */
export function uncertaintyMax(marginals: Float32Array, K: number): number {
  return uncertaintyOf(marginals, K).reduce((a, u) => Math.max(a, u), 0);
}

/** Tokens where a decoded path differs from the weak tags. */
export function disagreement(path: readonly number[], weak: readonly number[]): number {
  let n = 0;
  for (let t = 0; t < weak.length; t++) if (path[t] !== weak[t]) n++;
  return n;
}

/** Sentence indices by score, highest first; ties in a seeded random order (so equal scores are not taken in corpus order). */
export function rankBy(scores: readonly number[], seed: number): number[] {
  const rand = mulberry32(seed * 3_571 + 5);
  const tie = scores.map(() => rand());
  return scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || tie[a] - tie[b]);
}

/** A seeded random order: the random annotator's. */
export function randomOrder(n: number, seed: number): number[] {
  return rankBy(new Array<number>(n).fill(0), seed * 31 + 1);
}

/** Rankings combined by their mean position (Borda); ties by the first ranking. */
export function combineRanks(rankings: readonly (readonly number[])[]): number[] {
  const n = rankings[0].length;
  const pos = new Float64Array(n);
  for (const r of rankings) r.forEach((i, p) => (pos[i] += p / rankings.length));
  const first = new Float64Array(n);
  rankings[0].forEach((i, p) => (first[i] = p));
  return Array.from({ length: n }, (_, i) => i).sort((a, b) => pos[a] - pos[b] || first[a] - first[b]);
}

/** The share of the chosen sentences whose weak tags had an error: the queue's precision. */
export function precisionOf(pool: readonly PoolSentence[], chosen: readonly number[]): number {
  return chosen.length ? chosen.filter((i) => tokenErrors(pool[i]) > 0).length / chosen.length : 0;
}

/**
 * The pool in the order the studio's review queue puts it under `signal` (core/reviewSignals.ts
 * rankSentences), each sentence a document with its weak spans, the model's decoded spans
 * (`paths`) and the uncertainty the run stores (1 − the largest marginal); the sentences the
 * signal leaves out follow in a seeded random order. The simulated annotator's `reach-studio`.
 */
export function queueOrder(
  pool: readonly PoolSentence[],
  marginals: readonly Float32Array[],
  paths: readonly (readonly number[])[],
  names: readonly string[],
  signal: ReviewSignal,
  seed: number,
): number[] {
  const spans = (ids: readonly number[]) => spansOfIds(ids, names).map((x) => ({ start: x.start, end: x.end, label: x.type }));
  const docs: QueueDoc[] = pool.map((p, i) => ({
    docId: i,
    name: '',
    words: p.words,
    sentences: [[0, p.words.length]],
    weak: spans(p.weak),
    predicted: spans(paths[i]),
    signals: { uncertainty: uncertaintyOf(marginals[i], names.length) },
    ...(p.sources ? { sources: p.sources } : {}),
  }));
  const ranked = rankSentences(docs, signal).map((e) => e.docId);
  const seen = new Set(ranked);
  return [...ranked, ...randomOrder(pool.length, seed).filter((i) => !seen.has(i))];
}

/** A span of tag ids: [start, end) and its type. */
interface IdSpan {
  start: number;
  end: number;
  type: string;
}

/** The spans of a BIO tag-id row (an I- after O or after another type opens a span, as conlleval reads it). */
export function spansOfIds(tags: readonly number[], names: readonly string[]): IdSpan[] {
  const out: IdSpan[] = [];
  let open: IdSpan | null = null;
  tags.forEach((id, t) => {
    const name = names[id];
    const type = name === 'O' ? null : name.slice(2);
    if (open && (type === null || name.startsWith('B-') || type !== open.type)) {
      out.push(open);
      open = null;
    }
    if (type !== null && !open) open = { start: t, end: t + 1, type };
    else if (open) open.end = t + 1;
  });
  if (open) out.push(open);
  return out;
}

/** What a corrected sentence teaches about its words: a phrase's type, or that a phrase is no entity (STOP). */
export const STOP = '\u2205';

/** A corrected sentence as its spans: the weak labels' and the corrected labels' (types by name). */
export interface CorrectedSpans {
  words: readonly string[];
  weak: readonly { start: number; end: number; type: string }[];
  gold: readonly { start: number; end: number; type: string }[];
}

/**
 * The rules corrected sentences yield, as the editor's two travelling actions make them: each
 * corrected span the weak labels missed or mistyped ("add to gazetteer": phrase → type), and each
 * weak span that no corrected span overlaps ("add to the stop list": phrase → STOP). A phrase given
 * two answers keeps the more frequent one (the first on a tie). The review queue's "into the
 * dictionary" sends its decisions' rules; the simulated annotator's `gazetteer` arms, their gold's.
 */
export function phraseRules(sentences: readonly CorrectedSpans[]): Map<string, string> {
  const votes = new Map<string, Map<string, number>>();
  const vote = (phrase: string, answer: string) => {
    const m = votes.get(phrase) ?? new Map<string, number>();
    m.set(answer, (m.get(answer) ?? 0) + 1);
    votes.set(phrase, m);
  };
  const same = (a: CorrectedSpans['weak'][number], b: CorrectedSpans['weak'][number]) => a.start === b.start && a.end === b.end && a.type === b.type;
  for (const s of sentences) {
    for (const g of s.gold) if (!s.weak.some((w) => same(w, g))) vote(s.words.slice(g.start, g.end).join(' '), g.type);
    for (const w of s.weak) if (!s.gold.some((g) => g.start < w.end && w.start < g.end)) vote(s.words.slice(w.start, w.end).join(' '), STOP);
  }
  const out = new Map<string, string>();
  for (const [phrase, m] of votes) out.set(phrase, [...m].reduce((best, x) => (x[1] > best[1] ? x : best))[0]);
  return out;
}

/** phraseRules of the pool's corrected sentences, their gold as the corrections. */
export function travelRules(pool: readonly PoolSentence[], corrected: readonly number[], names: readonly string[]): Map<string, string> {
  return phraseRules(corrected.map((i) => ({ words: pool[i].words, weak: spansOfIds(pool[i].weak, names), gold: spansOfIds(pool[i].gold, names) })));
}

/**
 * The weak tags of the sentences not corrected, after the rules travel to every occurrence of
 * their phrases: a typed phrase becomes a span of its type (overlapping weak spans give way); a
 * STOP phrase's weak spans of exactly those words are removed. Longer phrases first, and a token
 * a rule has set is not set again. Returns the new rows of the sentences that changed.
 */
export function applyTravel(
  pool: readonly PoolSentence[],
  rules: ReadonlyMap<string, string>,
  skip: ReadonlySet<number>,
  names: readonly string[],
): Map<number, number[]> {
  const id = new Map(names.map((n, k) => [n, k]));
  const typed = [...rules].filter(([, a]) => a !== STOP).map(([p, a]) => ({ words: p.split(' '), type: a }));
  typed.sort((a, b) => b.words.length - a.words.length);
  const stops = new Set([...rules].filter(([, a]) => a === STOP).map(([p]) => p));
  const out = new Map<number, number[]>();
  pool.forEach((s, i) => {
    if (skip.has(i)) return;
    const tags = [...s.weak];
    const set = new Uint8Array(tags.length);
    let changed = false;
    // Stop-listed phrases: their weak spans go.
    for (const w of spansOfIds(s.weak, names))
      if (stops.has(s.words.slice(w.start, w.end).join(' '))) {
        for (let t = w.start; t < w.end; t++) tags[t] = 0;
        changed = true;
      }
    for (const r of typed) {
      const L = r.words.length;
      for (let a = 0; a + L <= s.words.length; a++) {
        let hit = true;
        for (let j = 0; j < L && hit; j++) hit = s.words[a + j] === r.words[j] && !set[a + j];
        if (!hit) continue;
        // Overlapping spans give way whole, so no half span is left behind.
        for (const w of spansOfIds(tags, names)) if (w.start < a + L && a < w.end) for (let t = w.start; t < w.end; t++) tags[t] = 0;
        for (let j = 0; j < L; j++) {
          tags[a + j] = id.get(`${j ? 'I' : 'B'}-${r.type}`)!;
          set[a + j] = 1;
        }
        a += L - 1;
      }
    }
    if (!changed) changed = tags.some((t, k) => t !== s.weak[k]);
    if (changed) out.set(i, tags);
  });
  return out;
}

/** How the travelled changes went against gold: sentences with fewer token errors than before, with more, and the tokens fixed and broken. */
export function travelEffect(pool: readonly PoolSentence[], changed: ReadonlyMap<number, readonly number[]>) {
  let better = 0;
  let worse = 0;
  let fixed = 0;
  let broken = 0;
  for (const [i, tags] of changed) {
    const s = pool[i];
    let d = 0;
    for (let t = 0; t < tags.length; t++) {
      const was = s.weak[t] === s.gold[t];
      const now = tags[t] === s.gold[t];
      if (!was && now) fixed++;
      if (was && !now) broken++;
      d += Number(now) - Number(was);
    }
    if (d > 0) better++;
    if (d < 0) worse++;
  }
  return { sentences: changed.size, better, worse, fixed, broken };
}

/**
 * The dictionary after a set of corrections' rules (travelRules), as the editor's "add to
 * gazetteer" and "add to the stop list" leave it for the next run's dictionary features: the typed
 * phrases a case-sensitive source of their own (the corrections gazetteer), the STOP phrases on the
 * stop list; read through the lexicon's own types, as the studio's review loop reads it through
 * its model's groups (alignedLexicon): a phrase of a type it has no group for is left out, and counted.
 */
export function correctedLexicon(lex: Lexicon, rules: ReadonlyMap<string, string>): { lexicon: Lexicon; added: number; stopped: number; skipped: number } {
  const entries = [...rules].filter(([, a]) => a !== STOP).map(([p, a]) => ({ words: p.split(' '), type: a }));
  const stop = [...rules].filter(([, a]) => a === STOP).map(([p]) => p);
  const grown: Lexicon = {
    ...lex,
    sources: entries.length ? [...lex.sources, { mode: 'sensitive', entries }] : lex.sources,
    ...(stop.length ? { stop: [...(lex.stop ?? []), ...stop] } : {}),
  };
  const known = new Set(lex.types);
  const skipped = entries.filter((e) => !known.has(e.type)).length;
  return { lexicon: alignedLexicon(grown, lex.types).lexicon, added: entries.length - skipped, stopped: stop.length, skipped };
}

/**
 * How often each of `phrases` (words joined by ' ') occurs, as a token sequence, in `sentences`:
 * how far a correction of that phrase travels when the editor applies it to all occurrences or
 * the dictionary takes it.
 */
export function phraseCounts(sentences: readonly (readonly string[])[], phrases: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  // Every phrase's leading words: a sequence that leads no phrase is extended no further.
  const leads = new Set<string>();
  for (const p of phrases) {
    counts.set(p, 0);
    const words = p.split(' ');
    for (let L = 1; L <= words.length; L++) leads.add(words.slice(0, L).join(' '));
  }
  for (const words of sentences)
    for (let a = 0; a < words.length; a++) {
      let phrase = '';
      for (let L = 1; a + L <= words.length; L++) {
        phrase = L === 1 ? words[a] : `${phrase} ${words[a + L - 1]}`;
        if (!leads.has(phrase)) break;
        const c = counts.get(phrase);
        if (c !== undefined) counts.set(phrase, c + 1);
      }
    }
  return counts;
}

/** The least probability a phrase must have of being wrong in its weak labels before its reach counts. */
export const REACH_DOUBT = 0.5;

/**
 * The phrases of a sentence a correction may change, each with the model's doubt that its weak
 * labels are right there: the weak spans, and the spans the model's most likely tags make where
 * the weak labels have no such span. A phrase's doubt is the largest 1 − p(weak tag) over its
 * tokens (marginals [T·K]).
 */
export function doubtedPhrases(words: readonly string[], weak: readonly number[], marginals: Float32Array, names: readonly string[]): Map<string, number> {
  const K = names.length;
  const d = weak.map((w, t) => 1 - marginals[t * K + w]);
  const argmax = weak.map((_, t) => {
    let best = 0;
    for (let k = 1; k < K; k++) if (marginals[t * K + k] > marginals[t * K + best]) best = k;
    return best;
  });
  const out = new Map<string, number>();
  const weakSpans = spansOfIds(weak, names);
  const key = (s: IdSpan) => `${s.start}:${s.end}`;
  const weakAt = new Set(weakSpans.map(key));
  for (const s of [...weakSpans, ...spansOfIds(argmax, names).filter((s) => !weakAt.has(key(s)))]) {
    let doubtOf = 0;
    for (let t = s.start; t < s.end; t++) doubtOf = Math.max(doubtOf, d[t]);
    const phrase = words.slice(s.start, s.end).join(' ');
    out.set(phrase, Math.max(out.get(phrase) ?? 0, doubtOf));
  }
  return out;
}

/**
 * The reach signal: the weak-label errors a sentence's correction is expected to fix once it
 * travels. Each doubted phrase (doubt ≥ REACH_DOUBT) counts its doubt times its occurrences in the
 * training text (`counts`, phraseCounts); the sentence's uncertainty breaks ties between sentences
 * with none. Where corrections teach one name at a time (bc5cdr's chemicals), a name that recurs
 * is worth more than one that does not.
 */
export function reachScore(phrases: ReadonlyMap<string, number>, counts: ReadonlyMap<string, number>, uncertainty: number): number {
  let s = 0;
  for (const [p, doubtOf] of phrases) if (doubtOf >= REACH_DOUBT) s += doubtOf * Math.max(1, counts.get(p) ?? 0);
  return s + 1e-3 * uncertainty;
}

/**
 * The oracle of reach (gold ranks it): the token errors a sentence's correction fixes in the pool,
 * its own and those its rules fix elsewhere when they travel, less those they break. What a
 * perfect reach signal would rank by.
 */
export function travelOracle(pool: readonly PoolSentence[], names: readonly string[]): number[] {
  const holding = sentencesHolding(pool);
  return pool.map((s, i) => {
    const own = tokenErrors(s);
    const rules = travelRules(pool, [i], names);
    if (!rules.size) return own;
    const reached = new Set<number>();
    for (const p of rules.keys()) for (const j of holding.get(p.split(' ')[0]) ?? []) if (j !== i) reached.add(j);
    const idx = [...reached];
    const sub = idx.map((j) => pool[j]);
    const changed = applyTravel(sub, rules, new Set(), names);
    const e = travelEffect(sub, changed);
    return own + e.fixed - e.broken;
  });
}

/** Which sentences hold each word: a rule's phrase can only change a sentence that holds its first word. */
function sentencesHolding(pool: readonly PoolSentence[]): Map<string, number[]> {
  const holding = new Map<string, number[]>();
  pool.forEach((s, i) => {
    for (const w of new Set(s.words)) {
      const list = holding.get(w) ?? [];
      list.push(i);
      holding.set(w, list);
    }
  });
  return holding;
}

/** A sentence's worth to a set of corrections: what it is worth alone, and per phrase what its correction would fix where the phrase travels. */
export interface CoverItem {
  own: number;
  phrases: ReadonlyMap<string, number>;
}

/**
 * Sentences in the order a greedy set of corrections takes them: each step the sentence worth most
 * given those taken before, a phrase a sentence above already corrects counting no more (its
 * travelling corrections have been made). Without it the top of a reach ranking is the same
 * frequent name again and again. Lazy: a sentence's worth only falls as phrases are taken, so a
 * stale worth is an upper bound (where a phrase is worth less than nothing, as a rule of the
 * oracle's may be, the order is the greedy one only nearly). Ties in a seeded random order.
 */
export function rankByCover(items: readonly CoverItem[], seed: number): number[] {
  return coverOrder(items, seed).order;
}

/** rankByCover's order, with each sentence's worth when it was taken; `seed` null breaks ties by position. */
export function coverOrder(items: readonly CoverItem[], seed: number | null): { order: number[]; worth: number[] } {
  const taken = new Set<string>();
  const worth = (i: number) => {
    let w = items[i].own;
    for (const [p, v] of items[i].phrases) if (!taken.has(p)) w += v;
    return w;
  };
  const tie = seed === null ? items.map((_, i) => i) : rankBy(new Array<number>(items.length).fill(0), seed * 13 + 7);
  const tieAt = new Array<number>(items.length);
  tie.forEach((i, k) => (tieAt[i] = k));
  // A binary max-heap of [worth when last computed, sentence].
  const heap: [number, number][] = items.map((_, i) => [worth(i), i]);
  const above = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && tieAt[a[1]] < tieAt[b[1]]);
  const down = (k: number) => {
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let m = k;
      if (l < heap.length && above(heap[l], heap[m])) m = l;
      if (r < heap.length && above(heap[r], heap[m])) m = r;
      if (m === k) return;
      [heap[k], heap[m]] = [heap[m], heap[k]];
      k = m;
    }
  };
  for (let k = (heap.length >> 1) - 1; k >= 0; k--) down(k);
  const out: number[] = [];
  const worthOut: number[] = [];
  while (heap.length) {
    const [stale, i] = heap[0];
    const now = worth(i);
    if (now < stale) {
      heap[0] = [now, i];
      down(0);
      continue;
    }
    out.push(i);
    worthOut.push(now);
    for (const p of items[i].phrases.keys()) taken.add(p);
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      down(0);
    }
  }
  return { order: out, worth: worthOut };
}

/** The reach signal's items for rankByCover: each doubted phrase (doubt ≥ REACH_DOUBT) worth its doubt times its occurrences; uncertainty breaks ties. */
export function reachItems(doubted: readonly ReadonlyMap<string, number>[], counts: ReadonlyMap<string, number>, uncertainty: readonly number[]): CoverItem[] {
  return doubted.map((m, i) => ({
    own: 1e-3 * uncertainty[i],
    phrases: new Map([...m].filter(([, d]) => d >= REACH_DOUBT).map(([p, d]) => [p, d * Math.max(1, counts.get(p) ?? 0)])),
  }));
}

/**
 * The oracle of reach as a set (gold ranks it): a sentence is worth its own token errors, and each
 * of its rules (travelRules) what that rule alone fixes in the pool's other sentences, less what it
 * breaks there.
 */
export function travelOracleItems(pool: readonly PoolSentence[], names: readonly string[]): CoverItem[] {
  const holding = sentencesHolding(pool);
  const effect = new Map<string, number>();
  return pool.map((s, i) => {
    const phrases = new Map<string, number>();
    for (const [p, answer] of travelRules(pool, [i], names)) {
      const key = `${p}\t${answer}`;
      let v = effect.get(key);
      if (v === undefined) {
        const sub = (holding.get(p.split(' ')[0]) ?? []).map((j) => pool[j]);
        const e = travelEffect(sub, applyTravel(sub, new Map([[p, answer]]), new Set(), names));
        v = e.fixed - e.broken;
        effect.set(key, v);
      }
      // Elsewhere: the sentence's own tokens are in `own`.
      const here = travelEffect([s], applyTravel([s], new Map([[p, answer]]), new Set(), names));
      phrases.set(p, v - (here.fixed - here.broken));
    }
    return { own: tokenErrors(s), phrases };
  });
}
