import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldMessage } from './fieldMessage';

const first = (schema: z.ZodType, v: unknown) => fieldMessage(schema.safeParse(v).error!.issues[0]);

describe('field messages in sentences', () => {
  it('says what a number must be', () => {
    expect(first(z.number().positive(), 0)).toBe('must be more than 0');
    expect(first(z.number().int().min(2), 1)).toBe('must be at least 2');
    expect(first(z.number().max(1000), 1e9)).toBe('must be at most 1000');
    expect(first(z.number().int(), 1.5)).toBe('must be a whole number');
    expect(first(z.enum(['a', 'b']), 'c')).toBe('must be one of "a", "b"');
  });
});
