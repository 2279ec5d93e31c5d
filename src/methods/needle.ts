/**
 * NEEDLE (Jiang et al. 2021): Stage I, the encoder pre-trained as a language model on the domain's
 * text; an initial model of the strong labels; Stage II, weak label completion (Eq. 2) and
 * noise-aware continual training (Eq. 3) with each weak sentence's confidence from histogram
 * binning of dev Viterbi scores (Appendix A); Stage III, fine-tuning on the strong labels. The
 * switches wlc, nal and ft give the paper's ablations; `rounds` repeats Stages II-III (§4.5).
 */
import { tagsOneHot } from '../model/features';
import * as tf from '../model/tf';
import type { Weights } from '../model/tagger';
import { predict } from '../model/train';
import { noiseAwareCrf } from './losses';
import { registerMethod, registerPipeline } from './registry';
import { noiseAwareSchema } from './needle.def';
import { initialModel, type MethodMetrics, type TrainSignals, withMethod } from './stages';

/** Eq. 3: c · NLL + (1 − c) · log-unlikelihood on weak sentences, the plain NLL on strong ones. */
registerMethod({
  name: 'noise-aware',
  title: 'NEEDLE noise-aware loss: c \u00b7 NLL + (1 \u2212 c) \u00b7 log-unlikelihood on weak sentences',
  schema: noiseAwareSchema,
  loss(ctx) {
    const { batch, tensors, tagger } = ctx;
    const gold = tagsOneHot(batch, tagger.dims.tags);
    return tf.mean(noiseAwareCrf(ctx.emissions, gold, tensors.mask, tagger.crf(), tf.tensor1d(batch.weak), tf.tensor1d(batch.confidence))) as tf.Scalar;
  },
  heads: ['crf'],
});

registerPipeline({
  kind: 'needle',
  async run(ctx, pipeline) {
    const { cfg, feat, data, strong, weak } = ctx;
    let pretrained: Weights | undefined;
    if (pipeline.stage1.epochs > 0) {
      // Stage I: the encoder learns the domain's text (the training sentences') as a language model
      // before any label. More raw text goes through the project encoder (model.pretrain) instead.
      const lm = await ctx.languageModel('Stage I language model', 'Stage I: language model', data.train, pipeline.stage1);
      pretrained = await lm.tagger.getWeights();
      lm.dispose();
      lm.tagger.dispose();
    }
    const initial = await initialModel(ctx, pretrained);
    const initWeights = await initial.tagger.getWeights();
    const { paths, scores } = await predict(initial.tagger, feat, weak);
    const devPred = pipeline.nal ? await predict(initial.tagger, feat, data.dev) : null;
    initial.tagger.dispose();
    const weakIndex = new Map(weak.map((s, k) => [s, k]));
    const pseudoSignal = data.train.map((s) => {
      const k = weakIndex.get(s);
      return k === undefined ? null : paths[k];
    });

    // NEEDLE Stages II and III, `rounds` times: a later round starts from the model the previous one
    // ended with, which completes the original weak labels anew and is calibrated anew (§4.5).
    let current = { paths, scores, dev: devPred, weights: initWeights };
    for (let round = 1; ; round++) {
      const suffix = round > 1 ? ` (round ${round})` : '';
      let completed = weak;
      let confidences: number[] | undefined;
      let calibration: MethodMetrics['calibration'];
      let signals: TrainSignals = { pseudo: pseudoSignal };
      if (pipeline.wlc) {
        completed = weak.map((s, k) => ({ ...s, tags: s.tags.map((t, i) => (t === 0 ? current.paths[k][i] : t)) }));
        // Where completion gave a weak-O token an entity tag: the review queue's NEEDLE signal.
        const byTrain = new Map(weak.map((s, k) => [s, k]));
        signals = {
          ...signals,
          completion: data.train.map((s) => {
            const k = byTrain.get(s);
            if (k === undefined) return null;
            const c: Record<number, number> = {};
            s.tags.forEach((t, i) => t === 0 && current.paths[k][i] !== 0 && (c[i] = current.paths[k][i]));
            return c;
          }),
        };
      }
      if (pipeline.nal) {
        // Calibrate the model's Viterbi scores on dev: sequence accuracy per score bin (Appendix A).
        const dev = current.dev!;
        calibration = histogramBins(
          dev.scores,
          data.dev.map((s, k) => s.tags.every((t, i) => t === dev.paths[k][i])),
          pipeline.bins,
        );
        confidences = completed.map((_, k) => completedConfidence(weak[k].tags, binConfidence(calibration!, current.scores[k]), pipeline.cap));
        completed = completed.map((s, k) => ({ ...s, confidence: confidences![k] }));
      }
      const stage2 = await ctx.stage(
        `${pipeline.nal ? 'noise-aware continual training' : 'continual training (NLL)'}${suffix}`,
        withMethod(cfg, { name: pipeline.nal ? 'noise-aware' : 'wsl' }),
        [...strong, ...completed],
        current.weights,
      );
      let end = stage2;
      if (pipeline.ft && strong.length) {
        const w2 = await stage2.tagger.getWeights();
        stage2.tagger.dispose();
        end = await ctx.stage(`fine-tuning (strong)${suffix}`, withMethod(cfg, { name: 'supervised' }), strong, w2);
      }
      if (round >= pipeline.rounds) return ctx.finish(end, { metrics: { confidences, calibration }, signals });
      const next = await predict(end.tagger, feat, weak);
      current = { ...next, dev: pipeline.nal ? await predict(end.tagger, feat, data.dev) : null, weights: await end.tagger.getWeights() };
      end.tagger.dispose();
    }
  },
});

/**
 * Histogram binning (Zadrozny and Elkan 2001) as NEEDLE's Appendix A uses it: dev sentences in
 * equal-count bins of their Viterbi score, each bin's confidence the share of its sentences whose
 * predicted tag sequence is exactly right.
 */
export function histogramBins(scores: readonly number[], correct: readonly boolean[], bins: number): { lo: number; hi: number; n: number; accuracy: number }[] {
  const order = scores.map((s, k) => [s, correct[k]] as const).sort((a, b) => a[0] - b[0]);
  const out: { lo: number; hi: number; n: number; accuracy: number }[] = [];
  const size = Math.max(1, Math.ceil(order.length / bins));
  for (let i = 0; i < order.length; i += size) {
    const part = order.slice(i, i + size);
    out.push({ lo: part[0][0], hi: part[part.length - 1][0], n: part.length, accuracy: part.filter(([, c]) => c).length / part.length });
  }
  return out;
}

/** The confidence of a score: its bin's accuracy (below the first bin, the first; above the last, the last). */
export function binConfidence(hist: readonly { lo: number; hi: number; accuracy: number }[], score: number): number {
  for (const b of hist) if (score <= b.hi) return b.accuracy;
  return hist[hist.length - 1]?.accuracy ?? 0;
}

/**
 * NEEDLE's confidence of a completed weak sequence (Appendix A): matched tokens (non-O in the
 * weak labels) are trusted fully, completed ones as much as the model's binned confidence,
 * weighted by their shares, then capped.
 */
export function completedConfidence(weakTags: readonly number[], modelConfidence: number, cap: number): number {
  const matched = weakTags.filter((t) => t !== 0).length;
  const n = weakTags.length || 1;
  return Math.min(cap, (matched / n) * 1 + ((n - matched) / n) * modelConfidence);
}
