import type { GazetteerEntry } from '../formats/gazetteer';
import { type PRF, scoreSpans } from '../metrics';
import { type Annotation, type ParsedDoc, type Span, tokenTexts } from '../types';
import { type AbbreviationOptions, withAbbreviations } from './abbreviations';
import type { AggregateMethod, LabelModel, SourceOutput } from './aggregate';
import { aggregateWith, LABEL_MODEL_ORDER } from './aggregate';
import type { HmmParams } from './hmm';
import { GazetteerMatcher } from './gazetteerMatcher';
import type { CaseMode } from './normalize';
import type { Rule, RuleDoc } from './rules';
import { compileRule } from './rules';
import { trainSpellingTyper, typeUnknownSpans } from './spellingTyper';
import { TokenIndex } from './tokenIndex';

export interface WeakDoc extends RuleDoc {}

/** A document as the weak labeler reads it: its text, token offsets, tokens and sentence starts. */
export const weakDoc = (d: Pick<ParsedDoc, 'text' | 'offsets' | 'sentenceStarts'>): WeakDoc => ({
  text: d.text,
  offsets: d.offsets,
  tokens: tokenTexts(d),
  sentenceStarts: d.sentenceStarts,
});

export interface WeakGazetteer {
  name: string;
  mode: CaseMode;
  priority: number;
  entries: readonly GazetteerEntry[];
  /** Entries of at most this many characters match only with their own case (GazetteerSpec.caseUpTo). */
  caseUpTo?: number;
}

export interface WeakRequest {
  docs: readonly WeakDoc[];
  gazetteers: readonly WeakGazetteer[];
  rules: readonly { rule: Rule; priority: number }[];
  types: readonly string[];
  /** How the sources combine; "dev": each label model, keeping the one best on `chooseOn`'s gold. */
  method: LabelModel;
  /** method "dev": the documents (indices) whose gold chooses the label model, and their gold spans. */
  chooseOn?: { docs: readonly number[]; gold: readonly (readonly Span[])[] };
  /** HMM parameters fitted on other text (the training text's) to decode this corpus with, unfitted. */
  hmm?: HmmParams;
  /**
   * Give the matches of untyped gazetteers a type from their spelling, learned from the typed
   * gazetteers' phrases (spellingTyper.ts), before aggregation. Default true.
   */
  typeUntyped?: boolean;
  /** Phrases that are no entity (a stop list): every source's match of exactly these words is left out of the aggregation. */
  stop?: readonly string[];
  /**
   * The documents (indices) the HMM is fitted on, when it is fitted here (no `hmm`); the others are
   * decoded by it, unfitted. Default: every document.
   */
  fitDocs?: readonly number[];
  /**
   * After aggregation, the abbreviations the text defines right after a weak span
   * ("chloroacetaldehyde ( CAA )") take its type where the weak labels say O (abbreviations.ts);
   * absent: off.
   */
  abbreviations?: AbbreviationOptions;
  /** EM's iteration cap where the HMM is fitted (HMM_ITERATIONS when absent); it stops sooner where it settles. */
  hmmIterations?: number;
}

export interface WeakResult {
  sources: SourceOutput[];
  aggregate: Annotation[];
  /** The HMM's parameters, when the aggregation is one. */
  hmm?: HmmParams;
  /** method "dev": the label model kept (by F1), and each one's span scores on the choosing documents. */
  chosen?: { method: AggregateMethod; scores: Record<AggregateMethod, PRF> };
  /** How many spans the abbreviations the text defines added to the aggregate (0 when off). */
  abbreviated: number;
  /** The aggregate before the abbreviations were read into it (the same array as `aggregate` when they are off). */
  beforeAbbreviations: Annotation[];
  /** How many matches of unknown type the spelling typer gave a type (0 when it did not run). */
  typedBySpelling: number;
  tokens: number;
  ms: { index: number; match: number; rules: number; aggregate: number };
}

export interface WeakHooks {
  onProgress?: (done: number, total: number, stage: string) => void;
  /** Checked between stages and documents; throw to cancel. */
  checkCancel?: () => void;
}

/**
 * Caches one TokenIndex per case mode for a corpus, so that re-labeling after a gazetteer edit
 * re-builds only the trie (milliseconds) and not the interned corpus.
 */
export class WeakLabeler {
  private readonly indexes = new Map<CaseMode, TokenIndex>();

  constructor(readonly docs: readonly WeakDoc[]) {}

  index(mode: CaseMode): TokenIndex {
    let ix = this.indexes.get(mode);
    if (!ix) this.indexes.set(mode, (ix = TokenIndex.build(mode, this.docs)));
    return ix;
  }

