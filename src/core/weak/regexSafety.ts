import safeRegex from 'safe-regex2';

/**
 * Compiles a user regular expression, refusing ones that do not compile and ones whose star
 * height says they can backtrack catastrophically. The worker that runs rules also time-boxes
 * each rule, since no static check catches every slow pattern.
 */
export function compileUserRegex(source: string, flags: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw new Error(`does not compile: ${(e as Error).message}`);
  }
  if (!safeRegex(re))
    throw new Error('may backtrack catastrophically (nested quantifiers such as (a+)+); rewrite it without a quantified group that is itself quantified');
  const alt = overlappingRepeatedAlternation(source, flags.includes('i'));
  if (alt)
    throw new Error(
      `may backtrack catastrophically: the repeated group ${alt} has alternatives that can start the same way (such as (a|aa)+); make the alternatives start differently, or repeat a character class instead`,
    );
  return re;
}

/**
 * A repeated group whose alternatives can begin with the same text, as in (a|aa)+, the case
 * safe-regex2's star height misses: the engine tries every split of the input among the
 * alternatives, exponentially many on a long non-matching token. Conservative: an alternative
 * that starts with anything but a literal character (a class, a dot, an escape, a group) counts
 * as overlapping. Returns the group's text, or null.
 */
export function overlappingRepeatedAlternation(source: string, ignoreCase: boolean): string | null {
  const stack: { start: number; alts: number[] }[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // Skip a character class (a "]" right after "[" or "[^" is literal).
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (c === '(') {
      // The alternatives' text starts after any "?:", "?=", "?<name>" prefix.
      let body = i + 1;
      const named = /^\?(?::|=|!|<=|<!|<[A-Za-z_]\w*>)/.exec(source.slice(body));
      if (named) body += named[0].length;
      stack.push({ start: i, alts: [body] });
      continue;
    }
    if (c === '|' && stack.length) {
      stack[stack.length - 1].alts.push(i + 1);
      continue;
    }
    if (c === ')' && stack.length) {
      const g = stack.pop()!;
      const next = source[i + 1];
      const repeated = next === '+' || next === '*' || (next === '{' && /^\{\d*,\d*\}/.test(source.slice(i + 1)) && !/^\{\d*,1\}/.test(source.slice(i + 1)));
      if (!repeated || g.alts.length < 2) continue;
      const firsts = g.alts.map((a) => source[a]);
      const literal = (ch: string | undefined) => ch !== undefined && !'\\[(.|)^$?*+{'.includes(ch);
      if (!firsts.every(literal)) return source.slice(g.start, i + 2);
      const keys = firsts.map((ch) => (ignoreCase ? ch.toLowerCase() : ch));
      if (new Set(keys).size < keys.length) return source.slice(g.start, i + 2);
    }
  }
  return null;
}
