/**
 * A method's options as a form: one field per option of its method and pipeline (numbers,
 * switches, choices, nested groups), each with its help line, checked by the method's schema on
 * every change so the message names the field; the JSON stays behind "advanced". The options'
 * shape comes from their defaults (every option is filled in), their choices from the schemas, their
 * names in words and help from the method's module (its `.def.ts`), the key as the tooltip.
 */
import { useState } from 'react';
import { OPTION_CHOICES, parseOptionsText } from '../../methods/options';
import { optionDoc } from '../../methods/defs';

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** The identity of the method and pipeline: shown, not edited here. */
const FIXED = new Set(['method.name', 'pipeline.kind']);

function setAt(obj: Json, path: string[], value: Json): Json {
  if (!path.length) return value;
  const o = { ...(obj as Record<string, Json>) };
  o[path[0]] = setAt(o[path[0]], path.slice(1), value);
  return o;
}

/** The field the schema's message names ("method options: pipeline.lm.epochs: ..."). */
function fieldOf(message: string): string | null {
  return /method options: ((?:method|pipeline)(?:\.[\w]+)*)/.exec(message)?.[1] ?? null;
}

/** The message as a sentence naming the option in words: "removal threshold τ (method.tau) must be at most 1." */
function sayProblem(problem: string, key: string | null, owner: { method?: string; kind?: string }): string {
  const doc = key ? optionDoc(key, owner) : undefined;
  const prefix = `method options: ${key}: `;
  if (!key || !doc || !problem.startsWith(prefix)) return problem;
  return `${doc.label[0].toUpperCase()}${doc.label.slice(1)} (${key}) ${problem.slice(prefix.length)}.`;
}

export function OptionsForm({ text, onChange }: { text: string; onChange: (text: string) => void }) {
  const [advanced, setAdvanced] = useState(false);
  let value: Json = null;
  let parseError: string | null = null;
  try {
    value = JSON.parse(text) as Json;
  } catch (e) {
    parseError = `method options: invalid JSON (${(e as Error).message})`;
  }
  let problem: string | null = parseError;
  if (!problem) {
    try {
      parseOptionsText(text);
    } catch (e) {
      problem = (e as Error).message;
    }
  }
  const bad = problem ? fieldOf(problem) : null;
  const update = (path: string[], v: Json) => onChange(JSON.stringify(setAt(value, path, v), null, 2));
  const owner = {
    method: String((value as { method?: { name?: Json } } | null)?.method?.name ?? ''),
    kind: String((value as { pipeline?: { kind?: Json } } | null)?.pipeline?.kind ?? ''),
  };

  const field = (path: string[], v: Json): React.ReactNode => {
    const key = path.join('.');
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      return (
        <fieldset key={key} className="plain options-group">
          {path.length > 1 && <legend>{path.at(-1)}</legend>}
          {Object.entries(v).map(([k, x]) => field([...path, k], x))}
        </fieldset>
      );
    const doc = optionDoc(key, owner);
    const label = doc?.label ?? path.slice(1).join('.');
    const invalid = bad === key;
    let input: React.ReactNode;
    if (FIXED.has(key)) input = <code>{String(v)}</code>;
    else if (typeof v === 'boolean') input = <input type="checkbox" aria-label={label} checked={v} onChange={(e) => update(path, e.target.checked)} />;
    else if (OPTION_CHOICES[key])
      input = (
        <select aria-label={label} value={String(v)} onChange={(e) => update(path, e.target.value)}>
          {OPTION_CHOICES[key].map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      );
    else
      input = (
        <input
          aria-label={label}
          className="narrow"
          aria-invalid={invalid}
          // Numbers stay numbers in the JSON; anything else typed is kept as text for the schema to refuse, naming the field.
          value={String(v)}
          onChange={(e) => {
            const t = e.target.value;
            update(path, t.trim() !== '' && Number.isFinite(Number(t)) ? Number(t) : t);
          }}
        />
      );
    return (
      <div key={key} className={`option${invalid ? ' invalid' : ''}`} data-key={key}>
        <span className="option-name" title={key}>
          {label}
        </span>{' '}
        {input}
        {doc && <span className="muted option-help"> {doc.help}</span>}
      </div>
    );
  };

  return (
    <div className="stack" data-testid="options-form">
      {value && typeof value === 'object' && !Array.isArray(value) && !parseError && (
        <>
          {field(['method'], (value as Record<string, Json>).method ?? null)}
          {field(['pipeline'], (value as Record<string, Json>).pipeline ?? null)}
        </>
      )}
      {problem && (
        <p role="alert" className="error" data-testid="options-problem">
          {sayProblem(problem, bad, owner)}
        </p>
      )}
      <label>
        <input type="checkbox" checked={advanced || !!parseError} onChange={(e) => setAdvanced(e.target.checked)} /> advanced: edit as JSON
      </label>
      {(advanced || parseError) && (
        <textarea
          aria-label="Options (JSON)"
          rows={Math.min(24, text.split('\n').length + 1)}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          spellCheck={false}
        />
      )}
    </div>
  );
}
