/**
 * Rows as CSV (RFC 4180), one line each, ending in a newline. Cells with a quote, comma, LF or CR
 * are quoted. A text cell that a spreadsheet would run as a formula (starting with = + - @, tab
 * or CR; OWASP's CSV injection advice) gets a leading apostrophe, so that it opens as text;
 * numbers, negative ones included, stay numbers.
 */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function csvCell(v: unknown): string {
  let s = String(v ?? '');
  if (typeof v !== 'number' && /^[=+\-@\t\r]/.test(s) && !NUMBER.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: readonly (readonly unknown[])[]): string {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\n')}\n`;
}
