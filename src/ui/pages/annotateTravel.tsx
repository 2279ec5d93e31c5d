/**
 * Corrections that travel, in the editor: `p` applies the span under the cursor to every
 * occurrence of its words (a preview first, one undo for all), `g` adds it to the corrections
 * gazetteer and `s` the words under the cursor to the stop list, each labelling the weak layer
 * again. One `u` takes any of them back whole while it is the last change.
 */
import { type MutableRefObject, useRef, useState } from 'react';
import { labelOccurrences, removeAt, type EditState, type History } from '../../core/annotate';
import type { Span } from '../../core/types';
import { db } from '../../db/instance';
import { addToCorrectionsGazetteer, addToStopList, labelEverywhere, removeGazetteerEntry, restoreRows } from '../../db/repo';
import type { LayerRow } from '../../db/schema';
import type { Occurrence } from '../../db/search';
import { WeakJob } from '../../worker/weakClient';
import type { WeakOptions } from '../../worker/weakJob';
import { queryOnce } from '../workerQuery';

/** The occurrences "apply to all" would label: in this document, and in the others (with their split). */
export interface Preview {
  words: string[];
  label: string;
  here: { start: number; end: number }[];
  others: Occurrence[];
  /** Dev and test documents too: their gold selects and scores models, so only when asked. */
  allSplits: boolean;
}

/** Every occurrence of a span's words in the project, this document's apart (found in the query worker). */
async function occurrencesOf(projectId: number, docId: number, words: string[], label: string): Promise<Preview> {
  const { here, others } = await queryOnce('occurrences', projectId, docId, words);
  return { words, label, here, others, allSplits: false };
}

interface TravelArgs {
  projectId: number;
  docId: number;
  history: MutableRefObject<History | null>;
  /** The annotator's layer the editor writes. */
  target: MutableRefObject<number | null>;
  box: MutableRefObject<HTMLDivElement | null>;
  commit: (next: EditState) => void;
  restore: (s: EditState) => void;
  setError: (e: string | null) => void;
  layers: readonly LayerRow[];
  setLayers: (ls: LayerRow[]) => void;
  setSourceId: (f: (prev: number | null) => number | null) => void;
}

/** Where the editor's cursor is, for the travelling keys. */
interface KeyContext {
  cursor: number;
  sel: [number, number] | null;
  suggestions: readonly Span[];
  words: readonly string[];
}

/** The weak labels made again as the last weak-labeling run made them (after a gazetteer or stop-list change); what it did, in a few words. */
export async function labelWeakAgain(projectId: number): Promise<string> {
  const last = (
    await db.runs
      .where('projectId')
      .equals(projectId)
      .filter((r) => r.kind === 'weak' && r.status === 'done')
      .sortBy('id')
  ).at(-1);
  const cfg = (last?.config ?? {}) as Partial<WeakOptions>;
  const summary = await new WeakJob().run(
    projectId,
    {
      method: cfg.method ?? 'priority',
      typeUntyped: cfg.typeUntyped ?? true,
      ...(cfg.fitOn ? { fitOn: cfg.fitOn } : {}),
      ...(cfg.abbreviations ? { abbreviations: cfg.abbreviations } : {}),
    },
    () => {},
  );
  return `${summary.documents} documents, ${summary.method}`;
}

/** labelWeakAgain, the editor's suggestions following the new weak layer. */
async function relabelWeakLayer(
  projectId: number,
  layers: readonly LayerRow[],
  setLayers: TravelArgs['setLayers'],
  setSourceId: TravelArgs['setSourceId'],
): Promise<string> {
  const summary = await labelWeakAgain(projectId);
  const agg = (await db.layers.where('[projectId+kind]').equals([projectId, 'weak']).toArray()).find((l) => l.role === 'aggregate');
  setSourceId((prev) => (prev === null || !layers.some((l) => l.id === prev && l.kind === 'weak') ? prev : (agg?.id ?? prev)));
  setLayers(await db.layers.where('projectId').equals(projectId).sortBy('id'));
  return summary;
}

