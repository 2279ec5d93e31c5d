import { beforeAll, describe, expect, it } from 'vitest';
import { DICTIONARY_DROPOUT_CHOICES, type RunConfig } from '../core/runConfig';
import { pipelineSchema } from '../methods/pipelines';
import { featureDims } from '../model/features';
import { Tagger, TaggerEnsemble } from '../model/tagger';
import * as tf from '../model/tf';
import { evaluate, type RunStore } from '../model/train';
import { config, dev, feat, mixed, tags } from '../testing/toyTask';
import { type EngineHooks, type FinishedRun, type RunSource, runEngine } from './run';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const memoryStore = (): RunStore & { keys: () => string[] } => {
  const m = new Map<string, unknown>();
  return { load: async (k) => m.get(k), save: async (k, v) => void m.set(k, v), keys: () => [...m.keys()] };
};

type Outcome = { ended: string; losses: string[]; devF1: string; predicted: number } | { stoppedWith: string; reason: string };

/** An in-memory source that records what the engine hands it. */
function source(extra: Partial<RunSource<Outcome>> = {}): RunSource<Outcome> {
  return {
    load: async () => ({ tags, feat, train: mixed, dev }),
    record: async (run: FinishedRun) => {
      const spans = await run.model.predict(dev);
      run.model.dispose();
      return {
        ended: run.ended,
        losses: run.stages.flatMap((s) => (s.history ?? []).map((h) => h.loss.toFixed(6))),
        devF1: (run.dev?.overall.f1 ?? 0).toFixed(6),
        predicted: spans.flat().length,
      };
    },
    ended: async (how, reason) => ({ stoppedWith: how, reason }),
    ...extra,
  };
}

const wsl = (epochs = 3): RunConfig => ({ ...config({ name: 'wsl' }, {}, epochs), pipeline: pipelineSchema.parse({ kind: 'single' }) });

