/** A problem in user input, located as precisely as the input allows. */
export class InputError extends Error {
  constructor(
    readonly where: { file?: string; line?: number; rule?: string; field?: string },
    readonly what: string,
  ) {
    super(InputError.format(where, what));
    this.name = 'InputError';
  }

  static format(where: InputError['where'], what: string): string {
    const parts: string[] = [];
    if (where.file) parts.push(where.file);
    if (where.line !== undefined) parts.push(`line ${where.line}`);
    if (where.rule) parts.push(`rule "${where.rule}"`);
    if (where.field) parts.push(where.field);
    return parts.length ? `${parts.join(', ')}: ${what}` : what;
  }
}
