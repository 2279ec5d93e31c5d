/**
 * The reference checks on the whole data files (`npm run test:data`; `.ci/run` runs it where the
 * data folder exists). `npm test` runs the same checks on the committed fixture slices.
 */
import { describe, it } from 'vitest';
import { fullData } from './testing/data';
import { conllevalAgreement, conllRoundTrip, gazetteers, linesRoundTrip } from './testing/referenceChecks';

describe('the whole reference data', () => {
  const dir = fullData();
  it('round-trips bc5cdr dev exactly', () => conllRoundTrip(dir, 6653));
  it('round-trips conll03 train with both label layers', () => linesRoundTrip(dir, 14041));
  it('reads bc5cdr dict_core and dict_full_train', () => gazetteers(dir, 2482, 4557));
  // conlleval on the same files: 14,648 / 3,133 / 8,851.
  it('agrees with conlleval on conll03 distant against gold labels (train)', () =>
    conllevalAgreement(dir, 14041, [14648, 3133, 8851], ['82.38', '62.33', '70.97']));
});
