import { describe, expect, it } from 'vitest';
import { prf } from '../core/metrics';
import { readAbbreviationsOnDev } from './abbreviationsOnDev';

describe('what dev says of the abbreviations the text defines', () => {
  const without = prf(60, 10, 40);
  const better = { following: 40, added: 12, with: prf(68, 12, 32), without };
  const worse = { following: 0, added: 5, with: prf(60, 15, 40), without };
  it('reads the gain either way, with the option on or off', () => {
    expect(readAbbreviationsOnDev(false, better)).toBe(
      "The abbreviations the text defines, on dev: the aggregate's F1 is 70.6 without them, 75.6 with them (+5.0; 12 spans added on dev, a definition holding in 40 following documents): dev says switch them on (Read the abbreviations the text defines).",
    );
    expect(readAbbreviationsOnDev(true, better)).toMatch(/: dev says keep them\.$/);
    expect(readAbbreviationsOnDev(true, worse)).toMatch(
      /F1 is 70\.6 without them, 68\.6 with them \(−2\.0; 5 spans added on dev\): dev says leave them off\.$/,
    );
    expect(readAbbreviationsOnDev(false, worse)).toMatch(/: dev gives no reason to switch them on\.$/);
  });
  it('says dev cannot judge them where they add nothing there', () => {
    const none = { following: 0, added: 0, with: without, without };
    expect(readAbbreviationsOnDev(true, none)).toMatch(/\(\+0\.0; 0 spans added on dev\): they add nothing on dev, so dev cannot say whether they help\.$/);
    expect(readAbbreviationsOnDev(false, none)).toMatch(/would add nothing on dev, so dev cannot say whether they would help\.$/);
  });
});
