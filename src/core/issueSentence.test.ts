import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueSentence } from './issueSentence';

const first = (schema: z.ZodType, v: unknown) => issueSentence(schema.safeParse(v).error!.issues[0]);

describe('field messages in sentences', () => {
  it('says what a number must be', () => {
    expect(first(z.number().positive(), 0)).toBe('must be more than 0');
    expect(first(z.number().int().min(2), 1)).toBe('must be at least 2');
    expect(first(z.number().max(1000), 1e9)).toBe('must be at most 1000');
    expect(first(z.number().int(), 1.5)).toBe('must be a whole number');
    expect(first(z.enum(['a', 'b']), 'c')).toBe('must be one of "a", "b"');
    expect(first(z.number(), 'x')).toBe('must be a number');
    expect(first(z.union([z.literal('dev'), z.number()]), 'x')).toBe('must be "dev" or a number');
  });

  it('says what else is wrong: an unknown option, a list too short, text empty', () => {
    expect(first(z.object({ a: z.number() }).strict(), { a: 1, b: 2 })).toBe('unknown option "b"');
    expect(first(z.array(z.number()).min(1), [])).toBe('needs at least 1 item');
    expect(first(z.string().min(1), '')).toBe('must not be empty');
    expect(first(z.boolean(), 'no')).toBe('must be true or false (a switch)');
  });
});
