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
 * Prodigy convention. Given "tokens", they are kept; otherwise the text is tokenized here with a
 * token boundary forced at every span edge, so every span lands on whole tokens.
 */
export function parseJsonl(text: string, opt: { file: string; split: Split; layer: { kind: LayerKind; name: string } }): ParsedCorpus {
  const docs: ParsedDoc[] = [];
  const annotations: Annotation[] = [];
  const types = new Set<string>();
  for (const { record: rec, line } of jsonLines(text, opt.file, record)) {
    const where = { file: opt.file, line };
    for (const s of rec.spans) {
      if (s.end > rec.text.length || s.start >= s.end)
        throw new InputError(where, `span ${s.start}-${s.end} is outside the text (length ${rec.text.length}) or empty`);
    }
    const offsets = rec.tokens
      ? rec.tokens.flatMap((t) => [t.start, t.end])
      : tokenize(
          rec.text,
          rec.spans.flatMap((s) => [s.start, s.end]),
        );
    const byStart = new Map<number, number>();
    const byEnd = new Map<number, number>();
    for (let i = 0; i < offsets.length; i += 2) {
      byStart.set(offsets[i], i >> 1);
      byEnd.set(offsets[i + 1], (i >> 1) + 1);
    }
    const spans: Span[] = rec.spans
      .map((s) => {
        const start = byStart.get(s.start);
        const end = byEnd.get(s.end);
        if (start === undefined || end === undefined)
          throw new InputError(where, `span ${s.start}-${s.end} ("${rec.text.slice(s.start, s.end)}") does not fall on token boundaries`);
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
  return { docs, layers: [{ ...opt.layer, annotations }], types: [...types].sort() };
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
