/**
 * The running job on the training page, right under the form where the eye is after Train: what
 * it is doing (the stage), how far it is (epoch of how many, a bar, the time left at most), the
 * backend, the controls, and the live loss and dev-F1 curves.
 */
import { type ReactNode, useEffect, useMemo, useRef } from 'react';
import type { Live } from '../liveRun';
import { LineChart } from './LineChart';

export type { Live } from '../liveRun';
export { nextLive } from '../liveRun';

/** "about 3 min" / "about 40 s". */
const duration = (s: number) => (s >= 90 ? `about ${Math.round(s / 60)} min` : `about ${Math.max(1, Math.round(s))} s`);

export function LiveRun({ live, maxEpochs, controls, now = Date.now() }: { live: Live; maxEpochs: number; controls: ReactNode; now?: number }) {
  const ref = useRef<HTMLDivElement>(null);
  // Bring the run into view when it starts: the form above is long.
  const runId = live.runId;
  useEffect(() => {
    if (runId) ref.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [runId]);
  const stepX = useMemo(() => live.steps.map((s) => s.x), [live.steps]);
  const stepSeries = useMemo(() => [{ label: 'loss', values: live.steps.map((s) => s.loss), color: '#2456c7' }], [live.steps]);
  const epochX = useMemo(() => live.epochs.map((s) => s.epoch), [live.epochs]);
  const epochSeries = useMemo(() => [{ label: 'dev F1', values: live.epochs.map((s) => 100 * s.devF1), color: '#1e6b32' }], [live.epochs]);
  const last = live.last;
  const done = last ? last.epoch - 1 + last.step / last.steps : 0;
  const fraction = Math.min(1, done / maxEpochs);
  const start = live.stageStart;
  const left = last && start && done > start.done && now > start.at ? ((now - start.at) / 1000 / (done - start.done)) * (maxEpochs - done) : null;
  return (
    <div className="stack" data-testid="live-run" ref={ref}>
      <div className="row">
        <strong>Run {live.runId}</strong>
        <span className="muted" data-testid="backend-reason">
          {live.backend ?? 'starting…'}
        </span>
        {live.queue && (
          <span data-testid="queue-progress">
            experiment: run {live.queue.k} of {live.queue.n}
            {live.queue.label ? ` · ${live.queue.label}` : ''}
          </span>
        )}
        {controls}
      </div>
      {live.stageName && !live.stage && <p data-testid="train-stage">{live.stageName}</p>}
      <div className="row">
        <progress max={1} value={last ? fraction : undefined} aria-label="Progress of this stage" data-testid="train-bar" />
        <span data-testid="train-progress">
          {live.stage ??
            (last
              ? `epoch ${last.epoch} of at most ${maxEpochs} (early stopping may end it sooner), step ${last.step} of ${last.steps} · loss ${last.loss.toFixed(3)} · ${Math.round(last.tokensPerSecond).toLocaleString()} tokens/s${left !== null ? ` · ${duration(left)} left at most in this stage` : ''}`
              : 'preparing…')}
        </span>
      </div>
      <div className="charts">
        <LineChart title="Training loss" x={stepX} series={stepSeries} xLabel="step" testId="loss-chart" />
        <LineChart title="Dev F1" x={epochX} series={epochSeries} xLabel="epoch" testId="f1-chart" />
      </div>
    </div>
  );
}
