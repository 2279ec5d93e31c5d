/**
 * The public gazetteer library on the Gazetteers page: each list (cities, countries, parts of
 * people's names, brands and companies; built from npm packages, served from the app's own origin) added with one click,
 * mapped onto one of the project's types, as a weak source or for its dictionary features only.
 */
import { useEffect, useState } from 'react';
import { type PublicGazetteerId, type PublicGazetteerInfo, publicGazetteerPath, publicPhrases, suggestedType } from '../../core/publicGazetteers';
import { db } from '../../db/instance';
import { addPublicGazetteer } from '../../db/repo';

const base = import.meta.env.BASE_URL;

export function PublicGazetteers({ projectId, types, added }: { projectId: number; types: string[]; added: ReadonlySet<string> }) {
  const [lists, setLists] = useState<PublicGazetteerInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetch(`${base}gazetteers/index.json`)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`the library's index: HTTP ${r.status}`))))
      .then((d: { lists: PublicGazetteerInfo[] }) => setLists(d.lists))
      .catch((e: Error) => setError(e.message));
  }, []);
  return (
    <section className="stack" data-testid="public-gazetteers">
      <h2>Public gazetteers</h2>
      <p className="muted">
        Lists every project can start from, mapped onto one of your types. Each one&apos;s matches are dictionary features of their own, so a model learns what
        they are worth beside your own dictionaries; as a weak source they label text too.
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {lists?.map((l) => (
        <PublicList key={l.id} projectId={projectId} info={l} types={types} added={added.has(l.id)} />
      ))}
    </section>
  );
}

function PublicList({ projectId, info, types, added }: { projectId: number; info: PublicGazetteerInfo; types: string[]; added: boolean }) {
  // The type guessed from the project's type names until the user picks one (the types load after the page).
  const [chosen, setType] = useState<string | null>(null);
  const type = chosen ?? suggestedType(info.role, types) ?? '';
  // Name parts alone are parts of mentions: features only unless the user asks for more.
  const [weak, setWeak] = useState(info.role !== 'person');
  const [state, setState] = useState<{ busy?: boolean; message?: string; ok?: boolean }>({});
  const add = async () => {
    setState({ busy: true });
    try {
      const res = await fetch(`${base}${publicGazetteerPath(info.id as PublicGazetteerId)}`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const phrases = publicPhrases(await res.text()).map((words) => words.join(' '));
      await addPublicGazetteer(db, projectId, { list: info.id, title: info.title, source: info.source, type, featuresOnly: !weak, phrases });
      setState({ ok: true, message: `Added ${phrases.length.toLocaleString()} entries as ${type}${weak ? '' : ' (dictionary features only)'}.` });
    } catch (e) {
      setState({ ok: false, message: `Not added: ${(e as Error).message}` });
    }
  };
  return (
    <div className="row" data-list={info.id}>
      <span>
        <strong>{info.title}</strong> · {info.entries.toLocaleString()} entries · <span className="muted">{info.source}</span>
        <br />
        <span className="muted">{info.note}</span>
      </span>
      <label>
        as{' '}
        <select aria-label={`Type of ${info.title}`} value={type} onChange={(e) => setType(e.target.value)} disabled={added}>
          <option value="">choose a type</option>
          {types.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label title="A weak source labels text with the list's type; off, the list only gives the model dictionary features">
        <input type="checkbox" aria-label={`${info.title} as a weak source`} checked={weak} onChange={(e) => setWeak(e.target.checked)} disabled={added} /> weak
        source too
      </label>
      <button type="button" aria-label={`${added ? 'Added' : 'Add'}: ${info.title}`} onClick={() => void add()} disabled={added || !type || state.busy}>
        {added ? 'Added' : 'Add'}
      </button>
      {state.message && (
        <span role={state.ok ? 'status' : 'alert'} className={state.ok ? 'ok' : 'error'}>
          {state.message}
        </span>
      )}
    </div>
  );
}
