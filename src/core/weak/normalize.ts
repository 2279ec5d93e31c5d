export type CaseMode = 'sensitive' | 'insensitive' | 'normalized';
export const CASE_MODES: readonly CaseMode[] = ['sensitive', 'insensitive', 'normalized'];

/** The form of a token that a gazetteer in this mode compares: NFKC, lower case, accents stripped. */
export function normalizeToken(tok: string, mode: CaseMode): string {
  if (mode === 'sensitive') return tok;
  if (mode === 'insensitive') return tok.toLowerCase();
  return tok.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
}
