import { InputError } from '../errors';
import { firstSchemeViolation, parseTag, spansToTags, tagsToSpans } from '../tagScheme';
import type { Annotation, LayerKind, ParsedCorpus, ParsedDoc, Split, TagScheme } from '../types';
import { sentenceRanges, tokenText } from '../types';
import { docFromSentences, lines } from './build';

export interface ConllOptions {
  file: string;
  scheme: TagScheme;
  split: Split;
  layer: { kind: LayerKind; name: string };
}

/**
 * CoNLL columns: one token a line, the token first and the tag last, blank lines between
 * sentences, -DOCSTART- lines between documents. Without -DOCSTART- each sentence is a document.
 */
export function parseConll(text: string, opt: ConllOptions): ParsedCorpus {
  const docs: ParsedDoc[] = [];
  const annotations: Annotation[] = [];
  const types = new Set<string>();
  let sawDocstart = false;
  let docSentences: string[][] = [];
  let docTags: string[][] = [];
  let tokens: string[] = [];
  let tags: string[] = [];
  let sentenceLine = 0;

  const endSentence = () => {
    if (!tokens.length) return;
    const bad = firstSchemeViolation(tags, opt.scheme);
    if (bad >= 0) {
      throw new InputError({ file: opt.file, line: sentenceLine + bad }, `tag "${tags[bad]}" is not valid in the ${opt.scheme} scheme`);
    }
    docSentences.push(tokens);
    docTags.push(tags);
    tokens = [];
    tags = [];
    if (!sawDocstart) endDoc();
  };
  const endDoc = () => {
    if (!docSentences.length) return;
    const doc = docFromSentences(`${opt.file}#${docs.length + 1}`, docSentences, opt.split);
    const spans = docTags.flatMap((t, k) => tagsToSpans(t, doc.sentenceStarts[k]));
    for (const s of spans) types.add(s.label);
    docs.push(doc);
    annotations.push({ spans, oMode: 'complete' });
    docSentences = [];
    docTags = [];
  };

  lines(text).forEach((raw, idx) => {
    const lineNo = idx + 1;
    const line = raw.trim();
    if (line === '') return endSentence();
    if (line.startsWith('-DOCSTART-')) {
      endSentence();
      endDoc();
      sawDocstart = true;
      return;
    }
    const cols = line.split(/\s+/);
    if (cols.length < 2) throw new InputError({ file: opt.file, line: lineNo }, `expected "token ... tag", found one column "${line.slice(0, 40)}"`);
    const tag = cols[cols.length - 1];
    if (!parseTag(tag)) throw new InputError({ file: opt.file, line: lineNo }, `malformed tag "${tag}" (expected O or B-/I-/E-/S-TYPE)`);
    if (!tokens.length) sentenceLine = lineNo;
    tokens.push(cols[0]);
    tags.push(tag);
  });
  endSentence();
  endDoc();
  if (!docs.length) throw new InputError({ file: opt.file }, 'no sentences found');
  return { docs, layers: [{ ...opt.layer, annotations }], types: [...types].sort() };
}

/** Writes a layer as CoNLL, token<TAB>tag; -DOCSTART- lines when documents hold several sentences. */
export function writeConll(docs: readonly ParsedDoc[], annotations: readonly Annotation[], scheme: TagScheme): string {
  const docstart = docs.some((d) => d.sentenceStarts.length > 1);
  const out: string[] = [];
  docs.forEach((doc, k) => {
    if (docstart) out.push('-DOCSTART-\tO', '');
    for (const [from, to] of sentenceRanges(doc)) {
      const tags = spansToTags(annotations[k].spans, from, to, scheme);
      for (let t = from; t < to; t++) out.push(`${tokenText(doc, t)}\t${tags[t - from]}`);
      out.push('');
    }
  });
  return out.join('\n');
}
