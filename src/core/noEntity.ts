/**
 * What a run that predicts no entity says about itself: that it predicts none, how its training
 * ended, and what in its labels or settings most likely made it so. Shown beside the run in the
 * studio and logged by the CLI, instead of a silent 0.0.
 */
export interface NoEntityFacts {
  /** Entity spans the final model predicts over every document it labeled. */
  predictedSpans: number;
  /** How training ended: epochs run, the best dev epoch, and why it stopped. */
  epochs: number;
  bestEpoch: number;
  stopped: 'done' | 'early' | 'stopped' | 'cancelled';
  patience: number;
  /** Entity tokens and all tokens in the labels it learned from. */
  entityTokens: number;
  tokens: number;
}

export function noEntityDiagnosis(f: NoEntityFacts): string | null {
  if (f.predictedSpans > 0) return null;
  const share = f.tokens ? (100 * f.entityTokens) / f.tokens : 0;
  const how =
    f.stopped === 'early'
      ? `it stopped early after epoch ${f.epochs}: dev F1 did not improve for ${f.patience} epochs after epoch ${f.bestEpoch}`
      : f.stopped === 'done'
        ? `it ran all ${f.epochs} epochs, the best on dev being epoch ${f.bestEpoch || 'none'}`
        : `it was ${f.stopped} after epoch ${f.epochs}`;
  const why: string[] = [];
  if (share < 2) why.push(`only ${share.toFixed(1)} % of the training tokens are entity tokens, so predicting O everywhere costs the loss little`);
  if (f.epochs < 5) why.push('few epochs: a model from scratch first learns to predict O');
  const hint = 'try more epochs, a larger learning rate or model, or the O shift (train.oShift "dev")';
  return `The model predicts no entity: ${how}. ${why.length ? `Likely because ${why.join('; and ')}. ` : ''}${hint[0].toUpperCase()}${hint.slice(1)}.`;
}
