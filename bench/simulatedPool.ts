/**
 * The annotator's pool of a simulate-review config, as the simulator has it (cli/simulateReview
 * poolData), for the data-only probes (bench/correction-reach.ts, bench/correction-patterns.ts):
 * the training sentences with their weak tags, and the pool's sentences with their gold.
 */
import { readConfigJson } from '../src/cli/dataFolder';
import { loadExperimentConfig } from '../src/cli/experiment';
import { poolData, simulateSchema } from '../src/cli/simulateReview';
import type { PoolSentence } from '../src/core/guidedCorrection';
import { bioTags, toSentences } from '../src/model/data';

export function simulatedPool(file: string) {
  const { simulate, ...raw } = readConfigJson(file) as Record<string, unknown>;
  const { exp } = loadExperimentConfig(file, raw);
  const sim = simulateSchema.parse(simulate);
  const setting = exp.settings[0];
  const { data, gold } = poolData(setting, sim);
  const tags = bioTags(data.types);
  // A setting without a pool of its own keeps its first limitTrain, as the simulator does.
  const limit = sim.pools[setting.name] ? Infinity : ((setting as { limitTrain?: number }).limitTrain ?? Infinity);
  const weakSents = toSentences(data.train.corpus.docs, data.train.anns, tags).slice(0, limit);
  const goldSents = toSentences(data.train.corpus.docs, gold, tags).slice(0, limit);
  const poolAt = weakSents.map((x, k) => (gold[x.doc!] ? k : -1)).filter((k) => k >= 0);
  const pool: PoolSentence[] = poolAt.map((k) => ({ words: weakSents[k].words, weak: weakSents[k].tags, gold: goldSents[k].tags }));
  return { setting, data, tags, weakSents, pool };
}
