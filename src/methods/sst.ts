/**
 * Self-training (SST, NEEDLE's baseline): a model of the strong labels labels the weak sentences,
 * and training goes on from it over the strong sentences and those pseudo-labels.
 */
import { predict } from '../model/train';
import { registerPipeline } from './registry';
import { initialModel, withMethod } from './stages';

registerPipeline({
  kind: 'sst',
  async run(ctx) {
    const { cfg, feat, data, strong, weak } = ctx;
    const initial = await initialModel(ctx);
    const initWeights = await initial.tagger.getWeights();
    const { paths } = await predict(initial.tagger, feat, weak);
    initial.tagger.dispose();
    const weakIndex = new Map(weak.map((s, k) => [s, k]));
    // The review queue's signal: each weak sentence's pseudo-labels.
    const pseudo = data.train.map((s) => {
      const k = weakIndex.get(s);
      return k === undefined ? null : paths[k];
    });
    const labeled = weak.map((s, k) => ({ ...s, tags: paths[k] }));
    return ctx.finish(await ctx.stage('self-training', withMethod(cfg, { name: 'wsl' }), [...strong, ...labeled], initWeights), { signals: { pseudo } });
  },
});
