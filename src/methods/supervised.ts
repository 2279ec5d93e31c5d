import { crfNll } from '../model/crf';
import { tagsOneHot } from '../model/features';
import { spanCrossEntropy, spanTargets } from '../model/spanHead';
import * as tf from '../model/tf';
import { registerMethod } from './registry';
import { supervisedSchema } from './supervised.def';

/**
 * Plain supervised learning on one label layer: CRF NLL, token cross-entropy for softmax, or span
 * cross-entropy over every span up to the head's length (unlabeled spans as "no entity").
 */
registerMethod({
  name: 'supervised',
  title: 'Supervised: the strong (gold) sentences only',
  schema: supervisedSchema,
  trainsOn: 'strong',
  loss({ tagger, batch, tensors, emissions }) {
    const K = tagger.dims.tags;
    const gold = tagsOneHot(batch, K);
    if (tagger.cfg.head === 'span') {
      const { labels, valid } = spanTargets(batch.tags, batch.lengths, batch.T, tagger.cfg.spanMaxLength);
      return spanCrossEntropy(emissions, labels, valid);
    }
    if (tagger.cfg.head === 'crf') return tf.mean(crfNll(emissions, gold, tensors.mask, tagger.crf())) as tf.Scalar;
    const logp = tf.logSoftmax(emissions);
    const ce = tf.neg(tf.sum(tf.mul(logp, gold), 2));
    return tf.div(tf.sum(tf.mul(ce, tensors.mask)), tf.maximum(tf.sum(tensors.mask), 1)) as tf.Scalar;
  },
});
