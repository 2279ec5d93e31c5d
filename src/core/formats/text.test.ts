import { describe, expect, it } from 'vitest';
import { decodeText, readFileText } from './text';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...parts: (string | number[])[]) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...utf8(p)] : p)));

describe('a file read as text (decodeText)', () => {
  it('is UTF-8 without its byte-order mark, accents and emoji kept', () => {
    expect(decodeText(bytes([0xef, 0xbb, 0xbf], 'Chemical\tcafé 🍵\n'), 'g.tsv')).toBe('Chemical\tcafé 🍵\n');
    expect(decodeText(bytes('plain\r\ntext'), 'a.txt')).toBe('plain\r\ntext');
    expect(decodeText(new Uint8Array(), 'empty.txt')).toBe('');
  });

  it('names the file and line of a byte that is not UTF-8, where the text would otherwise lose its accents', () => {
    // "café" in Latin-1 on line 3.
    expect(() => decodeText(bytes('one\ntwo\ncaf', [0xe9], '\n'), 'latin1.txt')).toThrow(
      'latin1.txt, line 3: byte 0xE9 is not UTF-8 (the file may be Latin-1 or Windows-1252): save it as UTF-8 and import it again',
    );
    // A character cut at the end, an overlong form and a surrogate's encoding are not UTF-8 either.
    expect(() => decodeText(bytes('ok ', [0xe2, 0x82]), 'cut.txt')).toThrow(/cut\.txt, line 1: byte 0xE2 is not UTF-8/);
    expect(() => decodeText(bytes([0xc0, 0xaf]), 'overlong.txt')).toThrow(/line 1: byte 0xC0/);
    expect(() => decodeText(bytes('a\n', [0xed, 0xa0, 0x80]), 'surrogate.txt')).toThrow(/line 2: byte 0xED/);
  });

  it('says UTF-16 where Excel’s “Unicode text” wrote it, with its mark or without', () => {
    const utf16le = (s: string) => [...s].flatMap((ch) => [ch.charCodeAt(0), 0]);
    expect(() => decodeText(bytes([0xff, 0xfe], utf16le('text')), 'u.txt')).toThrow(/^u\.txt: UTF-16 text .* save it as UTF-8/);
    expect(() => decodeText(bytes([0xfe, 0xff], [0, 0x74]), 'be.txt')).toThrow(/^be\.txt: UTF-16 text/);
    expect(() => decodeText(bytes('first line\n', utf16le('x')), 'nul.txt')).toThrow(/^nul\.txt, line 2: a NUL character/);
  });

  it('reads a chosen File the same way (readFileText, the page and the import worker)', async () => {
    expect(await readFileText(new File([bytes([0xef, 0xbb, 0xbf], 'café')], 'a.txt'))).toEqual({ file: 'a.txt', text: 'café' });
    await expect(readFileText(new File([bytes([0xe9])], 'l.txt'))).rejects.toThrow('l.txt, line 1: byte 0xE9 is not UTF-8');
  });
});
