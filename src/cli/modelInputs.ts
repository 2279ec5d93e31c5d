/**
 * The token features a saved model reads beyond words, made on a corpus file as its file says
 * (core/modelInputs.ts), the starter model's spans predicted from the studio's asset where the
 * model reads them: what `predict` and `eval` give the model.
 */
import type { ModelFile } from '../core/modelFile';
import { inputMatches } from '../core/modelInputs';
import type { ParsedCorpus } from '../core/types';
import { weakDoc } from '../core/weak/pipeline';
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
  const starter = inputs.starter?.length ? await starterSpans(STARTER_FILE, `predict:${corpus.docs.length}:${sentences.length}`, sentences) : undefined;
  const lex = inputMatches(inputs, corpus.docs.map(weakDoc), sentences, notes, starter);
  return { sentences: sentences.map((s, i) => ({ ...s, lex: lex[i] })), notes };
}
