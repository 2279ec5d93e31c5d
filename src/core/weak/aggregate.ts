import { tagsToSpans } from '../tagScheme';
import type { Annotation } from '../types';
import { UNKNOWN_TYPE } from '../types';
import { resolveOverlaps } from './gazetteerMatcher';
import { hmmLabel, type HmmParams } from './hmm';
import { sourceTags, type AggregateInput } from './sources';

export { sourceTags, type AggregateInput, type SourceOutput } from './sources';

export type AggregateMethod = 'priority' | 'vote' | 'hmm';
export const AGGREGATE_METHODS: readonly AggregateMethod[] = ['priority', 'vote', 'hmm'];
/** A label model, or "dev": the one whose weak labels score best against the dev split's gold. */
export type LabelModel = AggregateMethod | 'dev';
/** The order in which "dev" tries the label models: a tie keeps the earlier (the HMM, the studio's default). */
export const LABEL_MODEL_ORDER: readonly AggregateMethod[] = ['hmm', 'priority', 'vote'];
/** Whether a label model fits the HMM (it is one, or "dev" tries it): where the text it is fitted on is a choice. */
export const fitsHmm = (m: LabelModel): boolean => m === 'hmm' || m === 'dev';

/**
 * Combines sources into one weak layer. Typed evidence decides the types; spans of unknown type
 * (untyped dictionaries, ambiguous phrases) are then kept where the aggregate says O, so methods
 * can treat them as neither O nor a known type.
 */
export function aggregate(method: AggregateMethod, input: AggregateInput): Annotation[] {
  return aggregateWith(method, input).annotations;
}

/**
 * aggregate, with the HMM's fitted parameters (`hmm`), or decoding with parameters fitted
 * elsewhere (`fixed`: the training text's, for dev and test text).
 */
/** `iterations`: EM's cap when the HMM is fitted here (HMM_ITERATIONS when absent). */
export function aggregateWith(
  method: AggregateMethod,
  input: AggregateInput,
  fixed?: HmmParams,
  iterations?: number,
): { annotations: Annotation[]; hmm?: HmmParams } {
  let hmm: HmmParams | undefined;
  const typed =
    method === 'priority'
      ? byPriority(input)
      : method === 'vote'
        ? byVote(input)
        : (() => {
            const r = byHmm(input, fixed, iterations);
            hmm = r.params;
            return r.annotations;
          })();
  return { annotations: finish(input, typed), ...(hmm ? { hmm } : {}) };
}

function finish(input: AggregateInput, typed: Annotation[]): Annotation[] {
  return typed.map((ann, d) => {
    const n = input.sentences[d].length ? input.sentences[d][input.sentences[d].length - 1][1] : 0;
    const occupied = new Uint8Array(n);
    for (const s of ann.spans) occupied.fill(1, s.start, s.end);
    const unknown = resolveOverlaps(
      input.sources.flatMap((src) => src.spans[d].filter((s) => s.label === UNKNOWN_TYPE).map((s) => ({ ...s, doc: d, priority: src.priority }))),
      input.types,
    ).filter((s) => !occupied.subarray(s.start, s.end).some((x) => x));
    const spans = [...ann.spans, ...unknown.map(({ doc: _d, priority: _p, ...s }) => s)].sort((a, b) => a.start - b.start);
    return { ...ann, spans };
  });
}

function byPriority(input: AggregateInput): Annotation[] {
  return input.sentences.map((_, d) => {
    const spans = resolveOverlaps(
      input.sources.flatMap((src) => src.spans[d].filter((s) => s.label !== UNKNOWN_TYPE).map((s) => ({ ...s, doc: d, priority: src.priority }))),
      input.types,
    ).map(({ doc: _d, priority: _p, ...s }) => s);
    return { spans, oMode: 'complete' };
  });
}

/** Token-level majority vote among the sources that fire; ties go to the higher-priority source. */
function byVote(input: AggregateInput): Annotation[] {
  const order = [...input.sources].sort((a, b) => a.priority - b.priority);
  return input.sentences.map((sents, d) => {
    const n = sents.length ? sents[sents.length - 1][1] : 0;
    const tagsBySource = order.map((src) => sourceTags(src.spans[d], n));
    const tags = new Array<string>(n).fill('O');
    const confidence = new Array<number>(n).fill(1);
    for (let t = 0; t < n; t++) {
      const votes = new Map<string, { n: number; b: number; first: number }>();
      let firing = 0;
      tagsBySource.forEach((st, k) => {
        const tag = st[t];
        if (tag === 'O' || tag.endsWith(`-${UNKNOWN_TYPE}`)) return;
        firing++;
        const type = tag.slice(2);
        const v = votes.get(type) ?? { n: 0, b: 0, first: k };
        v.n++;
        if (tag[0] === 'B') v.b++;
        votes.set(type, v);
      });
      if (!firing) continue;
      const [type, v] = [...votes].sort(([, a], [, b]) => b.n - a.n || a.first - b.first)[0];
      tags[t] = `${2 * v.b >= v.n ? 'B' : 'I'}-${type}`;
      confidence[t] = v.n / firing;
    }
    const spans = sents.flatMap(([a, b]) => tagsToSpans(tags.slice(a, b), a));
    return { spans, oMode: 'complete', confidence };
  });
}

function byHmm(input: AggregateInput, fixed?: HmmParams, iterations?: number): { annotations: Annotation[]; params: HmmParams } {
  const { results, params } = hmmLabel(input, iterations === undefined ? {} : { iterations }, fixed);
  const annotations = results.map(
    ({ tags, confidence }, d): Annotation => ({
      spans: input.sentences[d].flatMap(([a, b]) => tagsToSpans(tags.slice(a, b), a)),
      oMode: 'complete',
      confidence,
    }),
  );
  return { annotations, params };
}
