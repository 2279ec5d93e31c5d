/**
 * Correcting labels, keyboard first. A token cursor moves with the arrows (shift extends a
 * selection) or the mouse (click, drag, shift-click); digits give the selection a type, backspace
 * removes the span under the cursor; suggestions from a weak or predicted layer are accepted (a),
 * rejected (x) or skipped (space); u or ctrl+z undoes, ctrl+shift+z redoes, j / k move between
 * sentences, r marks the sentence reviewed (its other tokens become definitely O), ? lists the
 * keys. A correction travels: p applies the span under the cursor to every occurrence of its
 * words (a preview first, one undo for all), g adds it to the corrections gazetteer and s adds
 * the words under the cursor to the stop list, each labelling the weak layer again. Every change
 * is written at once to the annotator's gold layer, or to the corrections layer (opened from the
 * review queue, or chosen), whose reviewed sentences training reads as strong labels.
 */
import { useLiveQuery } from 'dexie-react-hooks';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'wouter';
import { History, labelSpan, markReviewed, removeAt, type EditState } from '../../core/annotate';
import type { EditorAnnotation } from '../../core/progress';
import { sentenceChanged } from '../../core/reviewLoop';
import { sentenceRanges, tokenTexts, type Span } from '../../core/types';
import { db } from '../../db/instance';
import { correctionsLayer, goldLayer, saveAnnotation } from '../../db/repo';
import { reviewWeakLayer } from '../layerChecks';
import { useLoopSettings } from '../reviewLoop';
import { layerRows } from '../../db/layerStore';
import type { DocumentRow, LayerRow } from '../../db/schema';
import { count, routeId, useProject, useProjectId } from '../hooks';
import { PropagatePreview, useTravel } from './annotateTravel';
import { LayerOptions } from '../components/LayerOptions';

const KEYS: [string, string][] = [
  ['← →', 'move the cursor; with shift, extend the selection'],
  ['click, drag, shift+click', 'place the cursor, select tokens, extend the selection'],
  ['1–9', 'give the selection (or the cursor token) the n-th type'],
  ['backspace', 'remove the span under the cursor'],
  ['a / x / space', 'accept / reject / skip the current suggestion'],
  ['shift+a', 'accept every suggestion in the sentence'],
  ['p', 'apply the span under the cursor to every occurrence of its words (a preview first; Enter applies, Esc cancels; one undo takes it all back)'],
  ['g', "add the span under the cursor to the project's corrections gazetteer, and label the weak layer again with it"],
  [
    's',
    'add the words of the span or suggestion under the cursor (or the selection) to the stop list: no source labels them again; the weak layer is labelled again',
  ],
  ['u, ctrl+z', 'undo (p, g and s whole)'],
  ['ctrl+shift+z', 'redo'],
  ['j / k', 'next / previous sentence'],
  ['r', 'mark the sentence reviewed: its other tokens become definite O'],
  ['?', 'show or hide this list'],
];

interface RowProps {
  sig: string;
  from: number;
  to: number;
  words: string[];
  spans: Span[];
  suggestions: Span[];
  current: Span | null;
  cursor: number;
  sel: [number, number] | null;
  o: ReadonlySet<number>;
  colors: Map<string, string>;
}

/**
 * The documents before and after this one in the project (by import order, on any split): a
 * corpus of one sentence a line has one sentence a document, and its context is there.
 */
function useNeighbours(projectId: number, docId: number | null) {
  return useLiveQuery(async () => {
    if (docId === null) return null;
    const inProject = (d: DocumentRow) => d.projectId === projectId;
    const [before, after] = await Promise.all([
      db.documents.where(':id').below(docId).and(inProject).last(),
      db.documents.where(':id').above(docId).and(inProject).first(),
    ]);
    return { before, after };
  }, [projectId, docId]);
}

