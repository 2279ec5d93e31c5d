/**
 * The newcomer's path through a project, on its Overview: documents, dictionaries and rules, weak
 * labels, a model, review, export. Each step says whether it is done (from the stored data) and
 * links to where it is done; the first open step is marked as the one to take next.
 */
import { count } from '../hooks';
import { useLiveQuery } from 'dexie-react-hooks';
import { Link } from 'wouter';
import { db } from '../../db/instance';

interface Step {
  id: string;
  title: string;
  href: string;
  done: boolean;
  detail: string;
}

export function NextSteps({ projectId, documents, hasDevGold }: { projectId: number; documents: number; hasDevGold: boolean }) {
  const counts = useLiveQuery(async () => {
    const [gazetteers, rules, layers, runs] = await Promise.all([
      db.gazetteers.where('projectId').equals(projectId).count(),
      db.rules.where('projectId').equals(projectId).count(),
      db.layers.where('projectId').equals(projectId).toArray(),
      // Read through the status index: the worker's final write changes the status, not the
      // project, and a query over the projectId index run before the run existed came back stale
      // from Dexie's cache after a run finished in the training worker.
      db.runs
        .where('status')
        .equals('done')
        .filter((r) => r.projectId === projectId)
        .toArray(),
    ]);
    return {
      gazetteers,
      rules,
      weak: layers.some((l) => l.kind === 'weak' && l.role === 'aggregate'),
      trained: runs.some((r) => r.kind === 'train' && r.status === 'done'),
      corrected: layers.some((l) => l.kind === 'gold' && l.name !== 'gold'),
    };
  }, [projectId]);
  if (!counts) return null;
  const steps: Step[] = [
    {
      id: 'import',
      title: 'Import documents',
      href: '/import',
      done: documents > 0,
      detail: documents ? count(documents, 'document') : 'raw text, CoNLL or JSONL; a few labeled dev and test documents let you score',
    },
    {
      id: 'sources',
      title: 'Add dictionaries and rules',
      href: '/gazetteers',
      done: counts.gazetteers + counts.rules > 0,
      detail: `${counts.gazetteers} gazetteers, ${counts.rules} rules`,
    },
    {
      id: 'weak',
      title: 'Make weak labels',
      href: '/weak',
      done: counts.weak,
      detail: counts.weak ? 'an aggregate weak layer exists' : 'the sources label every document; an aggregate combines them',
    },
    {
      id: 'train',
      title: 'Train a model',
      href: '/train',
      done: counts.trained,
      detail: hasDevGold
        ? counts.trained
          ? 'a run is done: compare runs to see its scores'
          : 'on the aggregate weak layer, with the defaults'
        : 'needs gold labels on the dev split to choose the model',
    },
    {
      id: 'review',
      title: 'Review where the model and the weak labels disagree',
      href: '/review',
      done: counts.corrected,
      detail: 'the review queue opens each sentence in the editor',
    },
    { id: 'export', title: 'Export a layer', href: '/', done: false, detail: 'below: any layer as CoNLL, sentence lines or JSONL' },
  ];
  const next = steps.find((s) => !s.done);
  return (
    <section className="next-steps" data-testid="next-steps" aria-label="Next steps">
      <h2>Next steps</h2>
      <ol>
        {steps.map((s) => (
          <li key={s.id} data-step={s.id} data-done={s.done} className={s === next ? 'next' : s.done ? 'done' : ''}>
            <span aria-hidden="true">{s.done ? '✓ ' : s === next ? '→ ' : '· '}</span>
            {s.href === '/' ? s.title : <Link href={s.href}>{s.title}</Link>}
            {s === next && <strong> (next)</strong>} <span className="muted">— {s.detail}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
