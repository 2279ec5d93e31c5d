/**
 * Gazetteer matching throughput, the same code in Node and in a browser worker: the studio's
 * token trie against the Aho-Corasick packages on npm, on the same corpus and phrases.
 */
import AhoCorasick from 'modern-ahocorasick';
// @ts-expect-error: the package ships no types
import AhoCorasickBRB from 'ahocorasick';
import { mulberry32 } from '../src/core/random';
import { GazetteerMatcher } from '../src/core/weak/gazetteerMatcher';
import { TokenIndex } from '../src/core/weak/tokenIndex';

export interface MatcherBenchInput {
  /** GloVe words, most frequent first. */
  vocab: string[];
  /** Tokenized sentences, at least `tokens` tokens in all (repeated if fewer). */
  sentences: string[][];
  tokens: number;
  entries: number;
  seed: number;
}

const time = <T>(fn: () => T): [T, number] => {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
};

export function runMatcherBench(input: MatcherBenchInput) {
  const rand = mulberry32(input.seed);
  // Phrases of one to three words drawn from the 100,000 most frequent GloVe words that are words
  // (no punctuation-only entries), lengths 60 / 30 / 10 %.
  const pool = input.vocab.slice(0, 100_000).filter((w) => /\p{L}/u.test(w));
  const phrases = new Set<string>();
  while (phrases.size < input.entries) {
    const r = rand();
    const len = r < 0.6 ? 1 : r < 0.9 ? 2 : 3;
    phrases.add(Array.from({ length: len }, () => pool[Math.floor(rand() * pool.length)]).join(' '));
  }
  const entries = [...phrases].map((phrase, k) => ({ phrase, type: k % 2 ? 'A' : 'B' }));

  const docs: { tokens: string[]; sentenceStarts: number[] }[] = [];
  let n = 0;
  for (let i = 0; n < input.tokens; i = (i + 1) % input.sentences.length) {
    const s = input.sentences[i].slice(0, input.tokens - n);
    docs.push({ tokens: s, sentenceStarts: [0] });
    n += s.length;
  }

  // The studio: intern the corpus once (cached across runs), build the trie, then match (scan +
  // overlap resolution + spans per document), the step that a re-labeling repeats.
  const [index, internMs] = time(() => TokenIndex.build('insensitive', docs));
  const [matcher, trieMs] = time(() => new GazetteerMatcher({ name: 'g', mode: 'insensitive', priority: 0, entries }, index));
  const reps = 5;
  let raw = matcher.trie.longestMatches(index.ids);
  const [, scanMs] = time(() => {
    for (let r = 0; r < reps; r++) raw = matcher.trie.longestMatches(index.ids);
  });
  let spans = matcher.match([]);
  const [, matchMs] = time(() => {
    for (let r = 0; r < reps; r++) spans = matcher.match([]);
  });
  const matched = spans.reduce((a, s) => a + s.length, 0);

  // The packages work on characters: one lower-cased string, sentences on lines.
  const [text, joinMs] = time(() =>
    docs
      .map((d) => d.tokens.join(' '))
      .join('\n')
      .toLowerCase(),
  );
  const patterns = entries.map((e) => e.phrase.toLowerCase());
  const packages: Record<string, unknown> = {};
  const run = (name: string, build: () => unknown, search: (m: never) => number) => {
    const [m, buildMs] = time(build);
    const [hits, searchMs] = time(() => search(m as never));
    packages[name] = { buildMs, searchMs, hits, tokensPerSecond: Math.round(n / (searchMs / 1000)) };
    if (typeof process !== 'undefined' && process.stderr) process.stderr.write(`${name}: ${JSON.stringify(packages[name])}\n`);
  };
  run(
    'modern-ahocorasick count()',
    () => new AhoCorasick(patterns),
    (m: AhoCorasick) => m.count(text),
  );
  // modern-ahocorasick/fast (its double-array backend) had not finished building the 100,000
  // patterns after five minutes here, so it is left out.
  // Its search() with { strategy: 'leftmost-longest', wholeWord: true }, the closest to what the
  // studio computes, ran for over ten minutes on this input here and is left out too.
  run(
    'ahocorasick search()',
    () => new AhoCorasickBRB(patterns),
    (m: { search: (t: string) => unknown[] }) => m.search(text).length,
  );

  return {
    tokens: n,
    entries: entries.length,
    studio: {
      internMs,
      trieMs,
      scanMs: scanMs / reps,
      matchMs: matchMs / reps,
      candidates: raw.length / 3,
      matched,
      scanTokensPerSecond: Math.round(n / (scanMs / reps / 1000)),
      matchTokensPerSecond: Math.round(n / (matchMs / reps / 1000)),
      relabelTokensPerSecond: Math.round(n / ((trieMs + matchMs / reps) / 1000)),
      endToEndTokensPerSecond: Math.round(n / ((internMs + trieMs + matchMs / reps) / 1000)),
    },
    packages: { joinLowercaseMs: joinMs, ...packages },
  };
}