function Neighbour({ doc, where }: { doc: DocumentRow | undefined; where: 'before' | 'after' }) {
  if (!doc) return null;
  const text = doc.text.length > 300 ? `${doc.text.slice(0, 300)}…` : doc.text;
  return (
    <p className="muted neighbour" data-testid={`neighbour-${where}`}>
      <Link href={`/annotate/${doc.id}/0`} title={`open ${doc.name} (${where === 'before' ? 'the document before' : 'the document after'})`}>
        {where === 'before' ? '↑' : '↓'}
      </Link>{' '}
      {text}
    </p>
  );
}

/** One sentence; re-rendered only when what it shows changes (its signature). */
const SentenceRow = memo(
  function SentenceRow({ from, to, words, spans, suggestions, current, cursor, sel, o, colors }: RowProps) {
    const out: React.ReactNode[] = [];
    for (let t = from; t < to; t++) {
      const span = spans.find((s) => s.start <= t && t < s.end);
      const sug = suggestions.find((s) => s.start <= t && t < s.end);
      const cls = [
        'tok',
        span ? 'gold' : '',
        sug ? 'sug' : '',
        sug && sug === current ? 'sug-current' : '',
        t === cursor ? 'cursor' : '',
        sel && t >= sel[0] && t < sel[1] ? 'sel' : '',
        o.has(t) ? 'def-o' : '',
      ]
        .filter(Boolean)
        .join(' ');
      out.push(
        <span
          key={t}
          data-t={t}
          className={cls}
          style={
            span
              ? { background: `${colors.get(span.label) ?? '#888'}33`, borderBottomColor: colors.get(span.label) }
              : sug
                ? { borderBottomColor: colors.get(sug.label) }
                : undefined
          }
          title={span?.label ?? (sug ? `suggested: ${sug.label}` : undefined)}
        >
          {words[t]}
        </span>,
        ' ',
      );
    }
    return <p className="sentence">{out}</p>;
  },
  (a, b) => a.sig === b.sig,
);

const key = (s: Span) => `${s.start}:${s.end}:${s.label}`;

/** The token position under a mouse event's target (a token's data-t), or null. */
function tokenAt(target: EventTarget): number | null {
  const el = (target as HTMLElement).closest?.('[data-t]');
  return el ? Number(el.getAttribute('data-t')) : null;
}

