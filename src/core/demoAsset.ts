/**
 * The demo project's asset (public/demo/bc5cdr-demo.json): its schema, its corpora parsed as the
 * import parses them, and its gazetteers and rules as a weak-labeling request. The studio loads the
 * demo through these (db/demo.ts); the browser tests and the benches label it through the same.
 */
import { z } from 'zod';
import { CORPUS_FORMATS, GAZETTEER_FORMATS, parseCorpusImport, parseGazetteerFile } from './formats/importSpec';
import { type ParsedCorpus, SPLITS } from './types';
import { CASE_MODES, type CaseMode } from './weak/normalize';
import type { WeakRequest } from './weak/pipeline';
import { ruleSchema } from './weak/rules';

export const demoSchema = z.object({
  name: z.string(),
  types: z.array(z.string()),
  corpora: z.array(
    z.object({ file: z.string(), format: z.enum(CORPUS_FORMATS as [string, ...string[]]), split: z.enum(SPLITS as [string, ...string[]]), text: z.string() }),
  ),
  gazetteers: z.array(
    z.object({
      file: z.string(),
      format: z.enum(GAZETTEER_FORMATS as [string, ...string[]]),
      mode: z.enum(CASE_MODES as [string, ...string[]]),
      text: z.string(),
    }),
  ),
  rules: z.array(ruleSchema),
});
export type DemoAsset = z.infer<typeof demoSchema>;

/** Each of the demo's corpus files, parsed as its import parses it. */
export function demoCorpora(demo: Pick<DemoAsset, 'corpora'>): ParsedCorpus[] {
  return demo.corpora.map((c) =>
    parseCorpusImport({ format: c.format as never, split: c.split as never, scheme: 'BIO', files: [{ file: c.file, text: c.text }] }),
  );
}

/** The demo's gazetteers (priority by order), rules (after every gazetteer) and types, as a weak-labeling request reads them. */
export function demoWeakSources(demo: Pick<DemoAsset, 'gazetteers' | 'rules' | 'types'>): Pick<WeakRequest, 'gazetteers' | 'rules' | 'types'> {
  return {
    gazetteers: demo.gazetteers.map((g, k) => ({
      name: g.file,
      mode: g.mode as CaseMode,
      priority: k,
      entries: parseGazetteerFile(g.format as never, { file: g.file, text: g.text }).entries,
    })),
    rules: demo.rules.map((rule, k) => ({ rule, priority: 1000 + k })),
    types: demo.types,
  };
}
