/**
 * The token features a saved model reads beyond words, made on a new corpus as its file says
 * (ModelFile.inputs): the dictionary's matches; the weak labels, made from the project's
 * gazetteers and rules by its label model (the HMM as fitted on the project's text, where the
 * file has it); the starter model's predictions. What `predict` and `eval` give the model.
 */
import { lexiconMatcher, spanMatches } from '../core/lexicon';
import type { ModelFile, WeakRecipe } from '../core/modelFile';
import type { Annotation, ParsedCorpus } from '../core/types';
import { tokenTexts } from '../core/types';
import { withAbbreviations } from '../core/weak/abbreviations';
import type { HmmParams } from '../core/weak/hmm';
import { WeakLabeler } from '../core/weak/pipeline';
import type { LabeledSentence } from '../model/data';
import { starterSpans } from './starter';

/** The studio's starter model, which a model that read it as features reads again. */
export const STARTER_FILE = new URL('../../public/models/starter-conll03.json', import.meta.url).pathname;

/**
 * The sentences with the matches of the model's feature groups, in the groups' order; `notes` say
 * how the weak labels were made where that is not as in the project.
 */
export async function withModelInputs(
  m: ModelFile,
  corpus: ParsedCorpus,
  sentences: readonly LabeledSentence[],
): Promise<{ sentences: LabeledSentence[]; notes: string[] }> {
  const inputs = m.inputs;
  if (!inputs?.groups.length) return { sentences: [...sentences], notes: [] };
  const notes: string[] = [];
  const match = inputs.lexicon ? lexiconMatcher(inputs.lexicon) : null;
  const weakBase = inputs.lexicon?.types.length ?? 0;
  const weak = inputs.weak ? remakeWeakLabels(inputs.weak, corpus, notes) : null;
  const starterBase = weakBase + (inputs.weak?.types.length ?? 0);
  const starter = inputs.starter?.length ? await starterSpans(STARTER_FILE, `predict:${Math.random()}`, sentences) : null;
  if (starter && starter.types.join(' ') !== inputs.starter!.join(' '))
    throw new Error(`the model read the starter model's types ${inputs.starter!.join(', ')}; ${STARTER_FILE} has ${starter.types.join(', ')}`);
  return {
    sentences: sentences.map((s, i) => ({
      ...s,
      lex: [
        ...(match ? match(s.words) : []),
        ...(weak ? spanMatches(weak[s.doc].spans, s.offset, s.words.length, inputs.weak!.types, weakBase) : []),
        ...(starter ? spanMatches(starter.spans[i], 0, s.words.length, starter.types, starterBase) : []),
      ],
    })),
    notes,
  };
}

/** The weak labels of every document of the corpus, made as the project made its own; `notes` hears where they are made otherwise. */
export function remakeWeakLabels(r: WeakRecipe, corpus: ParsedCorpus, notes: string[]): Annotation[] {
  const docs = corpus.docs.map((d) => ({ text: d.text, offsets: d.offsets, tokens: tokenTexts(d), sentenceStarts: d.sentenceStarts }));
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