export function AnnotatePage() {
  const projectId = useProjectId();
  const params = useParams<{ docId: string; token?: string; into?: string }>();
  const docId = routeId(params.docId);
  const startToken = params.token === undefined ? 0 : Math.max(0, routeId(params.token));
  const project = useProject(projectId);
  const [annotator, setAnnotator] = useState('gold');
  // Where edits go: the annotator's gold layer, or the corrections layer (opened from the review
  // queue: .../corrections), which training reads as strong labels and the review loop counts.
  const [into, setInto] = useState<'gold' | 'corrections'>(params.into === 'corrections' ? 'corrections' : 'gold');
  const { layer: correctionsName, weak: weakChoice } = useLoopSettings(projectId);
  const [cursor, setCursor] = useState(0);
  const [anchor, setAnchor] = useState<number | null>(null);
  const [help, setHelp] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  /** A mouse press on a token is selecting until the button comes up. */
  const dragging = useRef(false);
  const { doc, layers, setLayers, sourceId, setSourceId, suggested, state, dismissed, history, target, extra, edits } = useEditorDocument({
    projectId,
    docId,
    into,
    annotator,
    correctionsName,
    weakChoice,
    startToken,
    setCursor,
    box,
    setError,
  });
  const { commit, restore } = edits;

  const words = useMemo(() => (doc ? tokenTexts(doc) : []), [doc]);
  const sentences = useMemo(() => (doc ? sentenceRanges(doc) : []), [doc]);
  const neighbours = useNeighbours(projectId, doc ? docId : null);
  const types = project?.types ?? [];
  const colors = useMemo(() => new Map(types.map((t) => [t.name, t.color])), [types]);
  const oSet = useMemo(() => new Set(state.oTokens), [state.oTokens]);
  const { suggestions, bySentence } = useSentenceViews({ state, suggested, dismissed, reviewedAt: extra.current.reviewedAt, sentences, words, colors, oSet });
  const current = suggestions.find((s) => s.end > cursor) ?? suggestions[0] ?? null;
  const sel: [number, number] | null = anchor === null ? null : [Math.min(anchor, cursor), Math.max(anchor, cursor) + 1];
  const travel = useTravel({ projectId, docId, history, target, box, commit, restore, setError, layers, setLayers, setSourceId });
  const { note, preview, setPreview, applyPreview } = travel;

  const onKey = (e: React.KeyboardEvent) => {
    if (!words.length || !history.current) return;
    if (
      travel.onKey(e, { cursor, sel, suggestions, words }) ||
      editKey(e, {
        history: history.current,
        words,
        sentences,
        types,
        cursor,
        setCursor,
        anchor,
        setAnchor,
        sel,
        suggestions,
        current,
        ...edits,
        toggleHelp: () => setHelp(!help),
      })
    )
      e.preventDefault();
  };
  const mouse = mouseSelection({ box, dragging, anchor, setAnchor, cursor, setCursor });
  if (doc === null)
    return (
      <p role="alert" className="error">
        Document {JSON.stringify(decodeURIComponent(params.docId))} is not in this project.
      </p>
    );
  return (
    <div className="stack">
      <EditorToolbar
        docId={docId}
        name={doc?.name}
        into={into}
        setInto={setInto}
        correctionsName={correctionsName}
        annotator={annotator}
        setAnnotator={setAnnotator}
        sourceId={sourceId}
        setSourceId={setSourceId}
        layers={layers}
      />
      <TypeLegend types={types} />
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {help && <KeyHelp />}
      {note && (
        <p className="muted" data-testid="annotate-note">
          {note}
        </p>
      )}
      {preview && <PropagatePreview preview={preview} onChange={setPreview} onApply={() => void applyPreview(preview)} />}
      <Neighbour doc={neighbours?.before} where="before" />
      <div
        ref={box}
        role="application"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the editor is a keyboard application (role="application") that takes focus
        tabIndex={0}
        className="annotate"
        onKeyDown={onKey}
        {...mouse}
        data-testid="annotate-box"
        aria-label="Annotation editor: use the keyboard, ? lists the keys"
      >
        <SentenceRows sentences={sentences} bySentence={bySentence} current={current} cursor={cursor} sel={sel} words={words} oSet={oSet} colors={colors} />
      </div>
      <Neighbour doc={neighbours?.after} where="after" />
      <p className="muted" data-testid="annotate-status">
        {count(state.spans.length, 'span')} · {count(state.oTokens.length, 'token')} reviewed as O · {count(suggestions.length, 'suggestion')} left
      </p>
    </div>
  );
}

/** The entity types with their keys and colours, as spans and as suggestions. */
function TypeLegend({ types }: { types: readonly { name: string; color: string }[] }) {
  return (
    <div className="legend" data-testid="annotate-legend">
      {types.map((t, i) => (
        <span key={t.name} data-type={t.name}>
          <kbd>{i + 1}</kbd>{' '}
          <span className="tok gold" style={{ background: `${t.color}33`, borderBottomColor: t.color }}>
            {t.name}
          </span>{' '}
          <span className="tok sug" style={{ borderBottomColor: t.color }}>
            suggested
          </span>
        </span>
      ))}
      <span>
        <span className="tok def-o">reviewed, O</span>
      </span>
      <span className="muted">
        <kbd>?</kbd> keys
      </span>
    </div>
  );
}

