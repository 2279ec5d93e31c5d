import { describe, expect, it } from 'vitest';
import { noEntityDiagnosis } from './noEntity';

describe('a run that predicts no entity', () => {
  const facts = { predictedSpans: 0, epochs: 3, bestEpoch: 1, stopped: 'done' as const, patience: 5, entityTokens: 10, tokens: 1000 };

  it('says so, how training ended and what likely caused it', () => {
    expect(noEntityDiagnosis(facts)).toBe(
      'The model predicts no entity: it ran all 3 epochs, the best on dev being epoch 1. Likely because only 1.0 % of the training tokens are entity tokens, so predicting O everywhere costs the loss little; and few epochs: a model from scratch first learns to predict O. Try more epochs, a larger learning rate or model, or the O shift (train.oShift "dev").',
    );
    expect(noEntityDiagnosis({ ...facts, stopped: 'early', epochs: 9, entityTokens: 300 })).toMatch(
      /^The model predicts no entity: it stopped early after epoch 9: dev F1 did not improve for 5 epochs after epoch 1\. Try more epochs/,
    );
  });

  it('says nothing when the model predicts entities', () => {
    expect(noEntityDiagnosis({ ...facts, predictedSpans: 1 })).toBeNull();
  });
});
