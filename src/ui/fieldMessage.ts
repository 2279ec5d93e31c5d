/**
 * A schema's complaint about a field as a sentence a user reads ("must be a whole number"), not
 * as the validator phrases it ("expected int, received number").
 */
import type { z } from 'zod';

export function fieldMessage(issue: z.core.$ZodIssue): string {
  const i = issue as z.core.$ZodIssue & { minimum?: number | bigint; maximum?: number | bigint; inclusive?: boolean; expected?: string; format?: string };
  switch (i.code) {
    case 'too_small':
      return Number(i.minimum) === 0 && !i.inclusive ? 'must be more than 0' : `must be ${i.inclusive ? 'at least' : 'more than'} ${i.minimum}`;
    case 'too_big':
      return `must be ${i.inclusive ? 'at most' : 'less than'} ${i.maximum}`;
    case 'invalid_type':
      return i.expected === 'int' ? 'must be a whole number' : i.expected === 'number' ? 'must be a number' : `must be a ${i.expected}`;
    case 'invalid_format':
      return i.format === 'safeint' ? 'must be a whole number' : issue.message;
    case 'invalid_value':
      return `must be one of ${(issue as { values?: unknown[] }).values?.map((v) => JSON.stringify(v)).join(', ') ?? 'the listed values'}`;
    default:
      return issue.message;
  }
}
