import { z } from 'zod';
import type { Span } from '../types';
import { compileUserRegex } from './regexSafety';
import { compileTokenPattern, matchTokenPattern, tokenPatternSchema } from './tokenPattern';

/** A named rule labeler, stored in the project. */
export const ruleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('regex'), name: z.string().min(1), label: z.string().min(1), pattern: z.string().min(1), ignoreCase: z.boolean().default(false) }),
  z.object({ kind: z.literal('tokens'), name: z.string().min(1), label: z.string().min(1), pattern: tokenPatternSchema }),
]);
export type Rule = z.infer<typeof ruleSchema>;

export interface RuleDoc {
  text: string;
  offsets: ArrayLike<number>;
  tokens: readonly string[];
  sentenceStarts: readonly number[];
}

export class RuleError extends Error {
  constructor(
    readonly rule: string,
    what: string,
  ) {
    super(`rule "${rule}": ${what}`);
    this.name = 'RuleError';
  }
}

/** A compiled rule: a function from a document to its spans. */
export type Labeler = (doc: RuleDoc) => Span[];

/** Compiles a rule, or throws a RuleError naming the rule and the fault. */
export function compileRule(rule: Rule, budgetMs = 2000): Labeler {
  if (rule.kind === 'regex') {
    let re: RegExp;
    try {
      re = compileUserRegex(rule.pattern, rule.ignoreCase ? 'giu' : 'gu');
    } catch (e) {
      throw new RuleError(rule.name, `regular expression ${(e as Error).message}`);
    }
    let spent = 0;
    return (doc) => {
      const t0 = performance.now();
      const spans = regexSpans(re, doc, rule.label);
      spent += performance.now() - t0;
      if (spent > budgetMs) throw new RuleError(rule.name, `ran over its time budget of ${budgetMs} ms`);
      return spans;
    };
  }
  let specs: ReturnType<typeof compileTokenPattern>;
  try {
    specs = compileTokenPattern(rule.pattern);
  } catch (e) {
    throw new RuleError(rule.name, (e as Error).message);
  }
  return (doc) => {
    const out: Span[] = [];
    doc.sentenceStarts.forEach((s, k) => {
      const e = doc.sentenceStarts[k + 1] ?? doc.tokens.length;
      for (const [a, b] of matchTokenPattern(specs, doc.tokens.slice(s, e))) out.push({ start: s + a, end: s + b, label: rule.label });
    });
    return out;
  };
}

/** Regex matches widened to the tokens they touch; a match that crosses a sentence end is dropped. */
function regexSpans(re: RegExp, doc: RuleDoc, label: string): Span[] {
  const n = doc.offsets.length >> 1;
  const sentOf = new Int32Array(n);
  doc.sentenceStarts.forEach((s, k) => sentOf.fill(k, s));
  const out: Span[] = [];
  re.lastIndex = 0;
  for (const m of doc.text.matchAll(re)) {
    if (!m[0].length) continue;
    const a = m.index;
    const b = a + m[0].length;
    let start = -1;
    let end = -1;
    for (let i = 0; i < n; i++) {
      if (start < 0 && doc.offsets[2 * i + 1] > a) start = i;
      if (doc.offsets[2 * i] < b) end = i + 1;
      else break;
    }
    if (start < 0 || end <= start || sentOf[start] !== sentOf[end - 1]) continue;
    if (out.length && out[out.length - 1].end > start) continue;
    out.push({ start, end, label });
  }
  return out;
}
