import { useVirtualizer } from '@tanstack/react-virtual';
import { useLiveQuery } from 'dexie-react-hooks';
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { GAZETTEER_FORMATS, parseGazetteerFile, type GazetteerFormat } from '../../core/formats/importSpec';
import { CASE_UP_TO_MAX, caseUpToProblem, keepsItsCase } from '../../core/weak/gazetteerMatcher';
import { CASE_MODES, type CaseMode } from '../../core/weak/normalize';
import { db } from '../../db/instance';
import type { GazetteerRow } from '../../db/schema';
import { addGazetteerEntry, deleteGazetteer, importGazetteer, removeGazetteerEntry, retypeGazetteerEntry, updateGazetteer } from '../../db/repo';
import { readText, useProject, useProjectId } from '../hooks';
import { PublicGazetteers } from '../components/PublicGazetteers';

const ROW = 32;

/** Entries this short that match without case are flagged on the Gazetteers page (symbols, abbreviations). */
const SHORT = 2;

/** The phrase in the other case: what a matching without case also reads as it. */
const otherCase = (p: string) => (p.toLowerCase() === p ? p.toUpperCase() : p.toLowerCase());

/**
 * "Short entries keep their case": a whole number of characters, or blank for off; checked as
 * typed, stored only when valid (the weak labels read it the next time they are made).
 */
function CaseUpToField({ g }: { g: GazetteerRow }) {
  const [text, setText] = useState(g.caseUpTo === undefined ? '' : String(g.caseUpTo));
  const [problem, setProblem] = useState<string | null>(null);
  // A change made elsewhere (the entries' "keep their case" link) shows here; a valid value typed here is the stored one already.
  useEffect(() => {
    setText((t) => ((t.trim() === '' ? undefined : Number(t)) === g.caseUpTo ? t : g.caseUpTo === undefined ? '' : String(g.caseUpTo)));
    setProblem(null);
  }, [g.caseUpTo]);
  const change = (value: string) => {
    setText(value);
    const n = value.trim() === '' ? undefined : Number(value);
    const p = caseUpToProblem(n);
    setProblem(p);
    if (!p) void updateGazetteer(db, g.id!, { caseUpTo: n });
  };
  return (
    <>
      <input
        aria-label={`Short entries of ${g.name} keep their case up to`}
        type="number"
        className="narrow"
        min={1}
        max={CASE_UP_TO_MAX}
        placeholder="off"
        disabled={g.mode === 'sensitive'}
        title={
          g.mode === 'sensitive'
            ? 'This gazetteer matches case already.'
            : 'Entries of at most this many characters match only in their own case ("Mg" is not "mg"); blank: every entry matches as the gazetteer does.'
        }
        value={text}
        aria-invalid={problem ? true : undefined}
        onChange={(e) => change(e.target.value)}
      />
      {problem && (
        <div role="alert" className="error field-error" data-testid="case-up-to-error">
          {problem}
        </div>
      )}
    </>
  );
}

function Entries({ gazetteer, types }: { gazetteer: GazetteerRow; types: string[] }) {
  const gazetteerId = gazetteer.id!;
  const entries = useLiveQuery(() => db.gazetteerEntries.where('gazetteerId').equals(gazetteerId).toArray(), [gazetteerId]);
  // Symbols and abbreviations that a matching without case reads as common words ("Mg" as mg, "P" as p).
  const short = useMemo(
    () => (gazetteer.mode === 'sensitive' || gazetteer.caseUpTo ? [] : (entries ?? []).filter((e) => keepsItsCase(e.phrase, SHORT))),
    [entries, gazetteer.mode, gazetteer.caseUpTo],
  );
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query.trim().toLowerCase());
  const shown = useMemo(() => (entries ?? []).filter((e) => !deferred || e.phrase.toLowerCase().includes(deferred)), [entries, deferred]);
  const [phrase, setPhrase] = useState('');
  const [type, setType] = useState<string>(types[0] ?? '');
  const [error, setError] = useState<string | null>(null);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 10 });

  const add = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await addGazetteerEntry(db, gazetteerId, phrase, type || null);
      setPhrase('');
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div className="stack">
      {short.length > 0 && (
        <p className="muted" data-testid="short-entries">
          {short.length.toLocaleString()} {short.length === 1 ? 'entry has' : 'entries have'} at most {SHORT} characters (
          {short
            .slice(0, 6)
            .map((e) => e.phrase)
            .join(', ')}
          {short.length > 6 ? ', …' : ''}) and this gazetteer matches {gazetteer.mode === 'normalized' ? 'normalized' : 'without case'}: "
          {otherCase(short[0].phrase)}" in the text matches "{short[0].phrase}", as "mg" would match the symbol "Mg".{' '}
          <button type="button" className="link" onClick={() => void updateGazetteer(db, gazetteerId, { caseUpTo: SHORT })}>
            Let entries of up to {SHORT} characters keep their case
          </button>
        </p>
      )}
      <div className="row">
        <input aria-label="Search entries" placeholder="Search phrases" value={query} onChange={(e) => setQuery(e.target.value)} />
        <span className="muted" data-testid="entry-count">
          {shown.length.toLocaleString()} of {(entries?.length ?? 0).toLocaleString()} entries
        </span>
      </div>
      <div ref={parent} className="virtual-list short" data-testid="entry-list">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const entry = shown[v.index];
            return (
              <div key={entry.id} className="virtual-row entry-row" style={{ transform: `translateY(${v.start}px)`, height: ROW }}>
                <span className="phrase">{entry.phrase}</span>
                <select
                  aria-label={`Type of ${entry.phrase}`}
                  value={entry.type ?? ''}
                  onChange={(e) => void retypeGazetteerEntry(db, entry.id!, e.target.value || null)}
                >
                  <option value="">(untyped)</option>
                  {types.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
                <button type="button" className="link danger" onClick={() => void removeGazetteerEntry(db, entry.id!)} aria-label={`Remove ${entry.phrase}`}>
                  remove
                </button>
              </div>
            );
          })}
        </div>
      </div>
      <form onSubmit={add} className="row">
        <input aria-label="New phrase" placeholder="New phrase (tokens separated by spaces)" value={phrase} onChange={(e) => setPhrase(e.target.value)} />
        <select aria-label="New phrase type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="">(untyped)</option>
          {types.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <button type="submit">Add</button>
      </form>
      {error && (
        <p role="alert" className="error" data-testid="entry-error">
          {error}
        </p>
      )}
    </div>
  );
}

