/**
 * The token features a saved model reads beyond words, made on any text as its file says
 * (ModelFile.inputs): the dictionary's matches; the weak labels, made from the project's
 * gazetteers and rules by its label model (the HMM as fitted on the project's text, where the
 * file has it); the starter model's spans, which the caller predicts (it needs a model).
 * `studio predict` and a model file opened in another project read them the same way.
 */
import { lexiconMatcher, type LexiconMatch, spanMatches } from './lexicon';
import type { ModelInputs, WeakRecipe } from './modelFile';
import type { Annotation, Span } from './types';
import { withAbbreviations } from './weak/abbreviations';
import type { HmmParams } from './weak/hmm';
import { WeakLabeler, type WeakDoc } from './weak/pipeline';

/** A sentence of document `doc` from token `offset`. */
type Sentence = { words: readonly string[]; doc: number; offset: number };

/**
 * Each sentence's matches of the model's feature groups, in the groups' order: `docs` are the
 * documents the sentences index (the weak labels are made on them whole); `starter`, the starter
 * model's spans on each sentence where the model reads them. `notes` hears where the weak labels
 * are made otherwise than in the project.
 */
export function inputMatches(
  inputs: ModelInputs,
  docs: readonly WeakDoc[],
  sentences: readonly Sentence[],
  notes: string[],
  starter?: { types: readonly string[]; spans: readonly Span[][] },
): LexiconMatch[][] {
  const match = inputs.lexicon ? lexiconMatcher(inputs.lexicon) : null;
  const weakBase = inputs.lexicon?.types.length ?? 0;
  const weak = inputs.weak ? remakeWeakLabels(inputs.weak, docs, notes) : null;
  const starterBase = weakBase + (inputs.weak?.types.length ?? 0);
  if (inputs.starter?.length && !starter) throw new Error("the model reads the starter model's predictions, and none were given");
  if (starter && inputs.starter && starter.types.join(' ') !== inputs.starter.join(' '))
    throw new Error(`the model read the starter model's types ${inputs.starter.join(', ')}; the starter model has ${starter.types.join(', ')}`);
  return sentences.map((s, i) => [
    ...(match ? match(s.words) : []),
    ...(weak ? spanMatches(weak[s.doc].spans, s.offset, s.words.length, inputs.weak!.types, weakBase) : []),
    ...(starter && inputs.starter?.length ? spanMatches(starter.spans[i], 0, s.words.length, starter.types, starterBase) : []),
  ]);
}

/** The weak labels of every document, made as the project made its own; `notes` hears where they are made otherwise. */
export function remakeWeakLabels(r: WeakRecipe, docs: readonly WeakDoc[], notes: string[]): Annotation[] {
  const hmm: HmmParams | undefined =
    r.method === 'hmm' && r.hmm
      ? { types: r.hmm.types, sources: r.hmm.sources, pi: Float64Array.from(r.hmm.pi), A: Float64Array.from(r.hmm.A), E: Float64Array.from(r.hmm.E) }
      : undefined;
  if (r.method === 'hmm' && !hmm)
    notes.push(
      "weak labels: the file has no HMM fitted on the project's text (its weak labels were made before the studio kept one), so the HMM is fitted on this text",
    );
  const labeler = new WeakLabeler(docs);
  const label = (fixed?: HmmParams) =>
    labeler.run({
      gazetteers: r.gazetteers,
      rules: r.rules,
      types: r.labelTypes,
      method: r.method,
      typeUntyped: r.typeUntyped,
      ...(fixed ? { hmm: fixed } : {}),
      ...(r.stop?.length ? { stop: r.stop } : {}),
      ...(r.abbreviations ? { abbreviations: r.abbreviations } : {}),
    });
  let result: ReturnType<typeof label>;
  try {
    result = label(hmm);
  } catch (e) {
    // The sources or types changed after the HMM was fitted (a gazetteer added since the weak labels were made).
    if (!hmm || !(e as Error).message.startsWith('the fitted HMM is for')) throw e;
    notes.push(`weak labels: ${(e as Error).message}, so the HMM is fitted on this text`);
    result = label();
  }
  return r.readAbbreviations ? withAbbreviations(docs, result.aggregate, r.readAbbreviations).annotations : result.aggregate;
}
