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
  return re;
}
