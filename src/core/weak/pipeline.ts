import type { GazetteerEntry } from '../formats/gazetteer';
import type { Annotation } from '../types';
import type { AggregateMethod, SourceOutput } from './aggregate';
import { aggregateWith } from './aggregate';
import type { HmmParams } from './hmm';
import { GazetteerMatcher } from './gazetteerMatcher';
import type { CaseMode } from './normalize';
import type { Rule, RuleDoc } from './rules';
import { compileRule } from './rules';
import { TokenIndex } from './tokenIndex';

export interface WeakDoc extends RuleDoc {}

export interface WeakGazetteer {
  name: string;
  mode: CaseMode;
  priority: number;
  entries: readonly GazetteerEntry[];
}

export interface WeakRequest {
  docs: readonly WeakDoc[];
  gazetteers: readonly WeakGazetteer[];
  rules: readonly { rule: Rule; priority: number }[];
  types: readonly string[];
  method: AggregateMethod;
  /** HMM parameters fitted on other text (the training text's) to decode this corpus with, unfitted. */
  hmm?: HmmParams;
}

export interface WeakResult {
  sources: SourceOutput[];
  aggregate: Annotation[];
  /** The HMM's parameters, when the aggregation is one. */
  hmm?: HmmParams;
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
      const matcher = new GazetteerMatcher({ name: g.name, mode: g.mode, priority: g.priority, entries: g.entries }, ix);
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
    const agg = aggregateWith(req.method, { sources, sentences, types: req.types }, req.hmm);
    ms.aggregate = now() - t0;
    hooks.onProgress?.(total, total, 'done');
    return { sources, aggregate: agg.annotations, ...(agg.hmm ? { hmm: agg.hmm } : {}), tokens: this.docs.reduce((a, d) => a + d.tokens.length, 0), ms };
  }
}
