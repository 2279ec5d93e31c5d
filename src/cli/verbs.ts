import type { parseArgs as ParseArgs } from 'node:util';
import { basename } from 'node:path';
import { scoreSpans } from '../core/metrics';
import { parseFollowing } from '../core/weak/abbreviations';
import { caseUpToProblem } from '../core/weak/gazetteerMatcher';
import { roundScores } from './roundScores';
import type { Annotation, LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';
import { tokenCount } from '../core/types';
import type { AggregateMethod } from '../core/weak/aggregate';
import type { CaseMode } from '../core/weak/normalize';
import { sourceStats } from '../core/weak/stats';
import { readCorpus, readGazetteer, type CorpusFormat, type GazetteerFormat } from './readCorpus';
import { weakLabelCorpus } from './weakLabel';

type Verb = (args: string[], parse: typeof ParseArgs) => Promise<Record<string, unknown>>;

function counts(c: ParsedCorpus) {
  return {
    documents: c.docs.length,
    sentences: c.docs.reduce((a, d) => a + d.sentenceStarts.length, 0),
    tokens: c.docs.reduce((a, d) => a + tokenCount(d), 0),
    types: c.types,
    layers: c.layers.map((l) => ({ kind: l.kind, name: l.name, spans: l.annotations.reduce((a, x) => a + x.spans.length, 0) })),
  };
}

function perType(anns: readonly Annotation[]): Record<string, { spans: number; tokens: number }> {
  const out: Record<string, { spans: number; tokens: number }> = {};
  for (const a of anns)
    for (const s of a.spans) {
      const c = (out[s.label] ??= { spans: 0, tokens: 0 });
      c.spans++;
      c.tokens += s.end - s.start;
    }
  return out;
}

const corpusOptions = {
  format: { type: 'string' },
  labels: { type: 'string', multiple: true },
  scheme: { type: 'string', default: 'BIO' },
  split: { type: 'string', default: 'train' },
} as const;

/** Each verb's options, as the parser reads them: help.ts explains every one (help.test.ts checks). */
export const VERB_OPTIONS = {
  import: corpusOptions,
  stats: corpusOptions,
  weak: {
    gazetteer: { type: 'string', multiple: true },
    untyped: { type: 'string', multiple: true },
    rules: { type: 'string' },
    corpus: { type: 'string' },
    gold: { type: 'string' },
    case: { type: 'string', default: 'insensitive' },
    aggregate: { type: 'string', default: 'priority' },
    format: { type: 'string' },
    'untyped-as-is': { type: 'boolean' },
    abbreviations: { type: 'string' },
    'case-up-to': { type: 'string' },
  },
  train: { config: { type: 'string' }, out: { type: 'string' }, data: { type: 'string' } },
  eval: { model: { type: 'string' }, corpus: { type: 'string' }, labels: { type: 'string' }, scheme: { type: 'string' } },
  predict: { model: { type: 'string' }, corpus: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' } },
  experiment: {
    config: { type: 'string' },
    data: { type: 'string' },
    only: { type: 'string', multiple: true },
    method: { type: 'string', multiple: true },
    key: { type: 'string', multiple: true },
    report: { type: 'boolean' },
    cost: { type: 'boolean' },
    shard: { type: 'string' },
    jobs: { type: 'string' },
    loco: { type: 'boolean' },
    out: { type: 'string' },
  },
  'simulate-review': {
    config: { type: 'string' },
    data: { type: 'string' },
    only: { type: 'string', multiple: true },
    seed: { type: 'string', multiple: true },
    report: { type: 'boolean' },
  },
} as const;

function labelArgs(labels: string[] | undefined): { file: string; kind: LayerKind; name: string }[] {
  // --labels FILE or --labels kind:name=FILE
  return (labels ?? []).map((l, k) => {
    const m = /^(gold|weak|corrected|predicted):([^=]+)=(.+)$/.exec(l);
    return m ? { kind: m[1] as LayerKind, name: m[2], file: m[3] } : { kind: k === 0 ? 'gold' : 'weak', name: basename(l).replace(/\.[^.]+$/, ''), file: l };
  });
}

const importVerb: Verb = async (args, parse) => {
  const { values, positionals } = parse({ args, options: VERB_OPTIONS.import, allowPositionals: true });
  const [file] = positionals;
  if (!file) throw new Error('import: name a file');
  const gz = values.format?.startsWith('gazetteer-') ? (values.format.slice(10) as GazetteerFormat) : null;
  if (gz) {
    const g = readGazetteer(file, gz);
    return {
      file,
      entries: g.entries.length,
      untyped: g.entries.filter((e) => e.type === null).length,
      patterns: g.patterns.length,
      types: [...new Set(g.entries.map((e) => e.type).filter(Boolean))].sort(),
    };
  }
  const c = readCorpus(file, {
    format: values.format as CorpusFormat | undefined,
    labels: labelArgs(values.labels),
    scheme: values.scheme as TagScheme,
    split: values.split as Split,
  });
  return { file, ...counts(c) };
};

const statsVerb: Verb = async (args, parse) => {
  const { values, positionals } = parse({ args, options: VERB_OPTIONS.stats, allowPositionals: true });
  const [file] = positionals;
  if (!file) throw new Error('stats: name a file');
  const c = readCorpus(file, {
    format: values.format as CorpusFormat | undefined,
    labels: labelArgs(values.labels),
    scheme: values.scheme as TagScheme,
    split: values.split as Split,
  });
  const lengths = c.docs.flatMap((d) => d.sentenceStarts.map((s, k) => (d.sentenceStarts[k + 1] ?? tokenCount(d)) - s));
  return {
    file,
    ...counts(c),
    sentenceLength: { mean: lengths.reduce((a, b) => a + b, 0) / lengths.length, max: Math.max(...lengths) },
    perLayer: Object.fromEntries(c.layers.map((l) => [l.name, perType(l.annotations)])),
  };
};

const weakVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS.weak });
  if (!values.corpus) throw new Error('weak: --corpus FILE is required');
  const mode = values.case as CaseMode;
  if (!['sensitive', 'insensitive', 'normalized'].includes(mode)) throw new Error(`weak: --case must be sensitive, insensitive or normalized, not "${mode}"`);
  const method = values.aggregate as AggregateMethod;
  if (!['priority', 'vote', 'hmm'].includes(method)) throw new Error(`weak: --aggregate must be priority, vote or hmm, not "${method}"`);
  const caseUpTo = values['case-up-to'] === undefined ? undefined : Number(values['case-up-to']);
  const caseProblem = caseUpTo === undefined ? null : caseUpToProblem(caseUpTo);
  if (caseProblem) throw new Error(`weak: --case-up-to "${values['case-up-to']}": ${caseProblem}`);
  const typedWindow = values.abbreviations === undefined ? undefined : parseFollowing(values.abbreviations);
  if (typedWindow && 'error' in typedWindow)
    throw new Error(`weak: --abbreviations takes how many following documents a definition holds in: ${typedWindow.error}`);
  const {
    corpus,
    result,
    docs,
    wallMs: wall,
  } = weakLabelCorpus({
    corpus: values.corpus,
    format: values.format as CorpusFormat | undefined,
    gold: values.gold,
    gazetteers: values.gazetteer ?? [],
    untyped: values.untyped ?? [],
    rules: values.rules,
    mode,
    method,
    typeUntyped: !values['untyped-as-is'],
    ...(typedWindow ? { abbreviations: typedWindow } : {}),
    ...(caseUpTo !== undefined ? { caseUpTo } : {}),
  });
  const gold = values.gold ? corpus.layers.find((l) => l.kind === 'gold') : undefined;
  const out: Record<string, unknown> = {
    corpus: values.corpus,
    documents: docs.length,
    tokens: result.tokens,
    sources: result.sources.map((s) => ({ name: s.name, spans: s.spans.reduce((a, x) => a + x.length, 0) })),
    aggregate: method,
    case: mode,
    spans: result.aggregate.reduce((a, x) => a + x.spans.length, 0),
    unknownSpans: result.aggregate.reduce((a, x) => a + x.spans.filter((s) => s.label === '?').length, 0),
    typedBySpelling: result.typedBySpelling,
    ...(typedWindow ? { abbreviated: result.abbreviated } : {}),
    ms: { ...result.ms, total: wall },
    tokensPerSecond: Math.round(result.tokens / (wall / 1000)),
  };
  if (gold) {
    const goldSpans = gold.annotations.map((a) => a.spans);
    out.scores = roundScores(
      scoreSpans(
        goldSpans,
        result.aggregate.map((a) => a.spans),
      ),
    );
    out.sourceStats = sourceStats(
      result.sources,
      docs.map((d) => d.tokens.length),
      { docs: docs.map((_, k) => k), spans: goldSpans },
    ).map((s) => ({ ...s, gold: s.gold && roundScores(s.gold) }));
  }
  return out;
};

const trainVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS.train });
  if (!values.config) throw new Error('train: --config FILE is required');
  const { trainFromConfig } = await import('./train');
  return trainFromConfig(values.config, values.out, values.data);
};

const evalVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS.eval });
  if (!values.model || !values.corpus) throw new Error('eval: --model FILE (from train --out) and --corpus FILE are required');
  const { evalModel } = await import('./train');
  return evalModel(values.model, values.corpus, values.labels, values.scheme);
};

const predictVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS.predict });
  if (!values.model || !values.corpus || !values.out) throw new Error('predict: --model FILE (from train --out), --corpus FILE and --out FILE are required');
  const formats = ['conll', 'lines', 'jsonl', 'text'];
  if (values.format !== undefined && !formats.includes(values.format))
    throw new Error(`predict: --format ${values.format}: expected one of ${formats.join(', ')}`);
  const { predictCorpus } = await import('./train');
  return predictCorpus(values.model, values.corpus, values.out, values.format as CorpusFormat | undefined);
};

const experimentVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS.experiment });
  if (!values.config) throw new Error('experiment: --config FILE is required');
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1))
    throw new Error(`experiment: --jobs ${values.jobs}: expected a whole number of processes, 1 or more`);
  const { parseShard, runExperiment } = await import('./experiment');
  return runExperiment(values.config, {
    data: values.data,
    only: values.only,
    methods: values.method,
    keys: values.key,
    report: values.report || values.cost,
    cost: values.cost,
    loco: values.loco,
    out: values.out,
    jobs,
    shard: values.shard === undefined ? undefined : parseShard(values.shard),
  });
};

const simulateReviewVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: VERB_OPTIONS['simulate-review'] });
  if (!values.config) throw new Error('simulate-review: --config FILE is required');
  const seeds = values.seed?.map((x) => {
    const n = Number(x);
    if (!Number.isInteger(n)) throw new Error(`simulate-review: --seed ${x}: expected a whole number`);
    return n;
  });
  const { simulateReview } = await import('./simulateReview');
  return simulateReview(values.config, { data: values.data, only: values.only, seeds, report: values.report });
};

export const VERBS: Record<string, Verb> = {
  import: importVerb,
  stats: statsVerb,
  weak: weakVerb,
  train: trainVerb,
  eval: evalVerb,
  predict: predictVerb,
  experiment: experimentVerb,
  'simulate-review': simulateReviewVerb,
};
