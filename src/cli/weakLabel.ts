import { basename } from 'node:path';
import type { ParsedCorpus } from '../core/types';
import type { HmmParams } from '../core/weak/hmm';
import type { AbbreviationOptions } from '../core/weak/abbreviations';
import type { AggregateMethod } from '../core/weak/aggregate';
import type { CaseMode } from '../core/weak/normalize';
import { WeakLabeler, type WeakResult, weakDoc } from '../core/weak/pipeline';
import { ruleSchema, type Rule } from '../core/weak/rules';
import { readCorpus, readGazetteer, readJson, type CorpusFormat } from './readCorpus';
import { issueSentence } from '../core/issueSentence';

export interface WeakLabelOptions {
  corpus: string;
  format?: CorpusFormat;
  /** A gold label file for the corpus (a CoNLL corpus carries its own). */
  gold?: string;
  gazetteers: readonly string[];
  untyped: readonly string[];
  rules?: string;
  mode: CaseMode;
  method: AggregateMethod;
  /** Decode with an HMM fitted on other text (no fitting on this corpus). */
  hmm?: HmmParams;
  /** The label types (those of the text the HMM was fitted on), in place of the ones gathered here. */
  types?: readonly string[];
  /** Type the untyped gazetteers' matches by their spelling before aggregating (default true). */
  typeUntyped?: boolean;
  /**
   * Other text the HMM is fitted on with the corpus (dev and test text, say, as the Weak labels page
   * fits on every document of a project): the corpus is then decoded by that HMM. No gold is read.
   */
  fitAlso?: readonly ParsedCorpus[];
  /** The abbreviations the text defines as one more source (core/weak/abbreviations.ts). */
  abbreviations?: AbbreviationOptions;
  /** Every gazetteer's entries of at most this many characters match only with their own case. */
  caseUpTo?: number;
  /** EM's iteration cap where the HMM is fitted (HMM_ITERATIONS when absent). */
  hmmIterations?: number;
}

/**
 * Weak labels for a corpus file from gazetteer files (typed TSV or spaCy patterns, and untyped
 * phrase lists) and a rules file, aggregated: what the `weak` verb and dictionary-only
 * experiments run, the same engine as the browser's.
 */
export function weakLabelCorpus(o: WeakLabelOptions): { corpus: ParsedCorpus; result: WeakResult; docs: { tokens: readonly string[] }[]; wallMs: number } {
  const goldIsCorpus = o.gold && o.gold === o.corpus;
  const corpus = readCorpus(o.corpus, { format: o.format, labels: o.gold && !goldIsCorpus ? [{ file: o.gold, kind: 'gold', name: 'gold' }] : [] });
  const gazetteers = [
    ...o.gazetteers.map((f) => ({ f, g: readGazetteer(f, f.endsWith('.jsonl') ? 'patterns' : 'tsv') })),
    ...o.untyped.map((f) => ({ f, g: readGazetteer(f, 'untyped') })),
  ];
  const rules: { rule: Rule; priority: number }[] = [];
  for (const { f, g } of gazetteers) {
    g.patterns.forEach((p, k) =>
      rules.push({ rule: { kind: 'tokens', name: `${basename(f)}:${p.line}`, label: p.label, pattern: p.pattern }, priority: 100 + k }),
    );
  }
  if (o.rules) readRulesFile(o.rules).forEach((rule, k) => rules.push({ rule, priority: 200 + k }));
  const types =
    o.types ??
    [
      ...new Set([
        ...corpus.types,
        ...gazetteers.flatMap(({ g }) => g.entries.map((e) => e.type).filter((t): t is string => t !== null)),
        ...rules.map((r) => r.rule.label),
      ]),
    ].sort();
  const docsOf = (c: ParsedCorpus) => c.docs.map(weakDoc);
  const docs = docsOf(corpus);
  const t0 = performance.now();
  const label = (ds: typeof docs, hmm?: HmmParams) =>
    new WeakLabeler(ds).run({
      gazetteers: gazetteers.map(({ f, g }, k) => ({
        name: basename(f),
        mode: o.mode,
        priority: k,
        entries: g.entries,
        ...(o.caseUpTo !== undefined ? { caseUpTo: o.caseUpTo } : {}),
      })),
      rules,
      types,
      method: o.method,
      ...(hmm ? { hmm } : {}),
      ...(o.typeUntyped === false ? { typeUntyped: false } : {}),
      ...(o.abbreviations ? { abbreviations: o.abbreviations } : {}),
      ...(o.hmmIterations !== undefined ? { hmmIterations: o.hmmIterations } : {}),
    });
  const fitted = !o.hmm && o.method === 'hmm' && o.fitAlso?.length ? label([...docs, ...o.fitAlso.flatMap(docsOf)]).hmm : undefined;
  const result = label(docs, o.hmm ?? fitted);
  return { corpus, result, docs, wallMs: performance.now() - t0 };
}

/** A rules file's rules (a JSON array), each checked; an error names the file and the rule's place. */
export function readRulesFile(file: string): Rule[] {
  const raw = readJson(file);
  if (!Array.isArray(raw)) throw new Error(`${file}: a rules file is a JSON array of rules, not ${raw === null ? 'null' : typeof raw}`);
  return raw.map((r, k) => {
    const parsed = ruleSchema.safeParse(r);
    if (!parsed.success) throw new Error(`${file}: rule ${k + 1}: ${parsed.error.issues[0].path.join('.')}: ${issueSentence(parsed.error.issues[0])}`);
    return parsed.data;
  });
}
