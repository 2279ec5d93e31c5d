import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { lexiconMatcher } from '../core/lexicon';
import { parseConll } from '../core/formats/conll';
import { parseGazetteerTsv } from '../core/formats/gazetteer';
import type { ParsedCorpus } from '../core/types';
import { phraseRules, STOP } from '../core/guidedCorrection';
import {
  addPhrasesToDictionary,
  createProject,
  deleteProject,
  importCorpus,
  importGazetteer,
  projectStats,
  removeGazetteerEntries,
  renameProject,
  saveWeakLabels,
} from './repo';
import { layerRows } from './layerStore';
import { StudioDB } from './schema';

const conll = 'Aspirin B-Chemical\ncauses O\nasthma B-Disease\n\nNo O\nharm O\n';
const layer = { kind: 'gold' as const, name: 'gold' };

describe('repository', () => {
  it('renames a project, refusing an empty name and a project that is not there', async () => {
    const db = new StudioDB(`repo-${Math.random()}`);
    const pid = await createProject(db, 'p');
    await renameProject(db, pid, '  Drugs  ');
    expect((await db.projects.get(pid))!.name).toBe('Drugs');
    await expect(renameProject(db, pid, ' ')).rejects.toThrow('a project needs a name');
    await expect(renameProject(db, 999, 'x')).rejects.toThrow('project 999 does not exist');
    expect((await db.projects.get(pid))!.name).toBe('Drugs');
  });

  it('imports a corpus with its layer and types, and a failed import leaves nothing behind', async () => {
    const db = new StudioDB(`repo-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const c = parseConll(conll, { file: 'a.conll', scheme: 'BIO', split: 'dev', layer });
    await importCorpus(db, pid, c);
    let stats = await projectStats(db, pid);
    expect(stats.documents).toBe(2);
    expect(stats.tokens).toBe(5);
    expect(stats.sentences).toBe(2);
    expect(stats.bySplit.dev.documents).toBe(2);
    // Both entities are on dev: the layer can score runs but not train one (src/ui/layerChecks.ts).
    expect(stats.layers[0]).toMatchObject({ kind: 'gold', spans: 2, perType: { Chemical: 1, Disease: 1 }, trainSpans: 0, devSpans: 2 });
    expect((await db.projects.get(pid))!.types.map((t) => t.name)).toEqual(['Chemical', 'Disease']);

    // A value IndexedDB cannot store makes the second bulk write fail after the documents went in.
    const bad: ParsedCorpus = {
      ...c,
      types: ['Other'],
      layers: [
        {
          ...layer,
          annotations: [
            { spans: [], oMode: 'complete', confidence: [() => 1] as never },
            { spans: [], oMode: 'complete' },
          ],
        },
      ],
    };
    await expect(importCorpus(db, pid, bad)).rejects.toThrow();
    stats = await projectStats(db, pid);
    expect(stats.documents).toBe(2);
    expect(stats.layers[0].spans).toBe(2);
    expect((await db.projects.get(pid))!.types.map((t) => t.name)).toEqual(['Chemical', 'Disease']);
    // A document of two sentences (-DOCSTART- groups them): more sentences than documents.
    await importCorpus(db, pid, parseConll(`-DOCSTART- O\n\n${conll}`, { file: 'b.conll', scheme: 'BIO', split: 'train', layer }));
    stats = await projectStats(db, pid);
    expect([stats.documents, stats.sentences]).toEqual([3, 4]);
  });

  it('weak labels replace weak layers only; deleting a project removes what it owns', async () => {
    const db = new StudioDB(`repo-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const { docIds } = await importCorpus(db, pid, parseConll(conll, { file: 'a.conll', scheme: 'BIO', split: 'dev', layer }));
    await importGazetteer(db, pid, 'g', 'insensitive', parseGazetteerTsv('Chemical\taspirin\n', 'g.tsv'));
    const src = { name: 'g', priority: 0, spans: [[{ start: 0, end: 1, label: 'Chemical' }], []] };
    await saveWeakLabels(
      db,
      pid,
      docIds,
      [src],
      [
        { spans: src.spans[0], oMode: 'complete' },
        { spans: [], oMode: 'complete' },
      ],
      'priority',
    );
    await saveWeakLabels(
      db,
      pid,
      docIds,
      [src],
      [
        { spans: src.spans[0], oMode: 'complete' },
        { spans: [], oMode: 'complete' },
      ],
      'vote',
    );
    const stats = await projectStats(db, pid);
    expect(stats.layers.map((l) => l.name).sort()).toEqual(['aggregate (vote)', 'g', 'gold']);
    await deleteProject(db, pid);
    expect(await db.documents.count()).toBe(0);
    expect(await db.annotations.count()).toBe(0);
    expect(await db.gazetteerEntries.count()).toBe(0);
  });
});

describe('packed weak layers', () => {
  it('store documents whose ids span several chunks, read back in any order, absent documents included', async () => {
    const db = new StudioDB(`packed-${Math.random()}`);
    const pid = await createProject(db, 'p', ['X']);
    const docs = Array.from({ length: 600 }, (_, k) => ({ name: `d${k}`, text: 'a', offsets: [0, 1], sentenceStarts: [0], split: 'train' as const }));
    const { docIds } = await importCorpus(db, pid, { docs, layers: [], types: ['X'] });
    const spans = docIds.map((_, k) => (k % 7 ? [] : [{ start: 0, end: 1, label: 'X' }]));
    await saveWeakLabels(
      db,
      pid,
      docIds,
      [{ name: 'g', priority: 0, spans }],
      spans.map((s) => ({ spans: s, oMode: 'complete' as const })),
      'priority',
    );
    expect(await db.annotations.count()).toBe(0);
    expect(await db.layerChunks.count()).toBeGreaterThanOrEqual(4);
    expect(await db.layerChunks.count()).toBeLessThanOrEqual(6);
    const agg = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.role === 'aggregate')!;
    const order = [docIds[599], docIds[0], 987654, docIds[300]];
    const rows = await layerRows(db, agg.id!, order);
    expect(rows.map((r) => r?.spans.length)).toEqual([0, 1, undefined, 0]);
    expect(rows[1]).toMatchObject({ layerId: agg.id, docId: docIds[0] });
    const stats = await projectStats(db, pid);
    expect(stats.layers.find((l) => l.id === agg.id)).toMatchObject({ documents: 600, spans: 86 });
  });
});

