import { z } from 'zod';
import { InputError } from '../errors';
import { splitSentences, tokenize } from '../tokenize';
import type { Annotation, LayerKind, ParsedCorpus, ParsedDoc, Span, Split } from '../types';
import { tokenCount } from '../types';
import { jsonLines } from './build';

const record = z.object({
  text: z.string(),
  spans: z.array(z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive(), label: z.string().min(1) })).default([]),
  tokens: z.array(z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive() })).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});

/**
 * JSONL with character-offset spans ({"text", "spans": [{"start", "end", "label"}]}), the spaCy /
 * Prodigy convention. Given "tokens", they are kept; otherwise the text is tokenized here, by the
 * same rules as any text (a span never re-tokenizes it). A span edge inside a token is snapped
 * out to the token's edge (Ba|rack Obama: "Barack"), and each such line is listed in the
 * corpus's warnings; with given tokens, a span off their boundaries is refused with its line.
 */
export function parseJsonl(text: string, opt: { file: string; split: Split; layer: { kind: LayerKind; name: string } }): ParsedCorpus {
  const docs: ParsedDoc[] = [];
  const annotations: Annotation[] = [];
  const types = new Set<string>();
  const warnings: string[] = [];
  for (const { record: rec, line } of jsonLines(text, opt.file, record)) {
    const where = { file: opt.file, line };
    for (const s of rec.spans) {
      if (s.end > rec.text.length || s.start >= s.end)
        throw new InputError(where, `span ${s.start}-${s.end} is outside the text (length ${rec.text.length}) or empty`);
    }
    const offsets = rec.tokens ? rec.tokens.flatMap((t) => [t.start, t.end]) : tokenize(rec.text);
    const byStart = new Map<number, number>();
    const byEnd = new Map<number, number>();
    for (let i = 0; i < offsets.length; i += 2) {
      byStart.set(offsets[i], i >> 1);
      byEnd.set(offsets[i + 1], (i >> 1) + 1);
    }
    const spans: Span[] = rec.spans
      .map((s) => {
        let start = byStart.get(s.start);
        let end = byEnd.get(s.end);
        if (start === undefined || end === undefined) {
          const quoted = `span ${s.start}-${s.end} ("${rec.text.slice(s.start, s.end)}")`;
          if (rec.tokens) throw new InputError(where, `${quoted} does not fall on the given token boundaries`);
          // The tokens that the span's characters touch: its edges snap outwards to theirs.
          const touched: number[] = [];
          for (let i = 0; i < offsets.length; i += 2) if (offsets[i] < s.end && offsets[i + 1] > s.start) touched.push(i >> 1);
          if (!touched.length) throw new InputError(where, `${quoted} covers no token`);
          start = touched[0];
          end = touched[touched.length - 1] + 1;
          const snapped = rec.text.slice(offsets[2 * start], offsets[2 * end - 1]);
          warnings.push(`${opt.file}, line ${line}: ${quoted} starts or ends inside a token; it now covers the whole tokens "${snapped}"`);
        }
        types.add(s.label);
        return { start, end, label: s.label };
      })
      .sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) {
      if (spans[i].start < spans[i - 1].end) throw new InputError(where, `spans ${i} and ${i + 1} overlap`);
    }
    docs.push({
      name: typeof rec.meta?.name === 'string' ? rec.meta.name : `${opt.file}#${docs.length + 1}`,
      text: rec.text,
      offsets,
      sentenceStarts: splitSentences(rec.text, offsets),
      split: opt.split,
    });
    annotations.push({ spans, oMode: 'complete' });
  }
  if (!docs.length) throw new InputError({ file: opt.file }, 'no records found');
  return { docs, layers: [{ ...opt.layer, annotations }], types: [...types].sort(), ...(warnings.length ? { warnings } : {}) };
}

export function writeJsonl(docs: readonly ParsedDoc[], annotations: readonly Annotation[]): string {
  return `${docs
    .map((d, k) => {
      const n = tokenCount(d);
      const tokens = Array.from({ length: n }, (_, i) => ({ start: d.offsets[2 * i], end: d.offsets[2 * i + 1] }));
      const spans = annotations[k].spans.map((s) => ({ start: d.offsets[2 * s.start], end: d.offsets[2 * (s.end - 1) + 1], label: s.label }));
      return JSON.stringify({ text: d.text, spans, tokens, meta: { name: d.name } });
    })
    .join('\n')}\n`;
}

/** Plain text: one document, tokenized and split into sentences here, offsets kept. */
export function parsePlainText(text: string, opt: { file: string; split: Split }): ParsedCorpus {
  const offsets = tokenize(text);
  if (!offsets.length) throw new InputError({ file: opt.file }, 'the file has no tokens');
  const doc: ParsedDoc = { name: opt.file, text, offsets, sentenceStarts: splitSentences(text, offsets), split: opt.split };
  return { docs: [doc], layers: [], types: [] };
}
