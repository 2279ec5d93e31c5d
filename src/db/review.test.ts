import 'fake-indexeddb/auto';
import { liveQuery } from 'dexie';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConll } from '../core/formats/conll';
import { rankSentences, type QueueDoc } from '../core/reviewSignals';
import { sentenceRanges, tokenTexts } from '../core/types';
import { reviewSignal } from '../methods/reviewSignals';
import { createProject, decideSentenceInLayer, importCorpus, moveDocuments, saveWeakLabels } from './repo';
import { correctionYieldOf, DEFAULT_SIGNALS, defaultSignal, loopState, reviewProgress, reviewQueue } from './review';
import { layerRows } from './layerStore';
import { addRun, finishRun } from './runs';
import { StudioDB } from './schema';

// Two training documents, the first of two sentences, and one dev document; the run finds a Chemical the weak labels miss.
const TRAIN = '-DOCSTART- O\n\nAspirin O\ncauses O\nasthma O\n. O\n\nIbuprofen O\nhelps O\n\n-DOCSTART- O\n\nWarfarin O\nbleeds O\n';
const DEV = 'Heparin O\nworks O\n';

async function project() {
  const db = new StudioDB(`queue-${Math.random()}`);
  const projectId = await createProject(db, 'p');
  const layer = { kind: 'gold' as const, name: 'gold' };
  const a = await importCorpus(db, projectId, parseConll(TRAIN, { file: 'train.conll', scheme: 'BIO', split: 'train', layer }));
  const d = await importCorpus(db, projectId, parseConll(DEV, { file: 'dev.conll', scheme: 'BIO', split: 'dev', layer }));
  const docIds = [...a.docIds, ...d.docIds];
  const docs = await db.documents.bulkGet(docIds);
  const weakSpans = docs.map((doc) => (tokenTexts(doc!)[2] === 'asthma' ? [{ start: 2, end: 3, label: 'Disease' }] : []));
  await saveWeakLabels(
    db,
    projectId,
    docIds,
    [{ name: 'g', priority: 0, spans: weakSpans }],
    weakSpans.map((spans) => ({ spans, oMode: 'partial' as const })),
    'priority',
  );
  const weak = (await db.layers
    .where('[projectId+kind]')
    .equals([projectId, 'weak'])
    .filter((l) => l.role === 'aggregate')
    .first())!.id!;
  // The run predicts a Chemical at each document's first token, and is unsure of it.
  const predicted = docs.map((doc) => [
    { start: 0, end: 1, label: 'Chemical' },
    ...(tokenTexts(doc!)[2] === 'asthma' ? [{ start: 2, end: 3, label: 'Disease' }] : []),
  ]);
  const uncertainty = docs.map((doc, k) => Float32Array.from(tokenTexts(doc!), (_, t) => (t === 0 ? 0.3 + 0.1 * k : 0.01)));
  const runId = await addRun(db, { projectId, kind: 'train', config: {}, status: 'running', createdAt: 0 });
  await finishRun(db, { runId, projectId, docIds, predicted, signals: uncertainty.map((u) => ({ uncertainty: u })), model: { weights: {} }, metrics: {} });
  const predLayer = ((await db.runs.get(runId))!.metrics as { predictedLayerId: number }).predictedLayerId;
  return { db, projectId, docIds, weak, predLayer, runId, docs: docs.map((x) => x!), predicted, weakSpans, uncertainty };
}

describe("the queue's default signal", () => {
  it('is the one the rule over the simulated corpora chose (bench/results/queue-loco.json), then reach, then disagreement', () => {
    const record = JSON.parse(readFileSync('bench/results/queue-loco.json', 'utf8')) as { default: { studio: string } };
    expect(DEFAULT_SIGNALS[0]).toBe(record.default.studio);
    expect(defaultSignal(['disagreement', 'uncertainty', 'reach'])).toBe('uncertainty');
    expect(defaultSignal(['disagreement', 'reach'])).toBe('reach');
    expect(defaultSignal(['pu', 'disagreement'])).toBe('disagreement');
    expect(defaultSignal(['pu'])).toBe('pu');
  });
});