export function useTravel({ projectId, docId, history, target, box, commit, restore, setError, layers, setLayers, setSourceId }: TravelArgs) {
  /** "Apply to all occurrences": what it would change, shown before it does. */
  const [preview, setPreview] = useState<Preview | null>(null);
  const [note, setNote] = useState<string | null>(null);
  /**
   * The last change that reached beyond this document (p, g, s), while it is still the last one
   * here: u takes it back whole (`undo`), and this document's step too when it made one.
   */
  const bulk = useRef<{ depth: number; alsoHere: boolean; undo: () => Promise<string> } | null>(null);

  /** Labels every chosen occurrence: the other documents' in one transaction, this one's as one step of its history. */
  const applyPreview = async (p: Preview) => {
    if (!history.current || target.current === null) return;
    const others = p.others.filter((o) => p.allSplits || o.split === 'train');
    try {
      const before = await labelEverywhere(db, target.current, others, p.label);
      commit(labelOccurrences(history.current.state, p.here, p.label));
      bulk.current = {
        depth: history.current.depth,
        alsoHere: true,
        undo: async () => {
          await restoreRows(db, before);
          return `Undone in ${before.length} other ${before.length === 1 ? 'document' : 'documents'} and here.`;
        },
      };
      const docsN = new Set(others.map((o) => o.docId)).size;
      setNote(
        `“${p.words.join(' ')}” labelled ${p.label} at ${others.length + p.here.length} occurrences (${docsN} other ${docsN === 1 ? 'document' : 'documents'}); u undoes them all.`,
      );
    } catch (err) {
      setError(`not applied: ${(err as Error).message}`);
    }
    setPreview(null);
    box.current?.focus();
  };

  const relabelWeak = () => relabelWeakLayer(projectId, layers, setLayers, setSourceId);

  /**
   * "Add to gazetteer" (a type) or "add to the stop list" (no type): the phrase goes there, and the
   * weak labels are made again, so the weak layer says it at once. One undo takes the entry out
   * and labels again (and restores this document's span, where s removed it: `alsoHere`).
   */
  const travelToWeak = async (phrase: string, label: string | null, alsoHere: boolean) => {
    const where = label ? `the corrections gazetteer as ${label}` : 'the stop list';
    let entry: number;
    try {
      entry = label ? await addToCorrectionsGazetteer(db, projectId, phrase, label) : await addToStopList(db, projectId, phrase);
    } catch (err) {
      if (alsoHere && history.current) restore(history.current.undo());
      setNote(`Not added: ${(err as Error).message}.`);
      return;
    }
    if (history.current)
      bulk.current = {
        depth: history.current.depth,
        alsoHere,
        undo: async () => {
          await removeGazetteerEntry(db, entry);
          return `“${phrase}” taken out of ${label ? 'the corrections gazetteer' : 'the stop list'}; the weak layer is labelled again (${await relabelWeak()}).`;
        },
      };
    setNote(`“${phrase}” added to ${where}; labelling the weak layer again…`);
    try {
      setNote(`“${phrase}” added to ${where}; the weak layer is labelled again (${await relabelWeak()}); u undoes it.`);
    } catch (err) {
      setNote(`“${phrase}” was added, but the weak labels were not made again: ${(err as Error).message}`);
    }
  };

  /** The travelling keys (p, g, s), the preview's Enter and Escape, and u or ctrl+z while a travelling change is the last: true when the key was one. */
  const onKey = (e: React.KeyboardEvent, { cursor, sel, suggestions, words }: KeyContext): boolean => {
    if (!history.current) return false;
    const k = e.key;
    if (preview && (k === 'Enter' || k === 'Escape')) {
      if (k === 'Enter') void applyPreview(preview);
      else setPreview(null);
      return true;
    }
    if (k === 'p') {
      const span = history.current.state.spans.find((x) => x.start <= cursor && cursor < x.end);
      if (!span) setNote('p applies a span to every occurrence of its words: put the cursor on a span first (a digit labels a selection).');
      else void occurrencesOf(projectId, docId, words.slice(span.start, span.end), span.label).then(setPreview);
    } else if (k === 'g') {
      const span = history.current.state.spans.find((x) => x.start <= cursor && cursor < x.end);
      if (!span) setNote('g adds a span to the corrections gazetteer: put the cursor on a span first (a digit labels a selection).');
      else void travelToWeak(words.slice(span.start, span.end).join(' '), span.label, false);
    } else if (k === 's') {
      // Not an entity: the annotator's span here, else the suggestion here, else the selection.
      const span =
        history.current.state.spans.find((x) => x.start <= cursor && cursor < x.end) ??
        suggestions.find((x) => x.start <= cursor && cursor < x.end) ??
        (sel ? { start: sel[0], end: sel[1] } : null);
      if (!span) setNote('s adds words to the stop list: put the cursor on a span or a suggestion, or select the words.');
      else {
        const own = history.current.state.spans.some((x) => x.start === span.start && x.end === span.end);
        if (own) commit(removeAt(history.current.state, span.start));
        void travelToWeak(words.slice(span.start, span.end).join(' '), null, own);
      }
    } else if ((k === 'u' || ((k === 'z' || k === 'Z') && (e.ctrlKey || e.metaKey) && !e.shiftKey)) && bulk.current?.depth === history.current.depth) {
      // The change that reached beyond this document is the last one here: one undo takes it all back.
      const { undo, alsoHere } = bulk.current;
      bulk.current = null;
      void undo().then(setNote, (err: Error) => setError(`not undone: ${err.message}`));
      if (alsoHere) restore(history.current.undo());
    } else return false;
    return true;
  };

  return { preview, setPreview, note, setNote, applyPreview, onKey };
}

