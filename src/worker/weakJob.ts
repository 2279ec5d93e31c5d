import type { EmFit, HmmParams } from '../core/weak/hmm';
import type { WeakRecipe } from '../core/modelFile';
import { type PRF, scoreSpans, type SpanScores } from '../core/metrics';
import type { Annotation, Span } from '../core/types';
import { type AggregateMethod, fitsHmm, type LabelModel } from '../core/weak/aggregate';
import { type AbbreviationOptions, abbreviationOptionsSchema, MAX_FOLLOWING, withAbbreviations } from '../core/weak/abbreviations';
import { type WeakGazetteer, WeakLabeler, type WeakHooks, type WeakResult, weakDoc } from '../core/weak/pipeline';
import { sourceReliability } from '../core/weak/reliability';
import { sourceStats, type SourceStats } from '../core/weak/stats';
import { layerAnnotations, newestWeakRun, saveWeakLabels } from '../db/repo';
import { addRun, updateRun } from '../db/runs';
import type { GazetteerEntryRow, GazetteerRow, RuleRow, StudioDB } from '../db/schema';

/** What the Weak labels page asks for. */
export interface WeakOptions {
  /** A label model, or "dev": each one, keeping the one whose aggregate scores best against the dev split's gold. */
  method: LabelModel;
  /** Type the untyped gazetteers' matches by their spelling before aggregating (spellingTyper.ts). */
  typeUntyped: boolean;
  /**
   * The documents the HMM is fitted on: every one (default; no gold is read, and EM has all the text),
   * or the train split's only, so that nothing is fitted on text that selects or scores a model (as
   * `studio experiment` does by default; its `labelModelText`).
   */
  fitOn?: 'all' | 'train';
  /**
   * After aggregation, abbreviations the text defines right after a weak span take its type
   * (core/weak/abbreviations.ts); `following`: how many following documents a definition also
   * holds in (for documents of one sentence). Absent: off.
   */
  abbreviations?: AbbreviationOptions;
  /**
   * Where the project has gold on dev, the aggregate is scored there both with and without the
   * abbreviations, so that dev can say whether to read them: with them off, they are tried with
   * this window (default: their document only).
   */
  tryAbbreviations?: AbbreviationOptions;
}

/** The aggregate on the dev gold with and without the abbreviations the text defines. */
export interface AbbreviationsOnDev {
  /** The window they were read with. */
  following: number;
  /** The spans they add to the aggregate on dev. */
  added: number;
  with: PRF;
  without: PRF;
}

export interface WeakSummary {
  runId: number;
  /** The label model that made the stored layer (with "dev", the one chosen). */
  method: AggregateMethod;
  /** Options "dev": each label model's aggregate span scores on the dev gold that chose it (by F1). */
  chosenOnDev?: Record<AggregateMethod, PRF>;
  /** The abbreviations the text defines: the window asked for, and the spans they added (absent when off). */
  abbreviations?: AbbreviationOptions & { added: number };
  /** Matches of untyped gazetteers given a type by their spelling (absent in runs made before it existed). */
  typedBySpelling?: number;
  documents: number;
  tokens: number;
  ms: { load: number; index: number; match: number; rules: number; aggregate: number; save: number; total: number };
  reusedIndex: boolean;
  sources: SourceStats[];
  /** What the HMM was fitted on, and how many documents that is (absent: not an HMM, or a run made before the choice existed: every document). */
  fitted?: { on: 'all' | 'train'; documents: number; em?: EmFit };
  /** The HMM's parameters as fitted (a downloaded model makes weak labels on new text with them); absent: not an HMM, or a run made before they were kept. */
  hmm?: KeptHmm;
  /** The aggregate against gold on the dev split, when the project has gold there. */
  aggregate?: SpanScores;
  /** The same with the abbreviations the other way (tried or left out), when the project has gold on dev. */
  abbreviationsOnDev?: AbbreviationsOnDev;
  goldDocuments: number;
}

/** A fitted HMM as a run keeps it: plain arrays. */
export type KeptHmm = NonNullable<WeakRecipe['hmm']>;

const keptHmm = (h: HmmParams): KeptHmm => ({ types: h.types, sources: h.sources, pi: Array.from(h.pi), A: Array.from(h.A), E: Array.from(h.E) });

/**
 * The project's weak sources: its gazetteers in priority order (not its stop lists, whose phrases
 * are `stop`, nor a public list added for its dictionary features only) with their entries, and its
 * enabled rules.
 */
async function readWeakSources(db: StudioDB, projectId: number) {
  const all = await db.gazetteers.where('projectId').equals(projectId).sortBy('priority');
  const gazetteers = all.filter((g) => !g.stop && !g.public?.featuresOnly);
  const entries = await Promise.all(gazetteers.map((g) => db.gazetteerEntries.where('gazetteerId').equals(g.id!).toArray()));
  const stopIds = all.filter((g) => g.stop).map((g) => g.id!);
  const stop = stopIds.length ? (await db.gazetteerEntries.where('gazetteerId').anyOf(stopIds).toArray()).map((e) => e.phrase) : [];
  const rules = (await db.rules.where('projectId').equals(projectId).sortBy('priority')).filter((r) => r.enabled);
  return { gazetteers, entries, rules, stop };
}