describe('the review tools in the store', () => {
  it('labels a phrase everywhere in one transaction and puts every row back on undo', async () => {
    const { labelEverywhere, restoreRows, goldLayer, saveAnnotation } = await import('./repo');
    const db = new StudioDB(`travel-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const c = parseConll('New B-LOC\nYork I-LOC\n\nin O\nNew O\nYork O\n', { file: 'a.conll', scheme: 'BIO', split: 'train', layer });
    const { docIds } = await importCorpus(db, pid, c);
    const lid = await goldLayer(db, pid, 'ann');
    await saveAnnotation(db, lid, docIds[0], [{ start: 0, end: 1, label: 'PER' }], []);
    const before = await labelEverywhere(
      db,
      lid,
      [
        { docId: docIds[0], start: 0, end: 2 },
        { docId: docIds[1], start: 1, end: 3 },
      ],
      'LOC',
    );
    const rows = await layerRows(db, lid, docIds);
    expect(rows.map((r) => r?.spans)).toEqual([[{ start: 0, end: 2, label: 'LOC' }], [{ start: 1, end: 3, label: 'LOC' }]]);
    await restoreRows(db, before);
    const back = await layerRows(db, lid, docIds);
    expect(back[0]?.spans).toEqual([{ start: 0, end: 1, label: 'PER' }]);
    expect(back[1]).toBeUndefined();
  });

  it('finds a phrase in any case, by whole tokens, with its context', async () => {
    const { searchDocuments } = await import('./search');
    const db = new StudioDB(`search-${Math.random()}`);
    const pid = await createProject(db, 'p');
    await importCorpus(
      db,
      pid,
      parseConll('The O\nnew O\nyork O\ntimes O\n\nNewYork O\nNew O\nYork O\n', { file: 'a.conll', scheme: 'BIO', split: 'dev', layer }),
    );
    const r = await searchDocuments(db, pid, '  NEW   york ');
    expect(r.total).toBe(2);
    expect(r.documents).toBe(2);
    expect(r.matches.map((m) => [m.start, m.before, m.match, m.after])).toEqual([
      [1, 'The', 'new york', 'times'],
      [1, 'NewYork', 'New York', ''],
    ]);
    expect((await searchDocuments(db, pid, '   ')).total).toBe(0);
    // "Apply to all occurrences": the exact words, this document's apart, the others with their split and context.
    const { occurrencesOf } = await import('./search');
    const [first, second] = (await db.documents.where('projectId').equals(pid).sortBy('id')).map((d) => d.id!);
    const o = await occurrencesOf(db, pid, second, ['New', 'York']);
    expect(o.here).toEqual([{ start: 1, end: 3 }]);
    expect(o.others).toEqual([]);
    const lower = await occurrencesOf(db, pid, second, ['new', 'york']);
    expect(lower.here).toEqual([]);
    expect(lower.others).toEqual([{ docId: first, start: 1, end: 3, split: 'dev', name: expect.any(String), context: 'The [ new york ] times' }]);
  });

  it('keeps stop-list phrases out of the dictionary features', async () => {
    const { addToStopList, addToCorrectionsGazetteer, projectLexicon } = await import('./repo');
    const db = new StudioDB(`stop-${Math.random()}`);
    const pid = await createProject(db, 'p');
    await addToStopList(db, pid, 'The Who');
    await addToCorrectionsGazetteer(db, pid, 'aspirin', 'Chemical');
    await expect(addToStopList(db, pid, 'The Who')).rejects.toThrow(/already listed/);
    await addToCorrectionsGazetteer(db, pid, 'The Who', 'Chemical');
    const lex = await projectLexicon(db, pid, false);
    expect(lex?.types).toEqual(['Chemical']);
    // Another gazetteer's entry of a stop-listed phrase gives no feature either.
    expect(lexiconMatcher(lex!)(['The', 'Who', 'took', 'aspirin'])).toEqual([{ start: 3, end: 4, type: 0 }]);
  });

  it('adds a public list once, typed as one of the project types, as a dictionary-feature group of its own; features-only lists are no weak source', async () => {
    const { addPublicGazetteer, addToCorrectionsGazetteer, projectLexicon } = await import('./repo');
    const { runWeakLabeling } = await import('../worker/weakJob');
    const db = new StudioDB(`public-${Math.random()}`);
    const pid = await createProject(db, 'p');
    await importCorpus(db, pid, parseConll('Mary B-PER\nvisited O\nParis B-LOC\n', { file: 'a.conll', scheme: 'BIO', split: 'train', layer }));
    await addToCorrectionsGazetteer(db, pid, 'Mary', 'PER');
    const cities = { list: 'cities', title: 'Cities', source: 'test', type: 'LOC', featuresOnly: false, phrases: ['Paris', 'New York'] };
    await addPublicGazetteer(db, pid, cities);
    await expect(addPublicGazetteer(db, pid, cities)).rejects.toThrow(/already/);
    await expect(addPublicGazetteer(db, pid, { ...cities, list: 'countries', type: 'GPE' })).rejects.toThrow(/not a type of this project/);
    await addPublicGazetteer(db, pid, { ...cities, list: 'person-name-parts', title: 'Names', type: 'PER', featuresOnly: true, phrases: ['Mary', 'visited'] });
    expect((await projectLexicon(db, pid, false))?.types).toEqual(['LOC · public cities', 'PER', 'PER · public person-name-parts']);
    // The cities list is a weak source, labelling Paris; the names list gives features only, so "visited" is labelled by nobody.
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    const agg = (await db.layers.where('projectId').equals(pid).toArray()).find((l) => l.role === 'aggregate')!;
    const [row] = await layerRows(db, agg.id!, [(await db.documents.where('projectId').equals(pid).first())!.id!]);
    expect(row!.spans.map((x) => [x.start, x.end, x.label])).toEqual([
      [0, 1, 'PER'],
      [2, 3, 'LOC'],
    ]);
  });
});

describe("each source's trust", () => {
  it("values a source's and a rule's dictionary features by the trust the newest HMM weak labels run estimated, and by nothing where priority made them", async () => {
    const { addRule, projectLexicon, weakSourceTrust } = await import('./repo');
    const { runWeakLabeling } = await import('../worker/weakJob');
    const db = new StudioDB(`trust-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const text = Array.from({ length: 30 }, (_, k) => `aspirin O\ncaused O\n${k % 3 ? 'hepatitis' : 'colitis'} O\n`).join('\n');
    await importCorpus(db, pid, parseConll(text, { file: 'a.conll', scheme: 'BIO', split: 'train', layer: { kind: 'gold', name: 'gold' } }));
    await importGazetteer(db, pid, 'g', 'insensitive', parseGazetteerTsv('Chemical\taspirin\nDisease\thepatitis\n', 'g.tsv'));
    await db.projects.update(pid, {
      types: [
        { name: 'Chemical', color: '#000' },
        { name: 'Disease', color: '#111' },
      ],
    });
    await importGazetteer(db, pid, 'g2', 'insensitive', parseGazetteerTsv('Chemical\taspirin\n', 'g2.tsv'));
    await addRule(db, pid, { kind: 'tokens', name: 'itis', label: 'Disease', pattern: [{ LOWER: { REGEX: 'itis$' } }] });
    // A rule both gazetteers contradict: the HMM sides with them, and distrusts it.
    await addRule(db, pid, { kind: 'tokens', name: 'wrong', label: 'Disease', pattern: [{ LOWER: 'aspirin' }] });
    await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    expect(await weakSourceTrust(db, pid)).toBeNull();
    await runWeakLabeling(db, pid, { method: 'hmm', typeUntyped: true });
    const trust = (await weakSourceTrust(db, pid))!;
    expect(Object.keys(trust).sort()).toEqual(['g', 'g2', 'itis', 'wrong']);
    expect(trust.g.Chemical.value).toBeGreaterThan(0.9);
    expect(trust.wrong.Disease.value).toBeLessThan(0.1);
    const lex = (await projectLexicon(db, pid, true, trust))!;
    expect(lex.sources[0].reliability).toEqual({ Chemical: trust.g.Chemical.value, Disease: trust.g.Disease.value });
    expect(lex.ruleReliability).toEqual({ itis: trust.itis.Disease.value, wrong: trust.wrong.Disease.value });
    const [chem, dis] = [lex.types.indexOf('Chemical'), lex.types.indexOf('Disease')];
    const value = (m: { value?: number }) => m.value ?? 1;
    expect(lexiconMatcher(lex)(['aspirin', 'caused', 'colitis']).map((m) => [m.start, m.type, value(m)])).toEqual([
      [0, chem, Math.max(trust.g.Chemical.value, trust.g2.Chemical.value)],
      [0, dis, trust.wrong.Disease.value],
      [2, dis, trust.itis.Disease.value],
    ]);
    // Without the trust, every match reads 1.
    expect(lexiconMatcher((await projectLexicon(db, pid, true))!)(['aspirin']).map(value)).toEqual([1, 1]);
  });
});

describe("a project's own gazetteers", () => {
  it("counts the user's gazetteers, not the annotator's corrections and stop list or a public list", async () => {
    const { addPublicGazetteer, addToCorrectionsGazetteer, addToStopList, hasOwnGazetteer } = await import('./repo');
    const db = new StudioDB(`own-${Math.random()}`);
    const pid = await createProject(db, 'p');
    await importCorpus(db, pid, parseConll(conll, { file: 'a.conll', scheme: 'BIO', split: 'train', layer }));
    await addToCorrectionsGazetteer(db, pid, 'Aspirin', 'Chemical');
    await addToStopList(db, pid, 'No');
    await addPublicGazetteer(db, pid, { list: 'cities', title: 'Cities', source: 'test', type: 'Chemical', featuresOnly: true, phrases: ['Paris'] });
    expect(await hasOwnGazetteer(db, pid)).toBe(false);
    await importGazetteer(db, pid, 'g', 'insensitive', parseGazetteerTsv('Disease\tasthma\n', 'g.tsv'));
    expect(await hasOwnGazetteer(db, pid)).toBe(true);
  });
});

describe('short entries that keep their case', () => {
  it('stores a whole number of characters, refuses any other value naming it, and "off" leaves no key behind', async () => {
    const { updateGazetteer } = await import('./repo');
    const db = new StudioDB(`case-${Math.random()}`);
    const pid = await createProject(db, 'p');
    const id = await importGazetteer(db, pid, 'g', 'insensitive', parseGazetteerTsv('Chemical\tMg\n', 'g.tsv'));
    await updateGazetteer(db, id, { caseUpTo: 2 });
    expect((await db.gazetteers.get(id))?.caseUpTo).toBe(2);
    // The model's dictionary features read it as the weak labels do.
    const { projectLexicon } = await import('./repo');
    expect((await projectLexicon(db, pid))!.sources[0].caseUpTo).toBe(2);
    for (const bad of [0, 2.5, 11, Number.NaN])
      await expect(updateGazetteer(db, id, { caseUpTo: bad })).rejects.toThrow(`a whole number of characters from 1 to 10, not ${bad}`);
    expect((await db.gazetteers.get(id))?.caseUpTo).toBe(2);
    await updateGazetteer(db, id, { caseUpTo: undefined });
    expect('caseUpTo' in (await db.gazetteers.get(id))!).toBe(false);
    expect('caseUpTo' in (await projectLexicon(db, pid))!.sources[0]).toBe(false);
  });
});

describe('the abbreviations the text defines, on dev', () => {
  it('scores the aggregate on the dev gold with them and without, whichever way the option is', async () => {
    const { runWeakLabeling } = await import('../worker/weakJob');
    const db = new StudioDB(`abbr-${Math.random()}`);
    const pid = await createProject(db, 'p');
    // Dev defines CAA after a dictionary match and uses it again; gold labels all three.
    const dev = 'chloroacetaldehyde B-Chemical\n( O\nCAA B-Chemical\n) O\nkills O\n. O\n\nCAA B-Chemical\nagain O\n';
    await importCorpus(db, pid, parseConll(dev, { file: 'dev.conll', scheme: 'BIO', split: 'dev', layer }));
    await importGazetteer(db, pid, 'g', 'insensitive', parseGazetteerTsv('Chemical\tchloroacetaldehyde\n', 'g.tsv'));
    // Off: the stored aggregate has the dictionary's span alone (F1 1/2); read with a window of one document, CAA is found twice.
    const off = await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true, tryAbbreviations: { following: 1 } });
    expect(off.aggregate?.overall.f1).toBeCloseTo(0.5);
    expect(off.abbreviationsOnDev).toMatchObject({ following: 1, added: 2 });
    expect(off.abbreviationsOnDev?.without.f1).toBeCloseTo(0.5);
    expect(off.abbreviationsOnDev?.with.f1).toBeCloseTo(1);
    // Their document only: the second sentence's CAA is out of reach.
    const own = await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true });
    expect(own.abbreviationsOnDev).toMatchObject({ following: 0, added: 1 });
    // On: the stored aggregate has them, and dev scores it without them too.
    const on = await runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true, abbreviations: { following: 1 } });
    expect(on.aggregate?.overall.f1).toBeCloseTo(1);
    expect(on.abbreviationsOnDev).toMatchObject({ following: 1, added: 2 });
    expect(on.abbreviationsOnDev?.without.f1).toBeCloseTo(0.5);
    await expect(runWeakLabeling(db, pid, { method: 'priority', typeUntyped: true, tryAbbreviations: { following: -1 } })).rejects.toThrow(
      /tryAbbreviations: .* is not a window/,
    );
  });
});

