import type { AbbreviationsOnDev } from '../worker/weakJob';
import { count, pct } from './hooks';

/**
 * What dev says of the abbreviations the text defines, in a sentence: the aggregate's F1 on the dev
 * gold with them and without, and which way that points. `on`: the stored layer has them.
 */
export function readAbbreviationsOnDev(on: boolean, dev: AbbreviationsOnDev): string {
  const gain = dev.with.f1 - dev.without.f1;
  const change = `${pct(dev.without.f1)} without them, ${pct(dev.with.f1)} with them (${gain >= 0 ? '+' : '−'}${pct(Math.abs(gain))}; ${count(dev.added, 'span')} added on dev${dev.following ? `, a definition holding in ${count(dev.following, 'following document')}` : ''})`;
  const verdict = !dev.added
    ? on
      ? 'they add nothing on dev, so dev cannot say whether they help.'
      : 'read, they would add nothing on dev, so dev cannot say whether they would help.'
    : on
      ? gain >= 0
        ? 'dev says keep them.'
        : 'dev says leave them off.'
      : gain > 0
        ? 'dev says switch them on (Read the abbreviations the text defines).'
        : 'dev gives no reason to switch them on.';
  return `The abbreviations the text defines, on dev: the aggregate's F1 is ${change}: ${verdict}`;
}