const weakGazetteers = (gazetteers: readonly GazetteerRow[], entries: readonly GazetteerEntryRow[][]): WeakGazetteer[] =>
  gazetteers.map((g, k) => ({
    name: g.name,
    mode: g.mode,
    priority: g.priority,
    entries: entries[k].map((e) => ({ phrase: e.phrase, type: e.type })),
    ...(g.caseUpTo ? { caseUpTo: g.caseUpTo } : {}),
  }));

const weakRules = (rules: readonly RuleRow[]) => rules.map((r) => ({ rule: r.rule, priority: 1000 + r.priority }));

/**
 * How the project makes its weak labels now: its sources, and the label model and options of its
 * newest finished weak labels run, with that run's HMM where it kept one. `types` are the weak-label
 * feature groups' types; `readAbbreviations` the run option read into them after.
 */
export async function weakRecipe(db: StudioDB, projectId: number, types: readonly string[], readAbbreviations?: AbbreviationOptions): Promise<WeakRecipe> {
  const project = await db.projects.get(projectId);
  if (!project) throw new Error(`project ${projectId} does not exist`);
  const last = await newestWeakRun(db, projectId);
  if (!last) throw new Error('the project has no finished weak labels run: make the weak labels on the Weak labels page first');
  const { gazetteers, entries, rules, stop } = await readWeakSources(db, projectId);
  const config = last.config as { typeUntyped?: boolean; abbreviations?: AbbreviationOptions };
  const summary = last.metrics as WeakSummary;
  return {
    types: [...types],
    labelTypes: project.types.map((t) => t.name),
    gazetteers: weakGazetteers(gazetteers, entries),
    rules: weakRules(rules),
    ...(stop.length ? { stop } : {}),
    method: summary.method,
    typeUntyped: config.typeUntyped ?? true,
    ...(config.abbreviations ? { abbreviations: config.abbreviations } : {}),
    ...(readAbbreviations ? { readAbbreviations } : {}),
    ...(summary.hmm ? { hmm: summary.hmm } : {}),
  };
}

/** Keeps one labeler per corpus so that re-running after a gazetteer or rule edit is incremental. */
const cache = new Map<string, WeakLabeler>();

/**
 * Labels a project's documents with its gazetteers and enabled rules, aggregates, stores the weak
 * layers (one transaction) and records the run with its statistics.
 */