describe("a layer's rows for many documents", () => {
  it('reads them in the order asked, undefined where the layer has no row, by point reads and by one range read alike', async () => {
    const db = new StudioDB(`rows-${Math.random()}`);
    const layerId = await db.layers.add({ projectId: 1, kind: 'predicted', name: 'run 1', createdAt: 0 });
    const other = await db.layers.add({ projectId: 1, kind: 'predicted', name: 'run 2', createdAt: 0 });
    // Rows for documents 1..3000 but every seventh (2,572 rows), and a neighbouring layer's rows that must not leak in.
    const docs = Array.from({ length: 3000 }, (_, k) => k + 1);
    await db.annotations.bulkAdd(
      docs.filter((d) => d % 7).map((docId) => ({ layerId, docId, spans: [{ start: 0, end: 1, label: String(docId) }], oMode: 'complete' as const })),
    );
    await db.annotations.bulkAdd(docs.map((docId) => ({ layerId: other, docId, spans: [], oMode: 'complete' as const })));
    const want = (ids: number[]) => ids.map((d) => (d % 7 && d <= 3000 ? String(d) : undefined));
    const got = async (ids: number[]) => (await layerRows(db, layerId, ids)).map((r) => r?.spans[0].label);
    // Under 1,000 documents, and 1,100 of 2,572 rows: a read per document.
    for (const ids of [[5, 7, 3, 2999, 4000], docs.slice(0, 1100).reverse()]) expect(await got(ids)).toEqual(want(ids));
    // Most of the layer, in any order, with ids it lacks and ids twice: one range read.
    const many = [...docs].reverse().concat([4000, 14, 15]);
    expect(await got(many)).toEqual(want(many));
  });
});

