import { InputError } from '../errors';

const SAVE_AS = 'save it as UTF-8 and import it again';

/**
 * A user's file, from its bytes to its text: UTF-8, without the byte-order mark a Windows editor
 * or Excel writes at its start. Anything else is an InputError that names the file and, where it
 * can, the line: UTF-16 (Excel's "Unicode text"), a byte that is not UTF-8 (a Latin-1 or
 * Windows-1252 file, whose accents would otherwise turn into U+FFFD and be lost without a word),
 * or a NUL character (UTF-16 without its mark, or a binary file). The page, the import worker and
 * the command line read every file through it.
 */
export function decodeText(bytes: Uint8Array, file: string): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new InputError({ file }, `UTF-16 text (Excel’s “Unicode text” writes it), not UTF-8: ${SAVE_AS}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const { line, byte } = firstBadByte(bytes);
    throw new InputError(
      { file, line },
      `byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} is not UTF-8 (the file may be Latin-1 or Windows-1252): ${SAVE_AS}`,
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw new InputError({ file, line: lineAt(text, nul) }, `a NUL character: UTF-16 or binary data, not UTF-8 text: ${SAVE_AS}`);
  return text;
}

/** A File the user chose (on the page or in a worker), read through decodeText. */
export async function readFileText(file: Blob & { name: string }): Promise<{ file: string; text: string }> {
  return { file: file.name, text: decodeText(new Uint8Array(await file.arrayBuffer()), file.name) };
}

/** The line (1-based) and value of the first byte that breaks UTF-8 (RFC 3629's well-formed sequences). */
function firstBadByte(b: Uint8Array): { line: number; byte: number } {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    let ok = n > 0 && i + n < b.length && b[i + 1] >= lo && b[i + 1] <= hi;
    for (let k = 2; ok && k <= n; k++) ok = (b[i + k] & 0xc0) === 0x80;
    if (!ok) break;
    i += n + 1;
  }
  let line = 1;
  for (let k = 0; k < i && k < b.length; k++) if (b[k] === 0x0a) line++;
  return { line, byte: b[Math.min(i, b.length - 1)] ?? 0 };
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
