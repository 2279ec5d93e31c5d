import { useLiveQuery } from 'dexie-react-hooks';
import { Fragment, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { PRF } from '../../core/metrics';
import { parseFollowing } from '../../core/weak/abbreviations';
import { AGGREGATE_METHODS, fitsHmm, LABEL_MODEL_ORDER, type LabelModel } from '../../core/weak/aggregate';
import { db } from '../../db/instance';
import { devGoldDocuments } from '../../db/repo';
import { WeakJob, type Progress } from '../../worker/weakClient';
import type { AbbreviationsOnDev as AbbreviationsOnDevScores, WeakSummary } from '../../worker/weakJob';
import type { SourceStats } from '../../core/weak/stats';
import { emSentence } from '../hmmFit';
import { readAbbreviationsOnDev } from '../abbreviationsOnDev';
import { pct, useProjectId, count } from '../hooks';

const METHOD_HELP: Record<LabelModel, string> = {
  priority: 'Longest span wins; ties go to the higher-priority source, then to type order.',
  vote: 'Token-level majority vote among the sources that fire.',
  hmm: 'A hidden Markov model over the sources, fitted without gold (EM): learns how accurate each source is.',
  dev: "Tries the HMM, priority and the vote, and keeps the one whose weak labels score best against the dev split's gold (the HMM on a tie). The dev gold chooses; nothing is trained on it. The best weak labels are not always the best to train on: on bc5cdr, priority's score best on dev, yet a model trained on them scores 1.5 F1 under one trained on the HMM's (their extra recall costs more precision than it gives).",
};
const LABEL_MODEL_NAMES: Record<LabelModel, string> = { priority: 'priority', vote: 'vote', hmm: 'hmm', dev: 'best on dev' };

function Scores({ s, na }: { s?: PRF; na?: string }) {
  if (na)
    return (
      <td colSpan={3} className="muted" title={na}>
        n/a (untyped)
      </td>
    );
  return (
    <>
      <td className="num">{pct(s?.precision)}</td>
      <td className="num">{pct(s?.recall)}</td>
      <td className="num">{pct(s?.f1)}</td>
    </>
  );
}

/** One row per entity type under a source or the aggregate: counts and P / R / F1. */
function PerTypeRows({ perType }: { perType: Record<string, PRF> }) {
  return (
    <>
      {Object.entries(perType).map(([t, v]) => (
        <tr key={t} className="sub">
          <td>↳ {t}</td>
          <td colSpan={5} className="muted">
            {v.tp} correct, {v.fp} spurious, {v.fn} missed
          </td>
          <Scores s={v} />
        </tr>
      ))}
    </>
  );
}

function StatsTable({ summary }: { summary: WeakSummary }) {
  const [open, setOpen] = useState<string | null>(null);
  const hasGold = summary.goldDocuments > 0;
  return (
    <>
      <p className="muted">
        {count(summary.documents, 'document')}, {count(summary.tokens, 'token')} labeled in {(summary.ms.total / 1000).toFixed(2)} s (
        {summary.reusedIndex ? 'corpus index reused' : 'corpus indexed'}: index {summary.ms.index.toFixed(0)} ms, gazetteers {summary.ms.match.toFixed(0)} ms,
        rules {summary.ms.rules.toFixed(0)} ms, aggregation {summary.ms.aggregate.toFixed(0)} ms, save {summary.ms.save.toFixed(0)} ms).
        {summary.chosenOnDev &&
          ` Label model chosen on dev: ${summary.method} (aggregate P / R / F1: ${LABEL_MODEL_ORDER.map((m) => {
            const x = summary.chosenOnDev?.[m];
            return `${m} ${pct(x?.precision)} / ${pct(x?.recall)} / ${pct(x?.f1)}`;
          }).join(', ')}).`}
        {summary.abbreviations &&
          ` The abbreviations the text defines (in their document${summary.abbreviations.following ? ` and the ${count(summary.abbreviations.following, 'document')} after it` : ''}) added ${count(summary.abbreviations.added, 'span')} where the aggregate said O.`}
        {summary.typedBySpelling
          ? ` ${summary.typedBySpelling.toLocaleString()} matches of untyped gazetteers were typed by their spelling before aggregation.`
          : ''}
        {summary.fitted &&
          ` The HMM was fitted on ${summary.fitted.on === 'train' ? `the train split's ${count(summary.fitted.documents, 'document')}` : `all ${count(summary.fitted.documents, 'document')}`}.${emSentence(summary.fitted.em)}`}
        {hasGold ? ` Scores against gold on the ${summary.goldDocuments} dev documents.` : ' No gold on the dev split: precision and recall need it.'}
      </p>
      <table className="grid" data-testid="stats-table">
        <thead>
          <tr>
            <th>Source</th>
            <th>Spans</th>
            <th>Coverage %</th>
            <th>Overlap %</th>
            <th>Conflict %</th>
            <th>Unknown-type spans</th>
            <th title="How far the label model (the HMM, fitted without gold) trusts the source: its belief in the source's type, averaged over the tokens the source labels. A model's dictionary features can read it (the Train page's option).">
              Trust (HMM)
            </th>
            <th>P</th>
            <th>R</th>
            <th>F1</th>
          </tr>
        </thead>
        <tbody>
          {summary.sources.map((s) => (
            <Fragment key={s.name}>
              <tr data-source={s.name}>
                <td>
                  {s.gold ? (
                    <button type="button" className="link" onClick={() => setOpen(open === s.name ? null : s.name)} aria-expanded={open === s.name}>
                      {s.name}
                    </button>
                  ) : (
                    s.name
                  )}
                </td>
                <td className="num">{s.spans.toLocaleString()}</td>
                <td className="num">{pct(s.coverage)}</td>
                <td className="num">{pct(s.overlap)}</td>
                <td className="num">{pct(s.conflict)}</td>
                <td className="num">{s.unknownSpans.toLocaleString()}</td>
                <Trust r={s.reliability} />
                {/* An untyped source's spans have no type, so typed span scores say nothing about it. */}
                <Scores
                  s={s.gold?.overall}
                  na={s.spans > 0 && s.unknownSpans === s.spans ? 'an untyped source: its spans have no type to score against gold' : undefined}
                />
              </tr>
              {open === s.name && <PerTypeRows perType={s.gold?.perType ?? {}} />}
            </Fragment>
          ))}
          {summary.aggregate && (
            <>
              <tr className="total" data-source="aggregate">
                <td>aggregate ({summary.method})</td>
                <td colSpan={6} />
                <Scores s={summary.aggregate.overall} />
              </tr>
              <PerTypeRows perType={summary.aggregate.perType} />
            </>
          )}
        </tbody>
      </table>
      {summary.abbreviationsOnDev && <AbbreviationsOnDev on={!!summary.abbreviations} dev={summary.abbreviationsOnDev} />}
      {summary.sources.length > 0 && (
        <p className="muted" data-testid="weak-review">
          Where the sources disagree, or the label model overrules one, the <Link href="/review">review queue</Link> ranks the training sentences for
          correction, before any model is trained.
        </p>
      )}
    </>
  );
}

/** A source's reliability as the HMM estimates it: one figure per type it labels ("Chemical 94.2 · Disease 86.4"), each with the tokens it rests on. */
function Trust({ r }: { r?: SourceStats['reliability'] }) {
  if (!r)
    return (
      <td className="muted" title="Only the HMM estimates how far it trusts each source">
        –
      </td>
    );
  const types = Object.entries(r);
  return (
    <td className="num" title={types.map(([t, x]) => `${t}: ${pct(x.value)} over ${count(x.tokens, 'token')}`).join('\n')}>
      {types.length === 1 ? pct(types[0][1].value) : types.map(([t, x]) => `${t} ${pct(x.value)}`).join(' · ')}
    </td>
  );
}

/** What dev says of the abbreviations the text defines (abbreviationsOnDev.ts). */
function AbbreviationsOnDev({ on, dev }: { on: boolean; dev: AbbreviationsOnDevScores }) {
  return (
    <p className="muted" data-testid="abbreviations-on-dev" data-gain={(dev.with.f1 - dev.without.f1).toFixed(4)}>
      {readAbbreviationsOnDev(on, dev)}
    </p>
  );
}

export function WeakPage() {
  const projectId = useProjectId();
  const [method, setMethod] = useState<LabelModel>('hmm');
  const devGold = useLiveQuery(() => devGoldDocuments(db, projectId), [projectId]);
  const cannotChoose = method === 'dev' && devGold === 0;
  const [typeUntyped, setTypeUntyped] = useState(true);
  const [fitOn, setFitOn] = useState<'all' | 'train'>('all');
  const [abbreviations, setAbbreviations] = useState(false);
  const [following, setFollowing] = useState('0');
  const entered = parseFollowing(following);
  const typedWindow = abbreviations ? entered : null;
  // With them off, dev still scores them, with the window the field holds (their document only where it holds no number).
  const tryWindow = 'error' in entered ? { following: 0 } : entered;
  const followingError = typedWindow && 'error' in typedWindow ? `Documents a definition also holds in: ${typedWindow.error}.` : null;
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const job = useRef<WeakJob | null>(null);
  const last = useLiveQuery(
    async () =>
      (
        await db.runs
          .where('projectId')
          .equals(projectId)
          .filter((r) => r.kind === 'weak' && r.status === 'done')
          .reverse()
          .sortBy('id')
      )[0],
    [projectId],
  );

  const run = async () => {
    setError(null);
    job.current = new WeakJob();
    setProgress({ done: 0, total: 1, stage: 'starting' });
    try {
      await job.current.run(
        projectId,
        {
          method,
          typeUntyped,
          ...(fitsHmm(method) ? { fitOn } : {}),
          ...(typedWindow && !('error' in typedWindow) ? { abbreviations: typedWindow } : { tryAbbreviations: tryWindow }),
        },
        setProgress,
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      job.current = null;
      setProgress(null);
    }
  };

  return (
    <div className="stack">
      <div className="row">
        <label>
          Aggregation{' '}
          <select aria-label="Aggregation" value={method} onChange={(e) => setMethod(e.target.value as LabelModel)}>
            {[...AGGREGATE_METHODS, 'dev' as const].map((m) => (
              <option key={m} value={m}>
                {LABEL_MODEL_NAMES[m]}
              </option>
            ))}
          </select>
        </label>
        {fitsHmm(method) && (
          <label title="EM reads no gold either way. All documents give it the most text; the train split's alone keep it off the text that selects and scores a model (what `studio experiment` does).">
            fitted on{' '}
            <select aria-label="Fit the HMM on" value={fitOn} onChange={(e) => setFitOn(e.target.value as 'all' | 'train')}>
              <option value="all">all documents</option>
              <option value="train">the train split</option>
            </select>
          </label>
        )}
        <label title="An untyped gazetteer says only 'an entity'. Its matches get the type their spelling suggests, learned from the typed gazetteers' phrases (suffixes such as -itis or -ine), before aggregation.">
          <input type="checkbox" checked={typeUntyped} onChange={(e) => setTypeUntyped(e.target.checked)} /> Type untyped matches by their spelling
        </label>
        <label title="After aggregation, a short form in parentheses right after a weak span ('chloroacetaldehyde ( CAA )', its letters read in order out of the span's words) takes the span's type, there and at its later occurrences in the document, where the weak labels say O. A dictionary cannot list the abbreviations a text makes up; the text says what they stand for.">
          <input type="checkbox" checked={abbreviations} onChange={(e) => setAbbreviations(e.target.checked)} /> Read the abbreviations the text defines
        </label>
        {abbreviations && (
          <label title="For documents of one sentence each (a file of lines, CoNLL without -DOCSTART-) in the text's order: how many following documents a definition also holds in. 0 for real documents.">
            also in the next{' '}
            <input
              aria-label="Documents a definition also holds in"
              aria-invalid={!!followingError}
              inputMode="numeric"
              size={4}
              value={following}
              onChange={(e) => setFollowing(e.target.value)}
            />{' '}
            documents
          </label>
        )}
        <button type="button" onClick={() => void run()} disabled={!!progress || cannotChoose || !!followingError}>
          Make weak labels
        </button>
        {progress && (
          <>
            <progress max={progress.total} value={progress.done} aria-label="Labeling progress" />
            <span className="muted">{progress.stage}</span>
            <button type="button" onClick={() => job.current?.cancel()}>
              Cancel
            </button>
          </>
        )}
      </div>
      <p className="muted">
        {METHOD_HELP[method]} Labels every document with the project's gazetteers and enabled rules, replacing the previous weak layers; gold and corrected
        layers are never touched.
      </p>
      {followingError && (
        <p role="alert" className="error">
          {followingError}
        </p>
      )}
      {cannotChoose && (
        <p role="alert" className="error">
          Choosing the label model on dev needs gold labels on the dev split, and no dev document has any: label some dev documents, or choose a label model.
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {last?.metrics ? <StatsTable summary={last.metrics as WeakSummary} /> : <p className="muted">No weak labels yet.</p>}
    </div>
  );
}
