/**
 * Each labeling source's reliability as the label model estimates it (issue 45, weak-label
 * precision): where a source labels a token with a type, the label model's belief that the token
 * is of that type, averaged over the source's tokens. The belief is the aggregate's confidence
 * where it agrees with the source and 0 where it does not; an untyped match (UNKNOWN_TYPE) agrees
 * with any typed label. No gold is read: the model's dictionary features can carry it, so that a
 * match of a source the label model distrusts reads weaker than one of a source it trusts.
 */
import type { Annotation } from '../types';
import { UNKNOWN_TYPE } from '../types';
import type { SourceOutput } from './sources';

/** Per source name, per type it labels: its reliability in [0, 1], and how many tokens it rests on. */
export type SourceReliability = Record<string, Record<string, { value: number; tokens: number }>>;

export function sourceReliability(sources: readonly SourceOutput[], aggregate: readonly Annotation[]): SourceReliability {
  // The aggregate's type at each token of each document, once.
  const typeAt = aggregate.map((a) => {
    const n = a.spans.reduce((m, s) => Math.max(m, s.end), 0);
    const out = new Array<string | null>(n).fill(null);
    for (const s of a.spans) for (let t = s.start; t < s.end; t++) out[t] = s.label;
    return out;
  });
  const out: SourceReliability = {};
  for (const src of sources) {
    const sums = new Map<string, { belief: number; tokens: number }>();
    src.spans.forEach((spans, d) => {
      const agg = typeAt[d] ?? [];
      const conf = aggregate[d]?.confidence;
      for (const s of spans) {
        const acc = sums.get(s.label) ?? sums.set(s.label, { belief: 0, tokens: 0 }).get(s.label)!;
        for (let t = s.start; t < s.end; t++) {
          const theirs = agg[t] ?? null;
          const agrees = theirs !== null && theirs !== UNKNOWN_TYPE && (s.label === UNKNOWN_TYPE || theirs === s.label);
          acc.tokens++;
          if (agrees) acc.belief += conf?.[t] ?? 1;
        }
      }
    });
    out[src.name] = Object.fromEntries([...sums].map(([type, { belief, tokens }]) => [type, { value: round4(belief / tokens), tokens }]));
  }
  return out;
}

const round4 = (x: number) => Math.round(x * 10000) / 10000;

/** A source's reliabilities as the values its dictionary features take (LexiconSource.reliability). */
export const reliabilityValues = (r: SourceReliability[string] | undefined): Record<string, number> | undefined =>
  r ? Object.fromEntries(Object.entries(r).map(([type, x]) => [type, x.value])) : undefined;

/** Per rule name, the reliability of its label: the values its dictionary features take (Lexicon.ruleReliability). */
export const ruleReliabilityValues = (r: SourceReliability, rules: readonly { name: string; label: string }[]): Record<string, number> =>
  Object.fromEntries(rules.filter((x) => r[x.name]?.[x.label]).map((x) => [x.name, r[x.name][x.label].value]));

/** Each source's reliability per type as one line: "dict_core.txt Chemical 0.927 (1,031 tokens), disease-suffix Disease 0.767 (237 tokens)". */
export function reliabilityLine(r: SourceReliability): string {
  return Object.entries(r)
    .flatMap(([name, byType]) => Object.entries(byType).map(([type, x]) => `${name} ${type} ${x.value.toFixed(3)} (${x.tokens.toLocaleString('en')} tokens)`))
    .join(', ');
}
