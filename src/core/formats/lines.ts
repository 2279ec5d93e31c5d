import { InputError } from '../errors';
import { firstSchemeViolation, parseTag, spansToTags, tagsToSpans } from '../tagScheme';
import type { Annotation, LayerKind, ParsedCorpus, ParsedDoc, Split, TagScheme } from '../types';
import { tokenCount, tokenTexts } from '../types';
import { docFromSentences, lines } from './build';

export interface LabelFile {
  file: string;
  text: string;
  kind: LayerKind;
  name: string;
}

/**
 * One sentence a line, tokens separated by spaces, with parallel label files holding one tag per
 * token (the layout of conll03-distant). Each line becomes a document of one sentence.
 */
export function parseLines(textFile: { file: string; text: string }, labelFiles: readonly LabelFile[], opt: { scheme: TagScheme; split: Split }): ParsedCorpus {
  const sentences = lines(textFile.text).map((l, i) => {
    const toks = l.trim().split(/ +/);
    if (toks.length === 1 && toks[0] === '') throw new InputError({ file: textFile.file, line: i + 1 }, 'empty sentence');
    return toks;
  });
  if (!sentences.length) throw new InputError({ file: textFile.file }, 'no sentences found');
  const docs: ParsedDoc[] = sentences.map((s, i) => docFromSentences(`${textFile.file}#${i + 1}`, [s], opt.split));
  const types = new Set<string>();
  const layers = labelFiles.map((lf) => {
    const rows = lines(lf.text);
    if (rows.length !== sentences.length) {
      throw new InputError(
        { file: lf.file, line: Math.min(rows.length, sentences.length) + 1 },
        `${rows.length} label lines for ${sentences.length} sentences in ${textFile.file}`,
      );
    }
    const annotations: Annotation[] = rows.map((row, i) => {
      const tags = row.trim().split(/ +/);
      if (tags.length !== sentences[i].length) {
        throw new InputError({ file: lf.file, line: i + 1 }, `${tags.length} tags for ${sentences[i].length} tokens`);
      }
      const bad = tags.findIndex((t) => !parseTag(t));
      if (bad >= 0) throw new InputError({ file: lf.file, line: i + 1 }, `token ${bad + 1}: malformed tag "${tags[bad]}"`);
      const viol = firstSchemeViolation(tags, opt.scheme);
      if (viol >= 0) throw new InputError({ file: lf.file, line: i + 1 }, `token ${viol + 1}: tag "${tags[viol]}" is not valid in the ${opt.scheme} scheme`);
      const spans = tagsToSpans(tags);
      for (const s of spans) types.add(s.label);
      return { spans, oMode: 'complete' };
    });
    return { kind: lf.kind, name: lf.name, annotations };
  });
  return { docs, layers, types: [...types].sort() };
}

/** The text file of the line layout: each sentence of each document on a line of its own. */
export function writeLinesText(docs: readonly ParsedDoc[]): string {
  const out: string[] = [];
  for (const d of docs) {
    const toks = tokenTexts(d);
    d.sentenceStarts.forEach((s, k) => out.push(toks.slice(s, d.sentenceStarts[k + 1] ?? toks.length).join(' ')));
  }
  return `${out.join('\n')}\n`;
}

/** The label file of the line layout, parallel to writeLinesText. */
export function writeLinesLabels(docs: readonly ParsedDoc[], annotations: readonly Annotation[], scheme: TagScheme): string {
  const out: string[] = [];
  docs.forEach((d, k) => {
    const n = tokenCount(d);
    d.sentenceStarts.forEach((s, j) => out.push(spansToTags(annotations[k].spans, s, d.sentenceStarts[j + 1] ?? n, scheme).join(' ')));
  });
  return `${out.join('\n')}\n`;
}
