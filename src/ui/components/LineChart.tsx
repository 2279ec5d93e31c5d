import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ExportButtons } from './ChartExport';

interface Props {
  title: string;
  x: number[];
  series: { label: string; values: (number | null)[]; color: string }[];
  xLabel: string;
  height?: number;
  testId?: string;
}

/** A line chart (uPlot) with hover values, redrawn when its data change. */
export function LineChart({ title, x, series, xLabel, height = 220, testId }: Props) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join('|');
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt only when the set of series changes; data updates go through setData below
  useEffect(() => {
    if (!el.current) return;
    plot.current = new uPlot(
      {
        title,
        width: Math.max(300, el.current.clientWidth || 520),
        height,
        scales: { x: { time: false } },
        // Whole-number x steps (epochs, steps): no fractional ticks.
        axes: [{ label: xLabel, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }, {}],
        series: [{ label: xLabel }, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: x.length < 60 } }))],
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el.current,
    );
    return () => plot.current?.destroy();
  }, [shape, title]);
  useEffect(() => {
    plot.current?.setData([x, ...series.map((s) => s.values)] as uPlot.AlignedData);
  }, [x, series]);
  return (
    <div className="chart-box">
      <div ref={el} className="chart" data-testid={testId} />
      <ExportButtons target={el} name={title.replace(/[^\w]+/g, '-').toLowerCase()} />
    </div>
  );
}