export async function runWeakLabeling(db: StudioDB, projectId: number, options: WeakOptions, hooks: WeakHooks = {}): Promise<WeakSummary> {
  const { method, typeUntyped, abbreviations } = options;
  for (const [field, value] of [
    ['abbreviations', abbreviations],
    ['tryAbbreviations', options.tryAbbreviations],
  ] as const)
    if (value && !abbreviationOptionsSchema.safeParse(value).success)
      throw new Error(
        `${field}: ${JSON.stringify(value)} is not a window (the documents a definition also holds in: a whole number from 0 to ${MAX_FOLLOWING})`,
      );
  const fitOn = fitsHmm(method) ? (options.fitOn ?? 'all') : undefined;
  const t0 = performance.now();
  const project = await db.projects.get(projectId);
  if (!project) throw new Error(`project ${projectId} does not exist`);
  const docRows = await db.documents.where('projectId').equals(projectId).sortBy('id');
  if (!docRows.length) throw new Error('the project has no documents to label');
  const { gazetteers, entries, rules, stop } = await readWeakSources(db, projectId);
  if (!gazetteers.length && !rules.length) throw new Error('the project has no gazetteer and no enabled rule: add one first');
  const fitDocs = fitOn === 'train' ? docRows.flatMap((d, k) => (d.split === 'train' ? [k] : [])) : undefined;
  if (fitDocs && !fitDocs.length)
    throw new Error('the HMM is to be fitted on the train split, which has no documents: fit it on all documents, or move documents to train');
  const docIds = docRows.map((d) => d.id!);
  const goldLayer = await db.layers.where('[projectId+kind]').equals([projectId, 'gold']).first();
  const devIdx = docRows.map((d, k) => (d.split === 'dev' ? k : -1)).filter((k) => k >= 0);
  let gold: { docs: number[]; spans: Span[][] } | undefined;
  if (goldLayer && devIdx.length) {
    const anns = await layerAnnotations(
      db,
      goldLayer.id!,
      devIdx.map((k) => docIds[k]),
    );
    gold = { docs: devIdx, spans: anns.map((a) => a.spans) };
  }
  if (method === 'dev' && !gold?.spans.some((x) => x.length))
    throw new Error('choosing the label model on dev needs gold labels on the dev split: label some dev documents, or choose a label model');
  const runId = await addRun(db, {
    projectId,
    kind: 'weak',
    config: {
      method,
      typeUntyped,
      ...(fitOn ? { fitOn } : {}),
      ...(abbreviations ? { abbreviations } : {}),
      gazetteers: gazetteers.map((g) => g.name),
      ...(gazetteers.some((g) => g.caseUpTo) ? { caseUpTo: Object.fromEntries(gazetteers.filter((g) => g.caseUpTo).map((g) => [g.name, g.caseUpTo])) } : {}),
      rules: rules.map((r) => r.rule.name),
    },
    status: 'running',
    createdAt: Date.now(),
  });

  const key = `${projectId}:${docRows.length}:${docRows[docRows.length - 1].id}`;
  let labeler = cache.get(key);
  const reusedIndex = !!labeler;
  if (!labeler) {
    cache.clear();
    labeler = new WeakLabeler(docRows.map(weakDoc));
    cache.set(key, labeler);
  }
  const load = performance.now() - t0;
  const types = project.types.map((t) => t.name);
  try {
    const result = labeler.run(
      {
        gazetteers: weakGazetteers(gazetteers, entries),
        rules: weakRules(rules),
        types,
        method,
        typeUntyped,
        ...(stop.length ? { stop } : {}),
        ...(fitDocs ? { fitDocs } : {}),
        ...(abbreviations ? { abbreviations } : {}),
        ...(method === 'dev' && gold ? { chooseOn: { docs: gold.docs, gold: gold.spans } } : {}),
      },
      hooks,
    );
    const used = result.chosen?.method ?? (method as AggregateMethod);
    const t1 = performance.now();
    await saveWeakLabels(db, projectId, docIds, result.sources, result.aggregate, used);
    const save = performance.now() - t1;

    const summary: WeakSummary = {
      runId,
      method: used,
      ...(result.chosen ? { chosenOnDev: result.chosen.scores } : {}),
      typedBySpelling: result.typedBySpelling,
      ...(abbreviations ? { abbreviations: { ...abbreviations, added: result.abbreviated } } : {}),
      ...(fitOn && used === 'hmm'
        ? { fitted: { on: fitOn, documents: fitDocs?.length ?? docRows.length, ...(result.hmm?.fit ? { em: result.hmm.fit } : {}) } }
        : {}),
      ...(used === 'hmm' && result.hmm ? { hmm: keptHmm(result.hmm) } : {}),
      documents: docRows.length,
      tokens: result.tokens,
      ms: { load, ...result.ms, save, total: performance.now() - t0 },
      reusedIndex,
      sources: withReliability(
        sourceStats(
          result.sources,
          docRows.map((d) => d.tokenCount),
          gold,
        ),
        result.sources,
        result.beforeAbbreviations,
        used,
      ),
      aggregate: gold
        ? scoreSpans(
            gold.spans,
            gold.docs.map((k) => result.aggregate[k].spans),
          )
        : undefined,
      ...(gold
        ? { abbreviationsOnDev: abbreviationsOnDev(labeler, result, gold, abbreviations ?? options.tryAbbreviations ?? { following: 0 }, !!abbreviations) }
        : {}),
      goldDocuments: gold?.docs.length ?? 0,
    };
    await updateRun(db, runId, { status: 'done', metrics: summary, finishedAt: Date.now() });
    return summary;
  } catch (e) {
    await updateRun(db, runId, { status: 'failed', error: (e as Error).message, finishedAt: Date.now() });
    throw e;
  }
}

/**
 * Each source's statistics with its reliability as the HMM estimates it (no gold read); the
 * priority and vote aggregates estimate nothing, so their sources get none.
 */
function withReliability(stats: SourceStats[], sources: WeakResult['sources'], aggregate: readonly Annotation[], used: AggregateMethod): SourceStats[] {
  if (used !== 'hmm') return stats;
  const r = sourceReliability(sources, aggregate);
  return stats.map((s) => (r[s.name] ? { ...s, reliability: r[s.name] } : s));
}

/** The aggregate on the dev gold with the abbreviations read and without: `on` says which of the two the stored layer is. */
function abbreviationsOnDev(
  labeler: WeakLabeler,
  result: WeakResult,
  gold: { docs: number[]; spans: Span[][] },
  opt: AbbreviationOptions,
  on: boolean,
): AbbreviationsOnDev {
  const withThem = on ? result.aggregate : withAbbreviations(labeler.docs, result.beforeAbbreviations, opt).annotations;
  const score = (anns: readonly Annotation[]) =>
    scoreSpans(
      gold.spans,
      gold.docs.map((k) => anns[k].spans),
    ).overall;
  const added = gold.docs.reduce((a, k) => a + withThem[k].spans.length - result.beforeAbbreviations[k].spans.length, 0);
  return { following: opt.following, added, with: score(withThem), without: score(result.beforeAbbreviations) };
}