describe('the review queue, read and ranked in the query worker', () => {
  it('ranks as the core does, each entry with its sentence and the spans a decision writes; train only unless asked', async () => {
    const p = await project();
    const args = { projectId: p.projectId, weak: p.weak, predLayer: p.predLayer, runId: p.runId, signal: null, allSplits: false, limit: 200 };
    const view = (await reviewQueue(p.db, args))!;
    // The run carries uncertainty, so the queue opens on it.
    expect(view.signal).toBe('uncertainty');
    expect(view.have).toEqual(expect.arrayContaining(['disagreement', 'uncertainty', 'uncertainty-sum', 'reach']));
    const queueDocs = (split: string): QueueDoc[] =>
      p.docs.flatMap((doc, k) =>
        doc.split === split
          ? [
              {
                docId: p.docIds[k],
                name: doc.name,
                words: tokenTexts(doc),
                sentences: sentenceRanges(doc),
                weak: p.weakSpans[k],
                predicted: p.predicted[k],
                signals: { uncertainty: p.uncertainty[k] },
              },
            ]
          : [],
      );
    const want = rankSentences(queueDocs('train'), reviewSignal('uncertainty'));
    expect(want.length).toBeGreaterThan(1);
    expect(view.entries.map(({ words: _, weak: __, predicted: ___, ...e }) => e)).toEqual(want);
    expect(view.total).toBe(want.length);
    expect(view.elsewhere).toBe(rankSentences(queueDocs('dev'), reviewSignal('uncertainty')).length);
    for (const e of view.entries) {
      const k = p.docIds.indexOf(e.docId);
      expect(e.words).toEqual(tokenTexts(p.docs[k]).slice(e.from, e.to));
      expect(e.predicted).toEqual(p.predicted[k].filter((s) => s.start < e.to && s.end > e.from));
      expect(e.weak).toEqual(p.weakSpans[k].filter((s) => s.start < e.to && s.end > e.from));
    }
    // The limit, another signal, and dev and test on request.
    expect((await reviewQueue(p.db, { ...args, limit: 1 }))!.entries).toEqual([view.entries[0]]);
    expect((await reviewQueue(p.db, { ...args, limit: 1 }))!.total).toBe(view.total);
    const dis = (await reviewQueue(p.db, { ...args, signal: 'disagreement' }))!;
    expect(dis.signal).toBe('disagreement');
    expect(dis.entries.map((e) => [e.docId, e.sentence])).toEqual(
      rankSentences(queueDocs('train'), reviewSignal('disagreement')).map((e) => [e.docId, e.sentence]),
    );
    const all = (await reviewQueue(p.db, { ...args, allSplits: true }))!;
    expect(all.total).toBe(view.total + view.elsewhere);
    expect(all.elsewhere).toBe(0);
    // No weak layer: nothing to rank. A run without signals: disagreement is the default.
    expect(await reviewQueue(p.db, { ...args, weak: null })).toBeNull();
    expect((await reviewQueue(p.db, { ...args, runId: null }))!.signal).toBe('disagreement');
    await expect(reviewQueue(p.db, { ...args, signal: 'nonsense' })).rejects.toThrow(/unknown review signal "nonsense"/);
    // The words are kept between rankings, the splits are not: a document moved to train joins the queue.
    const devId = p.docIds[p.docs.findIndex((d) => d.split === 'dev')];
    await moveDocuments(p.db, p.projectId, [{ docId: devId, split: 'train' }]);
    const moved = (await reviewQueue(p.db, args))!;
    expect(moved.total).toBe(view.total + view.elsewhere);
    expect(moved.entries.find((e) => e.docId === devId)?.words).toEqual(['Heparin', 'works']);
    // A document of no split (text imported later) is not counted among dev and test's left out; every split queues it.
    await moveDocuments(p.db, p.projectId, [{ docId: devId, split: 'unassigned' }]);
    const away = (await reviewQueue(p.db, args))!;
    const itsOwn = moved.total - view.total;
    expect(itsOwn).toBeGreaterThan(0);
    expect([away.total, away.elsewhere]).toEqual([view.total, view.elsewhere - itsOwn]);
    expect((await reviewQueue(p.db, { ...args, allSplits: true }))!.total).toBe(view.total + view.elsewhere);
  });

  it('with no run, ranks where the weak sources disagree, reading the source layers the aggregate was made from', async () => {
    const db = new StudioDB(`queue-${Math.random()}`);
    const projectId = await createProject(db, 'p');
    const layer = { kind: 'gold' as const, name: 'gold' };
    const { docIds } = await importCorpus(db, projectId, parseConll(TRAIN, { file: 'train.conll', scheme: 'BIO', split: 'train', layer }));
    const docs = (await db.documents.bulkGet(docIds)).map((d) => d!);
    // A gazetteer and a rule: the rule calls Aspirin a Disease, the gazetteer a Chemical, which the aggregate keeps.
    const first = docs.map((d) => (tokenTexts(d)[0] === 'Aspirin' ? [{ start: 0, end: 1, label: 'Chemical' }] : []));
    const rule = docs.map((d) => (tokenTexts(d)[0] === 'Aspirin' ? [{ start: 0, end: 1, label: 'Disease' }] : []));
    await saveWeakLabels(
      db,
      projectId,
      docIds,
      [
        { name: 'gazetteer', priority: 1, spans: first },
        { name: 'rule', priority: 0, spans: rule },
      ],
      first.map((spans) => ({ spans, oMode: 'partial' as const })),
      'priority',
    );
    const layers = await db.layers.where('[projectId+kind]').equals([projectId, 'weak']).sortBy('id');
    const aggregate = layers.find((l) => l.role === 'aggregate')!.id!;
    const args = { projectId, weak: aggregate, predLayer: null, runId: null, signal: null, allSplits: false, limit: 200 };
    const view = (await reviewQueue(db, args))!;
    expect(view.have).toEqual(['sources']);
    expect(view.signal).toBe('sources');
    expect(view.entries.map((e) => [e.name, e.sentence, e.reasons])).toEqual([
      [docs[0].name, 1, ['Aspirin (gazetteer Chemical, rule Disease; weak Chemical)']],
    ]);
    expect(view.entries[0].predicted).toBeUndefined();
    expect((await reviewQueue(db, { ...args, signal: 'sources' }))!.entries).toEqual(view.entries);
    // Ranked against one source's own layer, there is nothing it aggregates.
    const source = { ...args, weak: layers.find((l) => l.role === 'source')!.id! };
    expect((await reviewQueue(db, source))!.have).toEqual([]);
    expect((await reviewQueue(db, { ...source, signal: 'sources' }))!.total).toBe(0);
  });

  it("a decision, written to the corrections layer, does not wake the queue's live query; new weak labels do", async () => {
    const p = await project();
    const args = { projectId: p.projectId, weak: p.weak, predLayer: p.predLayer, runId: p.runId, signal: null, allSplits: false, limit: 200 };
    const results: number[] = [];
    const sub = liveQuery(() => reviewQueue(p.db, args)).subscribe((v) => results.push(v!.total));
    await expect.poll(() => results.length).toBe(1);
    const first = (await reviewQueue(p.db, args))!.entries[0];
    await decideSentenceInLayer(p.db, p.projectId, 'corrections', first.docId, first.from, first.to, first.predicted ?? []);
    await decideSentenceInLayer(p.db, p.projectId, 'corrections', first.docId, first.from, first.to, first.weak);
    await new Promise((r) => setTimeout(r, 100));
    expect(results.length).toBe(1);
    // Writing the weak layer's rows again is a change the queue reads.
    await saveWeakLabels(
      p.db,
      p.projectId,
      p.docIds,
      [{ name: 'g', priority: 0, spans: p.weakSpans }],
      p.weakSpans.map((spans) => ({ spans, oMode: 'partial' as const })),
      'priority',
    );
    await expect.poll(() => results.length).toBeGreaterThan(1);
    sub.unsubscribe();
  });

  it("the loop's state counts the corrections layer's reviewed sentences on train only; progress reads a gold layer", async () => {
    const p = await project();
    expect(await loopState(p.db, p.projectId, 'corrections')).toMatchObject({ layerId: null, corrections: 0, runs: [{ id: p.runId }] });
    const view = (await reviewQueue(p.db, {
      projectId: p.projectId,
      weak: p.weak,
      predLayer: p.predLayer,
      runId: p.runId,
      signal: null,
      allSplits: true,
      limit: 200,
    }))!;
    const devEntry = view.entries.find((e) => p.docs[p.docIds.indexOf(e.docId)].split === 'dev')!;
    const trainEntries = view.entries.filter((e) => e !== devEntry);
    for (const e of [devEntry, ...trainEntries.slice(0, 2)])
      await decideSentenceInLayer(p.db, p.projectId, 'corrections', e.docId, e.from, e.to, e.weak, e.weak);
    const state = await loopState(p.db, p.projectId, 'corrections');
    expect(state.layerId).not.toBeNull();
    expect(state.corrections).toBe(2);
    expect(await loopState(p.db, p.projectId, 'another')).toMatchObject({ layerId: null, corrections: 0 });
    // What reviewing found: the two train sentences kept their weak labels; the dev one is not counted.
    expect(trainEntries).toHaveLength(3);
    expect(await correctionYieldOf(p.db, p.projectId, 'corrections', p.weak)).toEqual({ reviewed: 2, changed: 0, recent: { reviewed: 2, changed: 0 } });
    // The third gets a Chemical at its first token, which its weak labels lack: a change, and the newest.
    const third = trainEntries[2];
    await decideSentenceInLayer(p.db, p.projectId, 'corrections', third.docId, third.from, third.to, [
      ...third.weak,
      { start: third.from, end: third.from + 1, label: 'Chemical' },
    ]);
    expect(await correctionYieldOf(p.db, p.projectId, 'corrections', p.weak)).toEqual({ reviewed: 3, changed: 1, recent: { reviewed: 3, changed: 1 } });
    // That one was decided without a verdict kept: it is read against the weak layer as it is now.
    expect(await p.db.annotations.get([state.layerId!, third.docId])).not.toHaveProperty(`weakChanged.${third.from}`);
    // Decided again against its weak labels, the verdict is kept; the weak layer labelled again to
    // hold the Chemical (as "add to gazetteer" does) does not take back what reviewing found.
    const chemical = { start: third.from, end: third.from + 1, label: 'Chemical' };
    await decideSentenceInLayer(p.db, p.projectId, 'corrections', third.docId, third.from, third.to, [...third.weak, chemical], third.weak);
    const relabelled = p.docs.map((_, k) => (p.docIds[k] === third.docId ? [...p.weakSpans[k], chemical] : p.weakSpans[k]));
    await saveWeakLabels(
      p.db,
      p.projectId,
      p.docIds,
      [{ name: 'g', priority: 0, spans: relabelled }],
      relabelled.map((spans) => ({ spans, oMode: 'partial' as const })),
      'priority',
    );
    const weakNow = (await p.db.layers
      .where('[projectId+kind]')
      .equals([p.projectId, 'weak'])
      .filter((l) => l.role === 'aggregate')
      .first())!.id!;
    expect((await layerRows(p.db, weakNow, [third.docId]))[0]!.spans).toContainEqual(chemical);
    expect(await correctionYieldOf(p.db, p.projectId, 'corrections', weakNow)).toEqual({ reviewed: 3, changed: 1, recent: { reviewed: 3, changed: 1 } });
    expect(await correctionYieldOf(p.db, p.projectId, 'another', p.weak)).toBeNull();
    expect(await correctionYieldOf(p.db, p.projectId, 'corrections', null)).toBeNull();
    // Progress of a gold layer: the imported one, which reviewed nothing.
    const gold = (await p.db.layers.where('[projectId+kind]').equals([p.projectId, 'gold']).first())!.id!;
    const progress = (await reviewProgress(p.db, p.projectId, gold, null))!;
    expect(progress.progress.bySplit.train.sentences).toBe(3);
    expect(progress.agreement).toBeNull();
    expect(await reviewProgress(p.db, p.projectId, null, null)).toBeNull();
  });
});
