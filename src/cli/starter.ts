/**
 * A starter model in an experiment (a setting's `starter`): a tagger trained once on another corpus
 * (`train --out`, e.g. bench/configs/starter-conll03.json on CoNLL-2003's gold, or the studio's
 * asset packed from it, public/models/starter-conll03.json), whose predictions on the setting's
 * text become dictionary features of their own groups, or a weak source that fills the weak
 * labels' O tokens. Issue 45's "starter model as a labeling source", measured.
 */
import { type LexiconMatch, withSpanMatches } from '../core/lexicon';
import { tagsToSpans } from '../core/tagScheme';
import type { Span } from '../core/types';
import type { LabeledSentence } from '../model/data';
import { predict } from '../model/train';
import { trimGlove } from '../model/embeddings';
import { readGloveAsset, readSpellingModel } from '../model/gloveNode';
import { parseStarter, STARTER_FORMAT, starterPredictions, starterTypes } from '../model/starter';
import { checkModelFile } from '../core/modelFile';
import { modelFromFile, readModelJson } from './train';

type Words = { words: readonly string[] };

/** Predictions by model file and setting: every method row of a setting reads the same text. */
const cache = new Map<string, { types: string[]; spans: Span[][] }>();

/** The starter's types (from its tags) and its spans on each sentence, in its own types; `textKey` names the text (a setting) for the cache. */
export async function starterSpans(modelPath: string, textKey: string, sentences: readonly Words[]): Promise<{ types: string[]; spans: Span[][] }> {
  const key = `${modelPath}|${textKey}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const raw = readModelJson(modelPath);
  if ((raw as { format?: string }).format === STARTER_FORMAT) {
    // The studio's asset (public/models/): the same weights and vocabularies as the `train --out` file it was packed from.
    const a = parseStarter(raw, modelPath);
    const glove = trimGlove(
      readGloveAsset(),
      sentences.flatMap((s) => s.words),
      a.model.spelling ? readSpellingModel() : undefined,
    );
    const out = { types: starterTypes(a), spans: await starterPredictions(a, glove, sentences) };
    cache.set(key, out);
    return out;
  }
  const m = checkModelFile(raw, modelPath);
  const { tagger, feat, dispose } = modelFromFile(
    m,
    sentences.flatMap((s) => s.words),
  );
  const input: LabeledSentence[] = sentences.map((s) => ({ words: [...s.words], tags: s.words.map(() => 0), doc: 0, offset: 0 }));
  const { paths } = await predict(tagger, feat, input);
  dispose();
  const out = { types: starterTypes(m), spans: paths.map((p) => tagsToSpans(p.map((t) => m.tags[t]))) };
  cache.set(key, out);
  return out;
}

export { starterGroups } from '../model/starter';

/** Each sentence with the starter's spans as matches of its groups (from `base`). */
export function withStarterFeatures<T extends Words & { lex?: readonly LexiconMatch[] }>(
  xs: readonly T[],
  spans: readonly Span[][],
  types: readonly string[],
  base: number,
): T[] {
  return withSpanMatches(xs, (_, i) => ({ spans: spans[i], offset: 0 }), types, base);
}

/**
 * The training sentences with the starter's spans, typed by `map` (a starter type with no entry is
 * left out), written where the weak labels have O on every token of the span; weak entity tags stay.
 * Returns the sentences and how many spans were added.
 */
export function fillWithStarter<T extends { tags: number[] }>(
  xs: readonly T[],
  spans: readonly Span[][],
  map: Readonly<Record<string, string>>,
  tags: readonly string[],
): { sentences: T[]; added: number } {
  const O = tags.indexOf('O');
  let added = 0;
  const sentences = xs.map((x, i) => {
    let out = x.tags;
    for (const s of spans[i]) {
      const type = map[s.label];
      const b = tags.indexOf(`B-${type}`);
      const inside = tags.indexOf(`I-${type}`);
      if (!type || inside < 0) continue;
      if (out.slice(s.start, s.end).some((t) => t !== O)) continue;
      if (out === x.tags) out = [...x.tags];
      // IO tags (the two-part head) have no B-: every token of the span is I-.
      for (let t = s.start; t < s.end; t++) out[t] = t === s.start && b >= 0 ? b : inside;
      added++;
    }
    return out === x.tags ? x : { ...x, tags: out };
  });
  return { sentences, added };
}
