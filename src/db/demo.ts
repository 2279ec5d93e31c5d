import { parseGazetteerFile } from '../core/formats/importSpec';
import { demoCorpora, demoSchema } from '../core/demoAsset';
import { addRule, createProject, deleteProject, importCorpus, importGazetteer } from './repo';
import type { StudioDB } from './schema';

export type { DemoAsset } from '../core/demoAsset';

/** Creates the demo project from its asset; on any failure nothing of it stays. */
export async function loadDemo(db: StudioDB, asset: unknown): Promise<number> {
  const demo = demoSchema.parse(asset);
  const pid = await createProject(db, demo.name, demo.types, 'BIO', true);
  try {
    for (const corpus of demoCorpora(demo)) await importCorpus(db, pid, corpus);
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