  run(req: Omit<WeakRequest, 'docs'>, hooks: WeakHooks = {}): WeakResult {
    const now = () => performance.now();
    const ms = { index: 0, match: 0, rules: 0, aggregate: 0 };
    const total = req.gazetteers.length + req.rules.length + 1;
    let step = 0;
    const sources: SourceOutput[] = [];
    for (const g of req.gazetteers) {
      hooks.checkCancel?.();
      hooks.onProgress?.(step++, total, `gazetteer ${g.name}`);
      let t0 = now();
      const ix = this.index(g.mode);
      ms.index += now() - t0;
      t0 = now();
      const keepsCase = g.caseUpTo !== undefined && g.mode !== 'sensitive';
      const matcher = new GazetteerMatcher(
        { name: g.name, mode: g.mode, priority: g.priority, entries: g.entries, ...(keepsCase ? { caseUpTo: g.caseUpTo } : {}) },
        ix,
        keepsCase ? this.index('sensitive') : undefined,
      );
      sources.push({ name: g.name, priority: g.priority, spans: matcher.match(req.types) });
      ms.match += now() - t0;
    }
    for (const { rule, priority } of req.rules) {
      hooks.onProgress?.(step++, total, `rule ${rule.name}`);
      const t0 = now();
      const label = compileRule(rule);
      const spans = this.docs.map((d, k) => {
        if (k % 256 === 0) hooks.checkCancel?.();
        return label(d);
      });
      sources.push({ name: rule.name, priority, spans });
      ms.rules += now() - t0;
    }
    hooks.checkCancel?.();
    hooks.onProgress?.(step++, total, `aggregate (${req.method})`);
    const t0 = now();
    const sentences = this.docs.map((d) => d.sentenceStarts.map((s, k) => [s, d.sentenceStarts[k + 1] ?? d.tokens.length] as [number, number]));
    // The sources' own output stays as it is (the per-source statistics show what each said); the
    // aggregation reads the untyped matches with the types their spelling suggests.
    const typer =
      (req.typeUntyped ?? true)
        ? trainSpellingTyper(
            req.gazetteers.flatMap((g) => g.entries.filter((e) => e.type !== null).map((e) => ({ words: e.phrase.split(/\s+/), type: e.type as string }))),
          )
        : null;
    const kept = req.stop?.length ? withoutStopped(sources, new Set(req.stop), (d, s) => this.docs[d].tokens.slice(s.start, s.end).join(' ')) : sources;
    const typed = typer ? typeUnknownSpans(kept, typer, (d, s) => this.docs[d].tokens.slice(s.start, s.end)) : { sources: kept, typed: 0 };
    const input = { sources: typed.sources, sentences, types: req.types };
    const aggregateBy = (method: AggregateMethod) => {
      let fixed = req.hmm;
      if (!fixed && method === 'hmm' && req.fitDocs) {
        if (!req.fitDocs.length) throw new Error('the HMM has no document to be fitted on');
        const fitDocs = req.fitDocs;
        fixed = aggregateWith(
          'hmm',
          {
            ...input,
            sources: input.sources.map((src) => ({ ...src, spans: fitDocs.map((d) => src.spans[d]) })),
            sentences: fitDocs.map((d) => sentences[d]),
          },
          undefined,
          req.hmmIterations,
        ).hmm;
      }
      const a = aggregateWith(method, input, fixed, req.hmmIterations);
      if (!req.abbreviations) return { ...a, abbreviated: 0, before: a.annotations };
      const ab = withAbbreviations(this.docs, a.annotations, req.abbreviations);
      return { ...a, annotations: ab.annotations, abbreviated: ab.added, before: a.annotations };
    };
    let agg: ReturnType<typeof aggregateBy>;
    let chosen: WeakResult['chosen'];
    if (req.method === 'dev') {
      const on = req.chooseOn;
      if (!on?.docs.length) throw new Error('choosing the label model on dev needs documents with gold labels on the dev split');
      // Scored as the page scores the aggregate: its spans against the documents' gold.
      const tried = LABEL_MODEL_ORDER.map((method) => {
        hooks.checkCancel?.();
        const a = aggregateBy(method);
        const scores = scoreSpans(
          on.gold,
          on.docs.map((d) => a.annotations[d].spans),
        ).overall;
        return { method, a, scores };
      });
      const best = tried.reduce((x, y) => (y.scores.f1 > x.scores.f1 ? y : x));
      agg = best.a;
      chosen = { method: best.method, scores: Object.fromEntries(tried.map((t) => [t.method, t.scores])) as Record<AggregateMethod, PRF> };
    } else agg = aggregateBy(req.method);
    ms.aggregate = now() - t0;
    hooks.onProgress?.(total, total, 'done');
    return {
      sources,
      aggregate: agg.annotations,
      ...(agg.hmm ? { hmm: agg.hmm } : {}),
      ...(chosen ? { chosen } : {}),
      abbreviated: agg.abbreviated,
      beforeAbbreviations: agg.before,
      typedBySpelling: typed.typed,
      tokens: this.docs.reduce((a, d) => a + d.tokens.length, 0),
      ms,
    };
  }
}

/** The sources' matches less those whose words are on the stop list (the sources' own output is kept for their statistics). */
export function withoutStopped(sources: readonly SourceOutput[], stop: ReadonlySet<string>, phrase: (doc: number, s: Span) => string): SourceOutput[] {
  return sources.map((src) => ({ ...src, spans: src.spans.map((spans, d) => spans.filter((s) => !stop.has(phrase(d, s)))) }));
}
