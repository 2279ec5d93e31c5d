/**
 * Schema errors as a person reads them: "must be at most 1", "must be a whole number", "unknown
 * option "qq"", in place of zod's "Too big: expected number to be <=1". The callers put the field
 * in front ("method options: method.tau: must be at most 1").
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

const TYPE_NAMES: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false (a switch)',
  object: 'an object',
  array: 'a list',
};

function bound(issue: Extract<Issue, { code: 'too_big' | 'too_small' }>): string {
  const big = issue.code === 'too_big';
  const value = big ? issue.maximum : issue.minimum;
  if (issue.origin === 'array' || issue.origin === 'set') return `needs ${big ? 'at most' : 'at least'} ${value} item${Number(value) === 1 ? '' : 's'}`;
  if (issue.origin === 'string') return Number(value) === 1 && !big ? 'must not be empty' : `must be ${big ? 'at most' : 'at least'} ${value} characters long`;
  if (issue.inclusive === false) return `must be ${big ? 'less' : 'more'} than ${value}`;
  return `must be ${big ? 'at most' : 'at least'} ${value}`;
}

/** One sentence (without its field) for a schema issue. */
export function issueSentence(issue: Issue): string {
  switch (issue.code) {
    case 'too_big':
    case 'too_small':
      return bound(issue);
    case 'invalid_type':
      return issue.expected === 'int' ? 'must be a whole number' : `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_union': {
      const alternatives = issue.errors.map((errs) => (errs[0] ? issueSentence(errs[0]).replace(/^must be /, '') : '')).filter(Boolean);
      return alternatives.length ? `must be ${[...new Set(alternatives)].join(' or ')}` : 'is not valid here';
    }
    case 'invalid_format':
      return issue.format === 'safeint' ? 'must be a whole number' : `must be ${issue.format === 'regex' ? 'of the expected form' : `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return issue.message;
  }
}

/** "where: path: sentence" for the first issue of a failed parse. */
export function describeIssue(error: z.ZodError, where: string, separator = ': '): string {
  const issue = error.issues[0];
  const path = issue.path.map(String).join('.');
  return `${where}${path ? `${separator}${path}` : ''}: ${issueSentence(issue)}`;
}
