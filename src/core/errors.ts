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

/**
 * What a failed training run says: the error's message, and for the WASM heap's abort (Emscripten's
 * "Aborted()", WebAssembly's out-of-bounds or unreachable traps) what it most likely means and what
 * to change, since the bare message says neither.
 */
export function trainingFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/^Aborted\(|memory access out of bounds|^unreachable$|Out of memory|Cannot enlarge memory/i.test(message))
    return `the training backend aborted (${message}), most likely out of memory: fewer hidden units, a smaller batch or a smaller language-model vocabulary needs less`;
  return message;
}
