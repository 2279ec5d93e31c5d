import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useState } from 'react';
import type { Span } from '../../core/types';
import { tokenTexts } from '../../core/types';
import { compileRule, ruleSchema, type Rule } from '../../core/weak/rules';
import { db } from '../../db/instance';
import { addRule, deleteRule, setRuleEnabled } from '../../db/repo';
import type { DocumentRow } from '../../db/schema';
import { previewRule } from '../../worker/weakClient';
import { SpanText } from '../components/SpanText';
import { useProject, useProjectId, useTypeColors } from '../hooks';
import { issueSentence } from '../../core/issueSentence';

const SAMPLE = 60;

/** Builds a rule from the editor's fields, or says what is wrong with them. */
function draftRule(kind: Rule['kind'], name: string, label: string, pattern: string, ignoreCase: boolean): Rule {
  let raw: unknown;
  if (kind === 'tokens') {
    try {
      raw = { kind, name, label, pattern: JSON.parse(pattern) };
    } catch (e) {
      throw new Error(`the token pattern is not valid JSON (${(e as Error).message})`);
    }
  } else raw = { kind, name, label, pattern, ignoreCase };
  const r = ruleSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${issue.path.join('.') || 'rule'}: ${issueSentence(issue)}`);
  }
  compileRule(r.data); // a pattern that does not compile or may backtrack catastrophically is refused as typed
  return r.data;
}

function RuleEditor({ projectId, samples, types }: { projectId: number; samples: DocumentRow[]; types: string[] }) {
  const colors = useTypeColors(projectId);
  const [kind, setKind] = useState<Rule['kind']>('regex');
  const [name, setName] = useState('');
  const [label, setLabel] = useState(types[0] ?? '');
  const [pattern, setPattern] = useState('');
  const [ignoreCase, setIgnoreCase] = useState(true);
  const [preview, setPreview] = useState<{ spans: Span[][]; error: null } | { spans: null; error: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    if (!pattern.trim()) {
      setPreview(null);
      return;
    }
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const rule = draftRule(kind, name || 'draft', label || 'X', pattern, ignoreCase);
        const docs = samples.map((d) => ({ text: d.text, offsets: d.offsets, tokens: tokenTexts(d), sentenceStarts: d.sentenceStarts }));
        const spans = await previewRule(rule, docs);
        if (live) setPreview({ spans, error: null });
      } catch (e) {
        if (live) setPreview({ spans: null, error: (e as Error).message });
      }
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [kind, name, label, pattern, ignoreCase, samples]);

  // A label that is not a type of the project adds one: asked, not done silently.
  const [addType, setAddType] = useState(false);
  const newType = !!label.trim() && types.length > 0 && !types.includes(label.trim());
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    setSaved(null);
    try {
      const rule = draftRule(kind, name.trim(), label.trim(), pattern, ignoreCase);
      await addRule(db, projectId, rule);
      setSaved(`Saved rule "${rule.name}"${newType ? `, and "${rule.label}" is a new type of the project` : ''}.`);
      setAddType(false);
      setName('');
      setPattern('');
    } catch (err) {
      setPreview({ spans: null, error: (err as Error).message });
    }
  };

  const hits = preview?.spans ? preview.spans.reduce((a, s) => a + s.length, 0) : 0;
  return (
    <form onSubmit={save} className="stack" aria-label="Rule editor">
      <h2>New rule</h2>
      <div className="row">
        <select aria-label="Rule kind" value={kind} onChange={(e) => setKind(e.target.value as Rule['kind'])}>
          <option value="regex">regular expression over text</option>
          <option value="tokens">token pattern (spaCy style)</option>
        </select>
        <input aria-label="Rule name" placeholder="Name" value={name} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Rule label" placeholder="Type" list="rule-types" value={label} onChange={(e) => setLabel(e.target.value)} />
        <datalist id="rule-types">
          {types.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        {kind === 'regex' && (
          <label>
            <input type="checkbox" checked={ignoreCase} onChange={(e) => setIgnoreCase(e.target.checked)} /> ignore case
          </label>
        )}
      </div>
      <textarea
        aria-label="Rule pattern"
        rows={3}
        spellCheck={false}
        placeholder={kind === 'regex' ? '\\b[a-z]+ (failure|syndrome)\\b' : '[{"LOWER": {"REGEX": "itis$"}}]'}
        value={pattern}
        onChange={(e) => setPattern(e.target.value)}
      />
      {preview?.error && (
        <p role="alert" className="error" data-testid="rule-error">
          {preview.error}
        </p>
      )}
      {preview?.spans && (
        <div data-testid="rule-preview">
          <p className="muted">
            <span data-testid="rule-hits">{hits}</span> matches in the first {samples.length} documents
          </p>
          {preview.spans
            .map((spans, k) => ({ spans, doc: samples[k] }))
            .filter((x) => x.spans.length)
            .slice(0, 8)
            .map(({ spans, doc }) => (
              <SpanText key={doc.id} text={doc.text} offsets={doc.offsets} spans={spans} colors={colors} />
            ))}
        </div>
      )}
      {newType && (
        <label className="error" data-testid="rule-new-type">
          <input type="checkbox" checked={addType} onChange={(e) => setAddType(e.target.checked)} /> "{label.trim()}" is not one of this project&apos;s types (
          {types.join(', ')}): add it as a new type
        </label>
      )}
      <div>
        <button type="submit" disabled={!pattern.trim() || !name.trim() || !label.trim() || (newType && !addType)}>
          Save rule
        </button>
        {saved && (
          <span role="status" className="ok">
            {' '}
            {saved}
          </span>
        )}
      </div>
    </form>
  );
}

export function RulesPage() {
  const projectId = useProjectId();
  const project = useProject(projectId);
  const rules = useLiveQuery(() => db.rules.where('projectId').equals(projectId).sortBy('priority'), [projectId]);
  const samples = useLiveQuery(() => db.documents.where('projectId').equals(projectId).limit(SAMPLE).toArray(), [projectId]);
  return (
    <div className="stack">
      <table className="grid" data-testid="rule-table">
        <thead>
          <tr>
            <th>On</th>
            <th>Rule</th>
            <th>Type</th>
            <th>Pattern</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(rules ?? []).map((r) => (
            <tr key={r.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Enable ${r.rule.name}`}
                  checked={r.enabled}
                  onChange={(e) => void setRuleEnabled(db, r.id!, e.target.checked)}
                />
              </td>
              <td>{r.rule.name}</td>
              <td>{r.rule.label}</td>
              <td>
                <code>{r.rule.kind === 'regex' ? `/${r.rule.pattern}/${r.rule.ignoreCase ? 'i' : ''}` : JSON.stringify(r.rule.pattern)}</code>
              </td>
              <td>
                <button type="button" className="link danger" onClick={() => void deleteRule(db, r.id!)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {samples && project && <RuleEditor projectId={projectId} samples={samples} types={project.types.map((t) => t.name)} />}
    </div>
  );
}
