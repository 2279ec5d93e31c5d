import { z } from 'zod';
import { compileUserRegex } from './regexSafety';

/**
 * Token patterns in the style of spaCy's EntityRuler / Matcher: a list of token specs, each a set
 * of attribute tests and an optional OP quantifier. Covers token-shape rules (capitalization,
 * digits, affixes) through SHAPE, IS_* flags, LENGTH, PREFIX / SUFFIX and REGEX.
 */

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const valueSpec = z.union([
  scalar,
  z.object({ IN: z.array(scalar) }).strict(),
  z.object({ NOT_IN: z.array(scalar) }).strict(),
  z.object({ REGEX: z.string() }).strict(),
  z.object({ '>=': z.number() }).strict(),
  z.object({ '<=': z.number() }).strict(),
]);
const tokenSpec = z.record(z.string(), z.union([valueSpec, z.enum(['?', '*', '+', '!', '1'])]));
export const tokenPatternSchema = z.array(tokenSpec).min(1);
export type TokenPattern = z.infer<typeof tokenPatternSchema>;

const ATTRS = [
  'ORTH',
  'TEXT',
  'LOWER',
  'SHAPE',
  'LENGTH',
  'PREFIX',
  'SUFFIX',
  'IS_DIGIT',
  'IS_ALPHA',
  'IS_TITLE',
  'IS_UPPER',
  'IS_LOWER',
  'IS_PUNCT',
  'LIKE_NUM',
  'REGEX',
  'OP',
] as const;
type Attr = (typeof ATTRS)[number];

/** spaCy's word shape: X / x / d per character, runs of one class cut at four. */
export function wordShape(w: string): string {
  let out = '';
  let last = '';
  let run = 0;
  for (const ch of w) {
    const c = /\p{Lu}/u.test(ch) ? 'X' : /\p{Ll}/u.test(ch) ? 'x' : /\p{N}/u.test(ch) ? 'd' : ch;
    run = c === last ? run + 1 : 1;
    last = c;
    if (run <= 4) out += c;
  }
  return out;
}

function attrValue(attr: Attr, tok: string): string | number | boolean {
  switch (attr) {
    case 'ORTH':
    case 'TEXT':
      return tok;
    case 'LOWER':
      return tok.toLowerCase();
    case 'SHAPE':
      return wordShape(tok);
    case 'LENGTH':
      return [...tok].length;
    case 'PREFIX':
      return tok.slice(0, 1);
    case 'SUFFIX':
      return tok.slice(-3);
    case 'IS_DIGIT':
      return /^\p{N}+$/u.test(tok);
    case 'IS_ALPHA':
      return /^\p{L}+$/u.test(tok);
    case 'IS_TITLE':
      return /^\p{Lu}[\p{Ll}\p{N}'’-]*$/u.test(tok) && /\p{Ll}/u.test(tok);
    case 'IS_UPPER':
      return /\p{L}/u.test(tok) && tok === tok.toUpperCase();
    case 'IS_LOWER':
      return /\p{L}/u.test(tok) && tok === tok.toLowerCase();
    case 'IS_PUNCT':
      return /^\p{P}+$/u.test(tok);
    case 'LIKE_NUM':
      return /^[+-]?(\p{N}+([.,]\p{N}+)*|\p{N}+\/\p{N}+)$/u.test(tok);
    default:
      return tok;
  }
}

type Test = (tok: string) => boolean;
interface CompiledSpec {
  test: Test;
  op: '1' | '?' | '*' | '+' | '!';
}

/** Compiles a pattern; throws an Error naming the token spec and attribute at fault. */
export function compileTokenPattern(pattern: TokenPattern): CompiledSpec[] {
  return pattern.map((spec, k) => {
    const tests: Test[] = [];
    let op: CompiledSpec['op'] = '1';
    for (const [rawKey, value] of Object.entries(spec)) {
      const key = rawKey.toUpperCase() as Attr;
      if (!ATTRS.includes(key)) throw new Error(`token ${k + 1}: unknown attribute "${rawKey}"`);
      if (key === 'OP') {
        if (typeof value !== 'string' || !['?', '*', '+', '!', '1'].includes(value)) throw new Error(`token ${k + 1}: OP must be one of ? * + ! 1`);
        op = value as CompiledSpec['op'];
        continue;
      }
      tests.push(valueTest(key, value, k));
    }
    return { test: (tok) => tests.every((t) => t(tok)), op };
  });
}

function valueTest(key: Attr, value: unknown, k: number): Test {
  if (key === 'REGEX') {
    if (typeof value !== 'string') throw new Error(`token ${k + 1}: REGEX needs a string`);
    const re = compileRegex(value, k);
    return (tok) => re.test(tok);
  }
  if (value !== null && typeof value === 'object') {
    const [op, arg] = Object.entries(value)[0] as [string, unknown];
    if (op === 'IN') return (tok) => (arg as unknown[]).includes(attrValue(key, tok));
    if (op === 'NOT_IN') return (tok) => !(arg as unknown[]).includes(attrValue(key, tok));
    if (op === 'REGEX') {
      const re = compileRegex(arg as string, k);
      return (tok) => re.test(String(attrValue(key, tok)));
    }
    if (op === '>=') return (tok) => (attrValue(key, tok) as number) >= (arg as number);
    if (op === '<=') return (tok) => (attrValue(key, tok) as number) <= (arg as number);
  }
  return (tok) => attrValue(key, tok) === value;
}

/** The same check as a regular-expression rule's: it must compile and must not backtrack catastrophically. */
function compileRegex(src: string, k: number): RegExp {
  try {
    return compileUserRegex(src, 'u');
  } catch (e) {
    throw new Error(`token ${k + 1}: regular expression ${(e as Error).message}`);
  }
}

/**
 * Longest match starting at each token, scanning left to right and skipping past each match
 * (spaCy's "greedy longest"). Returns [start, end) pairs over the token array.
 */
export function matchTokenPattern(specs: readonly CompiledSpec[], tokens: readonly string[]): [number, number][] {
  const out: [number, number][] = [];
  const longest = (p: number, i: number): number => {
    if (p === specs.length) return i;
    const { test, op } = specs[p];
    let best = -1;
    if (op === '!') return i < tokens.length && !test(tokens[i]) ? longest(p + 1, i + 1) : -1;
    if (op === '1') return i < tokens.length && test(tokens[i]) ? longest(p + 1, i + 1) : -1;
    if (op === '?' || op === '*') best = longest(p + 1, i);
    if (op === '?') {
      if (i < tokens.length && test(tokens[i])) best = Math.max(best, longest(p + 1, i + 1));
      return best;
    }
    // '*' and '+': consume a run, try every length, keep the longest overall match.
    let j = i;
    while (j < tokens.length && test(tokens[j])) {
      j++;
      best = Math.max(best, longest(p + 1, j));
    }
    return best;
  };
  let i = 0;
  while (i < tokens.length) {
    const end = longest(0, i);
    if (end > i) {
      out.push([i, end]);
      i = end;
    } else i++;
  }
  return out;
}
