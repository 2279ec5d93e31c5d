import { z } from 'zod';
import { GAZETTEER_FORMATS, CORPUS_FORMATS, parseCorpusImport, parseGazetteerFile } from '../core/formats/importSpec';
import { CASE_MODES } from '../core/weak/normalize';
import { ruleSchema } from '../core/weak/rules';
import { SPLITS } from '../core/types';
import { addRule, createProject, deleteProject, importCorpus, importGazetteer } from './repo';
import type { StudioDB } from './schema';

const demoSchema = z.object({
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

/** Creates the demo project from its asset; on any failure nothing of it stays. */
export async function loadDemo(db: StudioDB, asset: unknown): Promise<number> {
  const demo = demoSchema.parse(asset);
  const pid = await createProject(db, demo.name, demo.types, 'BIO', true);
  try {
    for (const c of demo.corpora) {
      await importCorpus(
        db,
        pid,
        parseCorpusImport({ format: c.format as never, split: c.split as never, scheme: 'BIO', files: [{ file: c.file, text: c.text }] }),
      );
    }
    for (const g of demo.gazetteers) {
      await importGazetteer(db, pid, g.file, g.mode as never, parseGazetteerFile(g.format as never, { file: g.file, text: g.text }));
    }
    for (const r of demo.rules) await addRule(db, pid, r);
  } catch (e) {
    await deleteProject(db, pid);
    throw e;
  }
  return pid;
}

const FIRST_START_KEY = 'ner-studio:demo-offered';

/** On the very first start (no projects, never offered), loads the demo asset from the app's origin. */
export async function ensureDemoOnFirstStart(db: StudioDB, fetchAsset: () => Promise<unknown>): Promise<number | null> {
  if (localStorage.getItem(FIRST_START_KEY)) return null;
  if ((await db.projects.count()) > 0) {
    localStorage.setItem(FIRST_START_KEY, '1');
    return null;
  }
  const pid = await loadDemo(db, await fetchAsset());
  localStorage.setItem(FIRST_START_KEY, '1');
  return pid;
}
