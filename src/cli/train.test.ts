import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conllHead } from '../testing/conllHead';
import { scoreSpans } from '../core/metrics';
import { readCorpus } from './readCorpus';
import { roundScores } from './roundScores';
import { evalModel, predictCorpus, trainFromConfig } from './train';

// A few real CoNLL-2003 sentences, so that `train --out` then `eval --model` runs end to end in
// seconds; the eval verb must give the scores the train verb reported for the same split.
const head = conllHead;

/** A tiny files config over the first CoNLL-2003 sentences: `train` labels and sizes, then any overrides. */
function tinyConfig(dir: string, trainLabels: string, sizes: [number, number, number], extra: Record<string, unknown> = {}) {
  const [tr, dv, te] = sizes;
  return {
    data: {
      kind: 'files',
      train: { text: head('train_text.txt', tr, dir), labels: head(trainLabels, tr, dir) },
      dev: { text: head('valid_text.txt', dv, dir), labels: head('valid_label_true.txt', dv, dir) },
      ...(te ? { test: { text: head('test_text.txt', te, dir), labels: head('test_label_true.txt', te, dir) } } : {}),
    },
    model: { hidden: 8, charDim: 8, charFilters: 8 },
    ...extra,
  };
}

describe('CLI train and eval', () => {
  it('eval of the saved model reproduces the test scores of train', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-cli-'));
    const config = tinyConfig(dir, 'train_label_true.txt', [200, 40, 60], { name: 'tiny', train: { epochs: 2, batchSize: 16, seed: 2 } }) as {
      data: { test: { text: string; labels: string } };
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const trained = await trainFromConfig(join(dir, 'config.json'), join(dir, 'model.json'));
    const evaluated = await evalModel(join(dir, 'model.json'), config.data.test.text, config.data.test.labels);
    expect(evaluated.scores).toEqual(trained.test);
    expect(evaluated.tokenAccuracy).toBeGreaterThan(0);
    await expect(evalModel(join(dir, 'config.json'), config.data.test.text, config.data.test.labels)).rejects.toThrow(/not a model file/);
    // The same model labels the text alone; its spans, written as CoNLL and as JSONL, score what eval scored.
    for (const out of ['pred.conll', 'pred.jsonl']) {
      const r = await predictCorpus(join(dir, 'model.json'), config.data.test.text, join(dir, out), 'lines');
      expect(r).toMatchObject({ documents: 60, sentences: 60 });
      const written = readCorpus(join(dir, out), { split: 'test' });
      const gold = readCorpus(config.data.test.text, { format: 'lines', labels: [{ file: config.data.test.labels, kind: 'gold', name: 'gold' }] });
      expect(written.docs.map((d) => d.text)).toEqual(gold.docs.map((d) => d.text));
      const predicted = written.layers[0].annotations.map((a) => a.spans);
      expect(
        roundScores(
          scoreSpans(
            gold.layers[0].annotations.map((a) => a.spans),
            predicted,
          ),
        ),
      ).toEqual(evaluated.scores);
      expect(Object.values(r.spans as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(predicted.flat().length);
    }
  }, 120_000);

  it("honours the config's pipeline: a BOND config trains BOND, not single-stage WSL", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-cli-'));
    const config = tinyConfig(dir, 'train_label_dist.txt', [120, 30, 0], {
      name: 'bond',
      model: { hidden: 8, charDim: 8, charFilters: 8, head: 'softmax' },
      method: { name: 'wsl' },
      pipeline: { kind: 'bond', teacherEpochs: 1, rounds: 2 },
      train: { epochs: 1, batchSize: 16, seed: 3 },
    });
    writeFileSync(join(dir, 'bond.json'), JSON.stringify(config));
    const r = (await trainFromConfig(join(dir, 'bond.json'))) as { pipeline: string; stages: { stage: string }[] };
    expect(r.pipeline).toBe('bond');
    expect(r.stages.map((s) => s.stage)).toEqual(['teacher (distant labels, early-stopped)', 'self-training round 1', 'self-training round 2']);
  }, 120_000);

  it('refuses --out for a span model before training, rather than ending with no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-cli-'));
    const config = tinyConfig(dir, 'train_label_true.txt', [20, 10, 0], { name: 'span', pipeline: { kind: 'decoupled' } });
    writeFileSync(join(dir, 'span.json'), JSON.stringify(config));
    await expect(trainFromConfig(join(dir, 'span.json'), join(dir, 'model.json'))).rejects.toThrow(
      `${join(dir, 'span.json')}: --out writes a token tagger's model, and the "decoupled" pipeline trains a span model`,
    );
    expect(existsSync(join(dir, 'model.json'))).toBe(false);
  });
});