export function GazetteersPage() {
  const projectId = useProjectId();
  const project = useProject(projectId);
  const gazetteers = useLiveQuery(async () => {
    const rows = await db.gazetteers.where('projectId').equals(projectId).sortBy('priority');
    return Promise.all(rows.map(async (g) => ({ ...g, entries: await db.gazetteerEntries.where('gazetteerId').equals(g.id!).count() })));
  }, [projectId]);
  const [selected, setSelected] = useState<number | null>(null);
  const [format, setFormat] = useState<GazetteerFormat>('tsv');
  const [mode, setMode] = useState<CaseMode>('insensitive');
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const types = project?.types.map((t) => t.name) ?? [];

  const doImport = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setResult(null);
    try {
      const f = await readText(file);
      const parsed = parseGazetteerFile(format, f);
      const id = await importGazetteer(db, projectId, f.file, mode, parsed);
      setSelected(id);
      setResult({
        ok: true,
        message: `Imported ${parsed.entries.length.toLocaleString()} entries${parsed.patterns.length ? ` and ${parsed.patterns.length} token-pattern rules` : ''} from ${f.file}.`,
      });
    } catch (err) {
      setResult({ ok: false, message: `Nothing was imported. ${(err as Error).message}` });
    }
  };

  return (
    <div className="stack">
      <table className="grid" data-testid="gazetteer-table">
        <thead>
          <tr>
            <th>Gazetteer</th>
            <th>Entries</th>
            <th>Matching</th>
            <th title="Entries of at most this many characters match only in their own case, in the weak labels">Short entries keep case</th>
            <th>Priority</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(gazetteers ?? []).map((g) => (
            <tr key={g.id} className={selected === g.id ? 'selected' : ''}>
              <td>
                <button type="button" className="link" onClick={() => setSelected(g.id!)}>
                  {g.name}
                </button>
                {g.stop && (
                  <span className="muted" title="Phrases that are no entity: weak labeling drops every source's match of them (the editor's s key adds to it).">
                    {' '}
                    (stop list)
                  </span>
                )}
              </td>
              <td className="num">{g.entries.toLocaleString()}</td>
              <td>
                <select
                  aria-label={`Matching of ${g.name}`}
                  value={g.mode}
                  onChange={(e) => void updateGazetteer(db, g.id!, { mode: e.target.value as CaseMode })}
                >
                  {CASE_MODES.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </td>
              <td>
                <CaseUpToField g={g} />
              </td>
              <td>
                <input
                  aria-label={`Priority of ${g.name}`}
                  type="number"
                  className="narrow"
                  value={g.priority}
                  onChange={(e) => void updateGazetteer(db, g.id!, { priority: Number(e.target.value) })}
                />
              </td>
              <td>
                <button type="button" className="link danger" onClick={() => confirm(`Delete gazetteer ${g.name}?`) && void deleteGazetteer(db, g.id!)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={doImport} className="row" aria-label="Import gazetteer">
        <select aria-label="Gazetteer format" value={format} onChange={(e) => setFormat(e.target.value as GazetteerFormat)}>
          {GAZETTEER_FORMATS.map((f) => (
            <option key={f} value={f}>
              {f === 'tsv' ? 'TSV (type<TAB>phrase)' : f === 'untyped' ? 'untyped list (one phrase a line)' : 'spaCy / Prodigy patterns (JSONL)'}
            </option>
          ))}
        </select>
        <select aria-label="Gazetteer matching" value={mode} onChange={(e) => setMode(e.target.value as CaseMode)}>
          {CASE_MODES.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <input aria-label="Gazetteer file" type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <button type="submit" disabled={!file}>
          Import gazetteer
        </button>
      </form>
      {result && (
        <p role={result.ok ? 'status' : 'alert'} className={result.ok ? 'ok' : 'error'} data-testid="gazetteer-result">
          {result.message}
        </p>
      )}
      {selected !== null && gazetteers?.some((g) => g.id === selected) && (
        <Entries key={selected} gazetteer={gazetteers.find((g) => g.id === selected)!} types={types} />
      )}
      <PublicGazetteers projectId={projectId} types={types} added={new Set((gazetteers ?? []).flatMap((g) => (g.public ? [g.public.list] : [])))} />
    </div>
  );
}