/** What "apply to all occurrences" would change, before it does: the count, the first contexts, the splits. */
export function PropagatePreview({ preview: p, onChange, onApply }: { preview: Preview; onChange: (p: Preview | null) => void; onApply: () => void }) {
  const chosen = p.others.filter((o) => p.allSplits || o.split === 'train');
  const leftOut = p.others.length - chosen.length;
  // Documents of no split (text imported later) are left out too, and are neither dev nor test.
  const devTest = p.others.filter((o) => o.split === 'dev' || o.split === 'test').length;
  const n = chosen.length + p.here.length;
  return (
    <section className="stack" data-testid="propagate-preview" aria-label="Apply to all occurrences">
      <p>
        Label <strong>“{p.words.join(' ')}”</strong> as <strong>{p.label}</strong> at {n} {n === 1 ? 'occurrence' : 'occurrences'}: {p.here.length} here and{' '}
        {chosen.length} in {new Set(chosen.map((o) => o.docId)).size} other documents.
        {leftOut > 0 && !p.allSplits && devTest > 0 && ` ${devTest} more on dev and test are left out: their gold selects and scores models.`}
        {leftOut > devTest && !p.allSplits && ` ${leftOut - devTest} in documents of no split are left out too.`}{' '}
        <label>
          <input
            type="checkbox"
            aria-label="Include dev and test occurrences"
            checked={p.allSplits}
            onChange={(e) => onChange({ ...p, allSplits: e.target.checked })}
          />{' '}
          include dev and test
        </label>
      </p>
      <ul className="muted">
        {chosen.slice(0, 5).map((o) => (
          <li key={`${o.docId}:${o.start}`}>
            {o.name} ({o.split}): {o.context}
          </li>
        ))}
        {chosen.length > 5 && <li>… and {chosen.length - 5} more</li>}
      </ul>
      <div className="row">
        <button type="button" onClick={onApply}>
          Apply to all {n}
        </button>
        <button type="button" onClick={() => onChange(null)}>
          Cancel
        </button>
        <span className="muted">
          <kbd>Enter</kbd> applies, <kbd>Esc</kbd> cancels
        </span>
      </div>
    </section>
  );
}