/** The editor's keys. */
function KeyHelp() {
  return (
    <table className="grid" data-testid="key-help">
      <tbody>
        {KEYS.map(([k, what]) => (
          <tr key={k}>
            <td>
              <kbd>{k}</kbd>
            </td>
            <td>{what}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where edits go (a gold layer, or the corrections layer), whose they are, and where suggestions come from. */
function EditorToolbar(p: {
  docId: number;
  name: string | undefined;
  into: 'gold' | 'corrections';
  setInto: (v: 'gold' | 'corrections') => void;
  correctionsName: string;
  annotator: string;
  setAnnotator: (v: string) => void;
  sourceId: number | null;
  setSourceId: (v: number | null) => void;
  layers: readonly LayerRow[];
}) {
  const { docId, into, setInto, correctionsName, annotator, setAnnotator, sourceId, setSourceId, layers } = p;
  return (
    <div className="row">
      <Link href={`/docs/${docId}`}>← document</Link>
      <strong data-testid="annotate-title">{p.name}</strong>
      <label>
        Write to{' '}
        <select aria-label="Write to" value={into} onChange={(e) => setInto(e.target.value as 'gold' | 'corrections')}>
          <option value="gold">a gold layer</option>
          <option value="corrections">the corrections layer “{correctionsName}”</option>
        </select>
      </label>
      {into === 'gold' && (
        <label>
          Annotator <input aria-label="Annotator" className="narrow" value={annotator} onChange={(e) => setAnnotator(e.target.value.trim() || 'gold')} />
        </label>
      )}
      <label>
        Suggestions from{' '}
        <select aria-label="Suggestions" value={sourceId ?? ''} onChange={(e) => setSourceId(e.target.value ? Number(e.target.value) : null)}>
          <option value="">none</option>
          <LayerOptions layers={layers.filter((l) => l.kind === 'weak' || l.kind === 'predicted')} withKind />
        </select>
      </label>
    </div>
  );
}

interface KeyContext {
  history: History;
  words: readonly string[];
  sentences: readonly [number, number][];
  types: readonly { name: string }[];
  cursor: number;
  setCursor: (t: number) => void;
  anchor: number | null;
  setAnchor: (t: number | null) => void;
  sel: [number, number] | null;
  suggestions: readonly Span[];
  current: Span | null;
  commit: (next: EditState) => void;
  restore: (s: EditState) => void;
  /** A suggestion rejected: remembered with the document's row. */
  reject: (s: Span) => void;
  /** The sentence [a, b) marked reviewed (r): its other tokens become definite O. */
  review: (a: number, b: number) => void;
  toggleHelp: () => void;
}

/** The editor's own keys (KEYS lists them); true when the key was one of them. */
function editKey(e: React.KeyboardEvent, c: KeyContext): boolean {
  const { history, words, sentences, types, cursor, setCursor, anchor, setAnchor, sel, suggestions, current, commit, restore } = c;
  const n = words.length;
  const sentenceOf = (t: number) => sentences.findIndex(([a, b]) => t >= a && t < b);
  const k = e.key;
  if (k === 'ArrowRight' || k === 'ArrowLeft') {
    if (e.shiftKey && anchor === null) setAnchor(cursor);
    if (!e.shiftKey) setAnchor(null);
    setCursor(Math.max(0, Math.min(n - 1, cursor + (k === 'ArrowRight' ? 1 : -1))));
  } else if (/^[1-9]$/.test(k) && !e.ctrlKey && !e.metaKey) {
    const type = types[Number(k) - 1];
    if (type) {
      const [a, b] = sel ?? [cursor, cursor + 1];
      commit(labelSpan(history.state, a, b, type.name));
      setAnchor(null);
    }
  } else if (k === 'Backspace' || k === 'Delete') commit(removeAt(history.state, cursor));
  else if (k === 'A') {
    const [a, b] = sentences[sentenceOf(cursor)];
    let next = history.state;
    for (const sg of suggestions.filter((x) => x.start >= a && x.end <= b)) next = labelSpan(next, sg.start, sg.end, sg.label);
    commit(next);
  } else if (k === 'a' && current) {
    commit(labelSpan(history.state, current.start, current.end, current.label));
    setCursor(Math.min(n - 1, current.end));
  } else if (k === 'x' && current) {
    c.reject(current);
    restore(history.state);
    setCursor(Math.min(n - 1, current.end));
  } else if (k === ' ' && current) {
    const next = suggestions.find((s) => s.start > current.start);
    setCursor(next ? next.start : current.start);
  } else if ((k === 'z' || k === 'Z') && (e.ctrlKey || e.metaKey)) restore(e.shiftKey ? history.redo() : history.undo());
  else if (k === 'u') restore(history.undo());
  else if (k === 'j' || k === 'k') {
    const i = sentenceOf(cursor) + (k === 'j' ? 1 : -1);
    if (sentences[i]) setCursor(sentences[i][0]);
    setAnchor(null);
  } else if (k === 'r') {
    const [a, b] = sentences[sentenceOf(cursor)];
    c.review(a, b);
  } else if (k === '?') c.toggleHelp();
  else return false;
  return true;
}

/**
 * The document the editor shows and the row it writes (the annotator's gold layer, or the
 * corrections layer), with its edit history, and the layer whose spans it suggests. Loaded once
 * per document and target layer, not live: the editor's own writes must not reset it.
 */
function useEditorDocument(o: {
  projectId: number;
  docId: number;
  into: 'gold' | 'corrections';
  annotator: string;
  correctionsName: string;
  /** The weak layer chosen on the review page (0: none): reviewed sentences' verdicts compare with it (reviewWeakLayer). */
  weakChoice: number;
  startToken: number;
  setCursor: (t: number) => void;
  box: React.RefObject<HTMLDivElement | null>;
  setError: (e: string) => void;
}) {
  const { projectId, docId, into, annotator, correctionsName, weakChoice, startToken, setCursor, box, setError } = o;
  const [doc, setDoc] = useState<DocumentRow | null>(null);
  const [layers, setLayers] = useState<LayerRow[]>([]);
  const [sourceId, setSourceId] = useState<number | null>(null);
  const [suggested, setSuggested] = useState<Span[]>([]);
  const [state, setState] = useState<EditState>({ spans: [], oTokens: [] });
  const [dismissed, setDismissed] = useState<Set<string>>(new Set());
  const history = useRef<History | null>(null);
  const target = useRef<number | null>(null);
  /** What the editor keeps beside spans: when sentences were reviewed, and rejected suggestions. */
  const extra = useRef<{ reviewedAt: Record<number, number>; rejected: string[]; weakChanged?: Record<number, boolean> }>({ reviewedAt: {}, rejected: [] });
  /**
   * In a corrections layer, the document's weak labels when it was opened (the layer the queue ranks
   * against: the review page's choice, else the aggregate, else the first weak layer) and its sentences' ends, to keep
   * what each reviewed sentence's labels say against them (`weakChanged`) with every write.
   */
  const weakSpans = useRef<readonly Span[] | null>(null);
  const sentenceEnds = useRef<Map<number, number>>(new Map());
  /** The labels last loaded or written, which the next write's verdicts compare with. */
  const written = useRef<EditState>({ spans: [], oTokens: [] });
  /**
   * `extra` as a write from `prev` to `s` leaves it: a reviewed sentence whose labels the write
   * changed, or that has no verdict yet (just marked), gets its verdict from `s`; the others keep
   * theirs, as they were decided (here or in the queue).
   */
  const withVerdicts = useCallback((prev: EditState, s: EditState) => {
    const weak = weakSpans.current;
    written.current = s;
    if (!weak) return extra.current;
    const verdicts = { ...extra.current.weakChanged };
    for (const a of Object.keys(extra.current.reviewedAt).map(Number)) {
      const b = sentenceEnds.current.get(a);
      if (b !== undefined && (verdicts[a] === undefined || sentenceChanged(s.spans, prev.spans, a, b))) verdicts[a] = sentenceChanged(s.spans, weak, a, b);
    }
    extra.current.weakChanged = verdicts;
    return extra.current;
  }, []);
  useEffect(() => {
    let stop = false;
    (async () => {
      const d = await db.documents.get(docId);
      const ls = await db.layers.where('projectId').equals(projectId).sortBy('id');
      const tid = into === 'corrections' ? await correctionsLayer(db, projectId, correctionsName) : await goldLayer(db, projectId, annotator);
      const [own] = await layerRows(db, tid, [docId]);
      const weakLayer = into === 'corrections' ? reviewWeakLayer(ls, weakChoice) : undefined;
      const [weakRow] = weakLayer ? await layerRows(db, weakLayer.id!, [docId]) : [undefined];
      if (stop) return;
      weakSpans.current = weakLayer ? (weakRow?.spans ?? []) : null;
      sentenceEnds.current = new Map(d ? sentenceRanges(d) : []);
      target.current = tid;
      const initial = { spans: own?.spans ?? [], oTokens: own?.oTokens ?? [] };
      history.current = new History(initial);
      written.current = initial;
      extra.current = {
        reviewedAt: { ...(own as EditorAnnotation | undefined)?.reviewedAt },
        rejected: [...((own as EditorAnnotation | undefined)?.rejected ?? [])],
        ...((own as EditorAnnotation | undefined)?.weakChanged ? { weakChanged: { ...(own as EditorAnnotation).weakChanged } } : {}),
      };
      setDismissed(new Set(extra.current.rejected));
      setCursor(Math.min(startToken, Math.max(0, (d?.offsets.length ?? 0) / 2 - 1)));
      setDoc(d && d.projectId === projectId ? d : null);
      setLayers(await db.layers.where('projectId').equals(projectId).sortBy('id'));
      setState(initial);
      setSourceId((prev) => prev ?? ls.find((l) => l.role === 'aggregate')?.id ?? ls.find((l) => l.kind === 'predicted')?.id ?? null);
      box.current?.focus();
    })();
    return () => {
      stop = true;
    };
  }, [docId, projectId, annotator, startToken, into, correctionsName, weakChoice, setCursor, box]);

  useEffect(() => {
    if (sourceId === null) return setSuggested([]);
    void layerRows(db, sourceId, [docId]).then(([a]) => setSuggested(a?.spans ?? []));
  }, [sourceId, docId]);
  // Opened at a token (from the review queue): bring it into view once the document is drawn.
  useEffect(() => {
    if (!doc || !startToken) return;
    requestAnimationFrame(() => box.current?.querySelector(`[data-t="${startToken}"]`)?.scrollIntoView({ block: 'center' }));
  }, [doc, startToken, box]);

  // Every edit is written at once; undo and redo write the state they restore.
  const commit = useCallback(
    (next: EditState) => {
      if (!history.current || target.current === null) return;
      setState(history.current.apply(next));
      saveAnnotation(db, target.current, docId, next.spans, next.oTokens, withVerdicts(written.current, next)).catch((e) =>
        setError(`not saved: ${(e as Error).message}`),
      );
    },
    [docId, setError, withVerdicts],
  );
  const restore = (s: EditState) => {
    setState(s);
    if (target.current !== null)
      saveAnnotation(db, target.current, docId, s.spans, s.oTokens, withVerdicts(written.current, s)).catch((e) =>
        setError(`not saved: ${(e as Error).message}`),
      );
  };
  const reject = (s: Span) => {
    setDismissed(new Set([...dismissed, key(s)]));
    extra.current.rejected = [...extra.current.rejected, key(s)];
  };
  const review = (a: number, b: number) => {
    extra.current.reviewedAt = { ...extra.current.reviewedAt, [a]: Date.now() };
    // Marked (again), the sentence's verdict is taken afresh.
    if (extra.current.weakChanged) delete extra.current.weakChanged[a];
    commit(markReviewed(history.current!.state, a, b));
  };
  return { doc, layers, setLayers, sourceId, setSourceId, suggested, state, dismissed, history, target, extra, edits: { commit, restore, reject, review } };
}

/** Selecting tokens with the mouse: a press places the cursor and starts a selection that a drag extends; shift-click extends from the anchor. */
function mouseSelection(c: {
  box: React.RefObject<HTMLDivElement | null>;
  dragging: React.MutableRefObject<boolean>;
  anchor: number | null;
  setAnchor: (t: number | null) => void;
  cursor: number;
  setCursor: (t: number) => void;
}) {
  const { box, dragging, anchor, setAnchor, cursor, setCursor } = c;
  return {
    onMouseDown: (e: React.MouseEvent) => {
      const t = tokenAt(e.target);
      if (t === null || e.button !== 0) return;
      e.preventDefault();
      box.current?.focus();
      // Shift-click extends from the anchor (or the cursor); a press starts a new selection that a drag extends.
      if (e.shiftKey) setAnchor(anchor ?? cursor);
      else {
        setAnchor(t);
        dragging.current = true;
      }
      setCursor(t);
    },
    onMouseMove: (e: React.MouseEvent) => {
      const t = tokenAt(e.target);
      if (t !== null && dragging.current && e.buttons & 1) setCursor(t);
    },
    onMouseUp: () => {
      // A click without a drag places the cursor only.
      if (dragging.current && anchor === cursor) setAnchor(null);
      dragging.current = false;
    },
  };
}

/**
 * The suggestions still open (a suggestion is settled once accepted, rejected, over a token
 * reviewed as O, or in a sentence marked reviewed), and per sentence its spans, suggestions and
 * reviewed tokens with the signature its row re-renders on.
 */
function useSentenceViews(o: {
  state: EditState;
  suggested: readonly Span[];
  dismissed: ReadonlySet<string>;
  reviewedAt: Record<number, number>;
  sentences: readonly [number, number][];
  words: readonly string[];
  colors: ReadonlyMap<string, string>;
  oSet: ReadonlySet<number>;
}) {
  const { state, suggested, dismissed, reviewedAt, sentences, words, colors, oSet } = o;
  const suggestions = useMemo(() => {
    const have = new Set(state.spans.map(key));
    const reviewed = new Set(Object.keys(reviewedAt).map(Number));
    const settled = (s: Span) => {
      if (reviewed.has(sentences.find(([a, b]) => s.start >= a && s.start < b)?.[0] ?? -1)) return true;
      for (let t = s.start; t < s.end; t++) if (oSet.has(t)) return true;
      return false;
    };
    return suggested.filter((s) => s.label !== '?' && !have.has(key(s)) && !dismissed.has(key(s)) && !settled(s));
  }, [suggested, state.spans, dismissed, oSet, sentences, reviewedAt]);
  // Spans, suggestions and reviewed tokens per sentence, recomputed only when they change (not on
  // every cursor move), in one pass each over sorted spans.
  const bySentence = useMemo(() => {
    const sentenceAt = new Int32Array(words.length);
    sentences.forEach(([a, b], i) => sentenceAt.fill(i, a, b));
    const out = sentences.map(() => ({ spans: [] as Span[], sugs: [] as Span[], o: [] as number[], base: '' }));
    for (const sp of state.spans) out[sentenceAt[sp.start]]?.spans.push(sp);
    for (const sp of suggestions) out[sentenceAt[sp.start]]?.sugs.push(sp);
    for (const t of state.oTokens) out[sentenceAt[t]]?.o.push(t);
    for (const r of out) r.base = `${r.spans.map(key).join(',')}|${r.sugs.map(key).join(',')}|${r.o.join(',')}|${colors.size}`;
    return out;
  }, [sentences, words.length, state, suggestions, colors]);

  return { suggestions, bySentence };
}

/** Every sentence of the document as a row that re-renders only when what it shows changes. */
function SentenceRows(p: {
  sentences: readonly [number, number][];
  bySentence: readonly { spans: Span[]; sugs: Span[]; base: string }[];
  current: Span | null;
  cursor: number;
  sel: [number, number] | null;
  words: string[];
  oSet: ReadonlySet<number>;
  colors: Map<string, string>;
}) {
  const { current, cursor, sel } = p;
  return (
    <>
      {p.sentences.map(([from, to], i) => {
        const { spans, sugs, base } = p.bySentence[i];
        const cur = current && current.start < to && current.end > from ? current : null;
        const c = cursor >= from && cursor < to ? cursor : -1;
        const sl = sel && sel[0] < to && sel[1] > from ? sel : null;
        return (
          <SentenceRow
            key={from}
            sig={`${base}|${cur ? key(cur) : ''}|${c}|${sl ?? ''}`}
            from={from}
            to={to}
            words={p.words}
            spans={spans}
            suggestions={sugs}
            current={cur}
            cursor={c}
            sel={sl}
            o={p.oSet}
            colors={p.colors}
          />
        );
      })}
    </>
  );
}
