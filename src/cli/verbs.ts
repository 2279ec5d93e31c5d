import type { parseArgs as ParseArgs } from 'node:util';
import { basename } from 'node:path';
import { scoreSpans } from '../core/metrics';
import { roundScores } from './roundScores';
import { readFileSync } from 'node:fs';
import type { Annotation, LayerKind, ParsedCorpus, Split, TagScheme } from '../core/types';
import { tokenCount, tokenTexts } from '../core/types';
import type { AggregateMethod } from '../core/weak/aggregate';
import type { CaseMode } from '../core/weak/normalize';
import { WeakLabeler } from '../core/weak/pipeline';
import { ruleSchema, type Rule } from '../core/weak/rules';
import { sourceStats } from '../core/weak/stats';
import { readCorpus, readGazetteer, type CorpusFormat, type GazetteerFormat } from './readCorpus';

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
  for (const a of anns) for (const s of a.spans) {
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

function labelArgs(labels: string[] | undefined): { file: string; kind: LayerKind; name: string }[] {
  // --labels FILE or --labels kind:name=FILE
  return (labels ?? []).map((l, k) => {
    const m = /^(gold|weak|corrected|predicted):([^=]+)=(.+)$/.exec(l);
    return m ? { kind: m[1] as LayerKind, name: m[2], file: m[3] } : { kind: k === 0 ? 'gold' : 'weak', name: basename(l).replace(/\.[^.]+$/, ''), file: l };
  });
}

const importVerb: Verb = async (args, parse) => {
  const { values, positionals } = parse({ args, options: corpusOptions, allowPositionals: true });
  const [file] = positionals;
  if (!file) throw new Error('import: name a file');
  const gz = values.format?.startsWith('gazetteer-') ? (values.format.slice(10) as GazetteerFormat) : null;
  if (gz) {
    const g = readGazetteer(file, gz);
    return { file, entries: g.entries.length, untyped: g.entries.filter((e) => e.type === null).length, patterns: g.patterns.length, types: [...new Set(g.entries.map((e) => e.type).filter(Boolean))].sort() };
  }
  const c = readCorpus(file, { format: values.format as CorpusFormat | undefined, labels: labelArgs(values.labels), scheme: values.scheme as TagScheme, split: values.split as Split });
  return { file, ...counts(c) };
};

const statsVerb: Verb = async (args, parse) => {
  const { values, positionals } = parse({ args, options: corpusOptions, allowPositionals: true });
  const [file] = positionals;
  if (!file) throw new Error('stats: name a file');
  const c = readCorpus(file, { format: values.format as CorpusFormat | undefined, labels: labelArgs(values.labels), scheme: values.scheme as TagScheme, split: values.split as Split });
  const lengths = c.docs.flatMap((d) => d.sentenceStarts.map((s, k) => (d.sentenceStarts[k + 1] ?? tokenCount(d)) - s));
  return {
    file,
    ...counts(c),
    sentenceLength: { mean: lengths.reduce((a, b) => a + b, 0) / lengths.length, max: Math.max(...lengths) },
    perLayer: Object.fromEntries(c.layers.map((l) => [l.name, perType(l.annotations)])),
  };
};


const weakVerb: Verb = async (args, parse) => {
  const { values } = parse({
    args,
    options: {
      gazetteer: { type: 'string', multiple: true },
      untyped: { type: 'string', multiple: true },
      rules: { type: 'string' },
      corpus: { type: 'string' },
      gold: { type: 'string' },
      case: { type: 'string', default: 'insensitive' },
      aggregate: { type: 'string', default: 'priority' },
      format: { type: 'string' },
    },
  });
  if (!values.corpus) throw new Error('weak: --corpus FILE is required');
  const mode = values.case as CaseMode;
  if (!['sensitive', 'insensitive', 'normalized'].includes(mode)) throw new Error(`weak: --case must be sensitive, insensitive or normalized, not "${mode}"`);
  const method = values.aggregate as AggregateMethod;
  if (!['priority', 'vote', 'hmm'].includes(method)) throw new Error(`weak: --aggregate must be priority, vote or hmm, not "${method}"`);
  const goldIsCorpus = values.gold && values.gold === values.corpus;
  const corpus = readCorpus(values.corpus, {
    format: values.format as CorpusFormat | undefined,
    labels: values.gold && !goldIsCorpus ? [{ file: values.gold, kind: 'gold', name: 'gold' }] : [],
  });
  const gold = values.gold ? corpus.layers.find((l) => l.kind === 'gold') : undefined;
  const gazetteers = [
    ...(values.gazetteer ?? []).map((f) => ({ f, g: readGazetteer(f, f.endsWith('.jsonl') ? 'patterns' : 'tsv') })),
    ...(values.untyped ?? []).map((f) => ({ f, g: readGazetteer(f, 'untyped') })),
  ];
  const rules: { rule: Rule; priority: number }[] = [];
  for (const { f, g } of gazetteers) {
    g.patterns.forEach((p, k) => rules.push({ rule: { kind: 'tokens', name: `${basename(f)}:${p.line}`, label: p.label, pattern: p.pattern }, priority: 100 + k }));
  }
  if (values.rules) {
    const raw = JSON.parse(readFileSync(values.rules, 'utf8')) as unknown[];
    raw.forEach((r, k) => {
      const parsed = ruleSchema.safeParse(r);
      if (!parsed.success) throw new Error(`${values.rules}: rule ${k + 1}: ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
      rules.push({ rule: parsed.data, priority: 200 + k });
    });
  }
  const types = [...new Set([...corpus.types, ...gazetteers.flatMap(({ g }) => g.entries.map((e) => e.type).filter((t): t is string => t !== null)), ...rules.map((r) => r.rule.label)])].sort();
  const docs = corpus.docs.map((d) => ({ text: d.text, offsets: d.offsets, tokens: tokenTexts(d), sentenceStarts: d.sentenceStarts }));
  const t0 = performance.now();
  const labeler = new WeakLabeler(docs);
  const result = labeler.run({ gazetteers: gazetteers.map(({ f, g }, k) => ({ name: basename(f), mode, priority: k, entries: g.entries })), rules, types, method });
  const wall = performance.now() - t0;
  const out: Record<string, unknown> = {
    corpus: values.corpus,
    documents: docs.length,
    tokens: result.tokens,
    sources: result.sources.map((s) => ({ name: s.name, spans: s.spans.reduce((a, x) => a + x.length, 0) })),
    aggregate: method,
    case: mode,
    spans: result.aggregate.reduce((a, x) => a + x.spans.length, 0),
    unknownSpans: result.aggregate.reduce((a, x) => a + x.spans.filter((s) => s.label === '?').length, 0),
    ms: { ...result.ms, total: wall },
    tokensPerSecond: Math.round(result.tokens / (wall / 1000)),
  };
  if (gold) {
    const goldSpans = gold.annotations.map((a) => a.spans);
    out.scores = roundScores(scoreSpans(goldSpans, result.aggregate.map((a) => a.spans)));
    out.sourceStats = sourceStats(result.sources, docs.map((d) => d.tokens.length), { docs: docs.map((_, k) => k), spans: goldSpans }).map((s) => ({ ...s, gold: s.gold && roundScores(s.gold) }));
  }
  return out;
};

const trainVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: { config: { type: 'string' }, out: { type: 'string' } } });
  if (!values.config) throw new Error('train: --config FILE is required');
  const { trainFromConfig } = await import('./train');
  return trainFromConfig(values.config, values.out);
};

const evalVerb: Verb = async (args, parse) => {
  const { values } = parse({ args, options: { model: { type: 'string' }, corpus: { type: 'string' }, labels: { type: 'string' }, scheme: { type: 'string' } } });
  if (!values.model || !values.corpus) throw new Error('eval: --model FILE (from train --out) and --corpus FILE are required');
  const { evalModel } = await import('./train');
  return evalModel(values.model, values.corpus, values.labels, values.scheme);
};

export const VERBS: Record<string, Verb> = { import: importVerb, stats: statsVerb, weak: weakVerb, train: trainVerb, eval: evalVerb };