describe('the run engine', () => {
  it("stop keeps the best epoch so far as the run's model; cancel ends the run with none", async () => {
    const stopAfter = (how: 'stop' | 'cancel'): EngineHooks => {
      let epochs = 0;
      return { onEpoch: () => void epochs++, control: () => (epochs >= 1 ? how : 'go') };
    };
    const stopped = await runEngine(wsl(), source(), undefined, stopAfter('stop'));
    expect(stopped).toMatchObject({ ended: 'stopped' });
    expect((stopped as { losses: string[] }).losses).toHaveLength(1);
    const cancelled = await runEngine(wsl(), source(), undefined, stopAfter('cancel'));
    expect(cancelled).toMatchObject({ stoppedWith: 'cancelled' });
  }, 60_000);

  it('a failed attempt that the source recovers from goes on from the store, to the result of an uninterrupted run', async () => {
    const whole = await runEngine(wsl(), source(), memoryStore());
    const store = memoryStore();
    let failed = false;
    const resumedAfter: number[] = [];
    const recovered = await runEngine(wsl(), source({ recover: async () => failed }), store, {
      onEpoch: (e) => {
        if (e.epoch === 2 && !failed) {
          failed = true;
          throw new Error('the GPU device was lost');
        }
      },
      onResume: (epoch) => void resumedAfter.push(epoch),
    });
    expect(failed).toBe(true);
    expect(resumedAfter).toEqual([1]);
    expect(recovered).toEqual(whole);
    // A source that does not recover fails the run with the error.
    await expect(
      runEngine(wsl(), source(), memoryStore(), {
        onEpoch: () => {
          throw new Error('disk full');
        },
      }),
    ).rejects.toThrow('disk full');
  }, 60_000);

  it('a fine-tune starts from the weights the source gives, and refuses a pipeline of several stages', async () => {
    const base = memoryStore();
    let weights: unknown;
    await runEngine(
      wsl(),
      source({
        record: async (run) => {
          weights = await run.model.tagger!.getWeights();
          run.model.dispose();
          return { ended: run.ended, losses: [], devF1: '', predicted: 0 };
        },
      }),
      base,
    );
    const init = source({ init: async () => weights as never });
    const fresh = (await runEngine(wsl(1), source(), undefined)) as { losses: string[] };
    const tuned = (await runEngine(wsl(1), init, undefined)) as { losses: string[] };
    expect(Number(tuned.losses[0])).toBeLessThan(Number(fresh.losses[0]));
    const sst = { ...wsl(1), pipeline: pipelineSchema.parse({ kind: 'sst' }) };
    await expect(runEngine(sst, init, undefined)).rejects.toThrow('pipeline "single"');
  }, 60_000);

  it('a fine-tune with keepStart keeps the model it started from unless it beats it on dev, and says so', async () => {
    let weights: unknown;
    let baseDev = '';
    await runEngine(
      wsl(),
      source({
        record: async (run) => {
          weights = await run.model.tagger!.getWeights();
          baseDev = (run.dev?.overall.f1 ?? 0).toFixed(6);
          run.model.dispose();
          return { ended: run.ended, losses: [], devF1: '', predicted: 0 };
        },
      }),
      undefined,
    );
    expect(Number(baseDev)).toBeGreaterThan(0);
    const kept = (run: FinishedRun) => ({
      keptStage: run.keptStage ?? null,
      stages: run.stages.map((st) => st.stage),
      devF1: (run.dev?.overall.f1 ?? 0).toFixed(6),
    });
    // Labels that unlearn every entity, learned hard: dev falls, so the run keeps its start, scored as the start scored.
    const allO = mixed.map((x) => ({ ...x, weak: false, tags: x.tags.map(() => 0) }));
    const worse = source({
      init: async () => weights as never,
      load: async () => ({ tags, feat, train: allO, dev }),
      record: async (run) => {
        const r = kept(run);
        run.model.dispose();
        return r as never;
      },
    });
    const hard = { ...wsl(2), train: { ...wsl(2).train, lr: 0.05 }, pipeline: pipelineSchema.parse({ kind: 'single', keepStart: true }) };
    expect(await runEngine(hard, worse, undefined)).toEqual({ keptStage: 'starting model', stages: ['starting model', 'wsl'], devF1: baseDev });
    // Without it (the default), the same fine-tune keeps its own best epoch, worse on dev.
    const anyEpoch = (await runEngine({ ...hard, pipeline: pipelineSchema.parse({ kind: 'single' }) }, worse, undefined)) as unknown as {
      keptStage: string | null;
      devF1: string;
    };
    expect(anyEpoch.keptStage).toBeNull();
    expect(Number(anyEpoch.devF1)).toBeLessThan(Number(baseDev));
    // From an untrained model the fine-tune beats its start: its own model, no kept stage.
    const fresh = new Tagger(wsl().model, featureDims(feat), 9);
    const untrained = await fresh.getWeights();
    fresh.dispose();
    const better = await runEngine(
      { ...wsl(3), pipeline: pipelineSchema.parse({ kind: 'single', keepStart: true }) },
      source({
        init: async () => untrained,
        record: async (run) => {
          const r = kept(run);
          run.model.dispose();
          return r as never;
        },
      }),
      undefined,
    );
    expect(better).toMatchObject({ keptStage: null, stages: ['wsl'] });
  }, 60_000);

  it('a run starts from an encoder pre-trained elsewhere (startEncoder) where its model has no pre-training of its own', async () => {
    // A trained model's weights without its head, as "the encoder from elsewhere".
    let trained: Record<string, { shape: number[]; data: Float32Array }> = {};
    const keep = source({
      record: async (run) => {
        trained = Object.fromEntries(Object.entries(await run.model.tagger!.getWeights()).filter(([k]) => !/^(out|crf)\//.test(k)));
        run.model.dispose();
        return { ended: run.ended, losses: [], devF1: '', predicted: 0 };
      },
    });
    await runEngine(wsl(), keep, undefined);
    const fresh = (await runEngine(wsl(1), source(), undefined)) as { losses: string[] };
    let from = '';
    let asked = 0;
    const started = source({
      startEncoder: async () => {
        asked++;
        return { weights: trained, epochs: 0, sentences: 0, seconds: 0, from: 'encoder from a test asset' };
      },
      record: async (run) => {
        from = run.encoder?.from ?? '';
        const losses = run.stages.flatMap((st) => (st.history ?? []).map((h) => h.loss.toFixed(6)));
        run.model.dispose();
        return { ended: run.ended, losses, devF1: '', predicted: 0 };
      },
    });
    const warm = (await runEngine(wsl(1), started, undefined)) as { losses: string[] };
    expect(asked).toBe(1);
    expect(from).toBe('encoder from a test asset');
    expect(Number(warm.losses[0])).toBeLessThan(Number(fresh.losses[0]));
    // With model.pretrain the project's own encoder is asked for instead.
    asked = 0;
    const own = { ...wsl(1), model: { ...wsl(1).model, pretrain: 1 } };
    await runEngine(own, { ...started, encoder: async () => ({ weights: trained, epochs: 1, sentences: 1, seconds: 0 }) }, undefined);
    expect(asked).toBe(0);
  }, 60_000);

  it('train.members trains the pipeline once per member (seed + 1000·k), decodes them as one, and resumes from its finished members', async () => {
    const seen: { seed: number; devF1: number; members: number }[] = [];
    /** A source that records an ensemble: its members' dev F1 as their runs chose, and the ensemble's. */
    const ensembleSource = (extra: Partial<RunSource<Outcome>> = {}): RunSource<Outcome> =>
      source({
        ensembles: true,
        record: async (run: FinishedRun) => {
          for (const m of run.membersDev ?? []) seen.push({ seed: m.seed, devF1: m.devF1 ?? -1, members: run.model.members!.length });
          expect(run.model.tagger).toBeUndefined();
          // The run's model is its members decoded as one, at the shift chosen on dev for the ensemble.
          expect(run.model.decoding).toBeInstanceOf(TaggerEnsemble);
          expect((run.model.decoding as TaggerEnsemble).members).toEqual(run.model.members);
          expect((await evaluate(run.model.decoding!, feat, dev)).overall.f1).toBe(run.dev?.overall.f1);
          const spans = await run.model.predict(dev);
          run.model.dispose();
          return { ended: run.ended, losses: run.stages.map((st) => st.stage), devF1: (run.dev?.overall.f1 ?? 0).toFixed(6), predicted: spans.flat().length };
        },
        ...extra,
      });
    const three = { ...wsl(2), train: { ...wsl(2).train, members: 3 } };
    const store = memoryStore();
    const whole = (await runEngine(three, ensembleSource(), store)) as { losses: string[]; devF1: string };
    // Member 1 is the run of the config's own seed, member k the run of seed + 1000·(k − 1): each as one run trains it.
    expect(seen.map((x) => x.seed)).toEqual([3, 1003, 2003]);
    for (const m of seen) {
      const one = { ...wsl(2), train: { ...wsl(2).train, seed: m.seed } };
      const alone = (await runEngine(one, source(), undefined)) as { devF1: string };
      expect(m.devF1.toFixed(6)).toBe(alone.devF1);
    }
    expect(whole.losses.map((x) => x.replace(/:.*/, ''))).toEqual(['member 1 of 3', 'member 2 of 3', 'member 3 of 3']);
    // Each member's stages in its own part of the store: a second attempt restores them all and decodes the same ensemble.
    expect(store.keys().some((k) => k.startsWith('member 2 of 3: '))).toBe(true);
    const stages: string[] = [];
    const again = (await runEngine(three, ensembleSource(), store, { onStage: (x) => void stages.push(x) })) as { devF1: string };
    expect(again.devF1).toBe(whole.devF1);
    expect(stages.filter((x) => x.includes('restored from the run')).length).toBe(3);
    // A source that keeps one tagger's weights refuses an ensemble before it trains.
    await expect(runEngine(three, source(), undefined)).rejects.toThrow('train.members 3: this command keeps one tagger');
  }, 120_000);

  it('train.shareDropout: the members after the first train at the dictionary dropout the first chose on dev', async () => {
    // A dictionary of the places only, as the model's input: its matches are typed LOC.
    const withLex = (ss: typeof mixed) =>
      ss.map((s) => ({ ...s, lex: s.words.flatMap((w, i) => (w === 'Paris' || w === 'Rome' ? [{ start: i, end: i + 1, type: 0 }] : [])) }));
    const lexFeat = { ...feat, lexicon: ['LOC', 'PER'] };
    const lexSource = (extra: Partial<RunSource<Outcome>> = {}) =>
      source({ load: async () => ({ tags, feat: lexFeat, train: withLex(mixed), dev: withLex(dev) }), ...extra });
    const atDev = (members: number, shareDropout: boolean, seed = 3): RunConfig => {
      const c = wsl(2);
      return { ...c, model: { ...c.model, dictionaryDropout: 'dev' }, train: { ...c.train, seed, members, shareDropout } };
    };
    let record: FinishedRun | undefined;
    const keep = lexSource({
      ensembles: true,
      record: async (run) => {
        record = run;
        run.model.dispose();
        return { ended: run.ended, losses: [], devF1: '', predicted: 0 };
      },
    });
    const said: string[] = [];
    await runEngine(atDev(2, true), keep, undefined, { onStage: (x) => void said.push(x) });
    const shared = record!;
    const chosen = shared.dictionaryDropout!;
    // The value member 1 chose on dev, as it said.
    const line = said.find((x) => x.startsWith('member 1 of 2: dictionary dropout chosen on dev: '))!;
    expect(Number(line.replace(/^.*chosen on dev: ([\d.]+).*$/, '$1'))).toBe(chosen);
    expect(said.filter((x) => x.includes('dictionary dropout chosen on dev'))).toHaveLength(1);
    // Member 1 tries every value; member 2 trains once, at member 1's choice.
    expect(shared.stages.map((st) => st.stage)).toEqual([
      ...DICTIONARY_DROPOUT_CHOICES.map((r) => `member 1 of 2: wsl (dictionary dropout ${r})`),
      'member 2 of 2: wsl',
    ]);
    // Member 2 is the run of its seed at that value, fixed.
    const fixed = { ...wsl(2), model: { ...wsl(2).model, dictionaryDropout: chosen }, train: { ...wsl(2).train, seed: 1003 } };
    const alone = (await runEngine(fixed, lexSource(), undefined)) as { devF1: string };
    expect(shared.membersDev![1].devF1!.toFixed(6)).toBe(alone.devF1);
    // Without it each member chooses its own.
    await runEngine(atDev(2, false), keep, undefined);
    expect(record!.stages.filter((st) => st.stage.startsWith('member 2 of 2: wsl (dictionary dropout'))).toHaveLength(DICTIONARY_DROPOUT_CHOICES.length);
  }, 120_000);

  it("an ensemble's fine-tune starts each member from its own weights, and refuses starting weights of another count", async () => {
    type Ws = Awaited<ReturnType<Tagger['getWeights']>>;
    const two = (epochs: number, lr?: number): RunConfig => {
      const c = wsl(epochs);
      return { ...c, train: { ...c.train, members: 2, ...(lr ? { lr } : {}) } };
    };
    let members: Ws[] = [];
    const keep = (extra: Partial<RunSource<Outcome>> = {}) =>
      source({
        ensembles: true,
        record: async (run) => {
          members = await Promise.all(run.model.members!.map((t) => t.getWeights()));
          run.model.dispose();
          return { ended: run.ended, losses: [], devF1: (run.dev?.overall.f1 ?? 0).toFixed(6), predicted: 0 };
        },
        ...extra,
      });
    await runEngine(two(3), keep(), undefined);
    const trained = members;
    const name = Object.keys(trained[0]).find((k) => !/^(out|crf)\//.test(k))!;
    const head = (w: Ws) => Array.from(w[name].data.slice(0, 8));
    expect(head(trained[0])).not.toEqual(head(trained[1]));
    // A step so small that each tuned member stays where it started: member k ends at member k's weights.
    await runEngine(two(1, 1e-9), keep({ init: async () => trained }), undefined);
    members.forEach((w, k) => {
      const [own, other] = [head(trained[k]), head(trained[1 - k])];
      const far = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
      expect(far(head(w), own)).toBeLessThan(1e-4);
      expect(far(head(w), other)).toBeGreaterThan(1e-3);
    });
    // One model's weights for two members, or two for one, is refused before it trains.
    await expect(runEngine(two(1), keep({ init: async () => trained[0] }), undefined)).rejects.toThrow('a fine-tune of train.members 2 starts from 1 model');
    await expect(runEngine(wsl(1), source({ init: async () => trained }), undefined)).rejects.toThrow('train.members 1 starts from 2 models');
  }, 120_000);
});