describe("the review queue's decisions into the dictionary", () => {
  it('adds typed phrases to the corrections gazetteer and STOP phrases to the stop list in one transaction, skips what is listed, and one call removes them', async () => {
    const db = new StudioDB(`dict-${Math.random()}`);
    const pid = await createProject(db, 'p');
    // A decided sentence: the run found "Warfarin" (Chemical) where the weak labels had nothing, and dropped their "harm" (Disease).
    const rules = phraseRules([
      {
        words: ['Warfarin', 'causes', 'no', 'harm'],
        weak: [{ start: 3, end: 4, type: 'Disease' }],
        gold: [{ start: 0, end: 1, type: 'Chemical' }],
      },
    ]);
    expect([...rules]).toEqual([
      ['Warfarin', 'Chemical'],
      ['harm', STOP],
    ]);
    const first = await addPhrasesToDictionary(db, pid, rules);
    expect(first.entries).toHaveLength(2);
    expect(first.skipped).toEqual([]);
    const lists = await db.gazetteers.where('projectId').equals(pid).toArray();
    const corrections = lists.find((g) => g.name === 'corrections')!;
    const stop = lists.find((g) => g.stop)!;
    expect(await db.gazetteerEntries.where('gazetteerId').equals(corrections.id!).toArray()).toMatchObject([{ phrase: 'Warfarin', type: 'Chemical' }]);
    expect(await db.gazetteerEntries.where('gazetteerId').equals(stop.id!).toArray()).toMatchObject([{ phrase: 'harm', type: null }]);
    expect((await db.projects.get(pid))!.types.map((t) => t.name)).toContain('Chemical');
    // Again: both are listed already, nothing is added twice.
    const again = await addPhrasesToDictionary(db, pid, rules);
    expect(again).toEqual({ entries: [], skipped: ['Warfarin', 'harm'] });
    await removeGazetteerEntries(db, first.entries);
    expect(await db.gazetteerEntries.count()).toBe(0);
  });
});
