/**
 * The simulated annotator's curves as an SVG: per setting, the gain in test F1 over the base model
 * against the share of the pool corrected, for random sentences, the oracle, the queue's top
 * sentences, and the queue's and random sentences' with travelling corrections, in the pool and
 * into the dictionary, where the summary has them (mean ± std over the seeds recorded). Several
 * `--in` summaries draw their settings side by side. `--arm NAME=LABEL` adds any arm of the
 * summaries' `arms` (a ranking trained beside the first, `uncertainty-max`, `reach-studio`, ...).
 *
 *   npx tsx bench/plot-guided.ts [--in bench/results/guided-correction.json ...] [--arm reach-studio="the studio's reach" ...] [--guided-label TEXT] [--out docs/guided-correction-studio.svg]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Arm {
  gain: number;
  std: number;
}
interface Budget {
  fraction: number;
  random: Arm;
  oracle: Arm;
  guided: Arm & { signal: string };
  travel?: Arm;
  randomTravel?: Arm;
  gazetteer?: Arm;
  randomGazetteer?: Arm;
  arms?: Record<string, Arm>;
}
interface Setting {
  name: string;
  seeds: number[];
  control: Arm | null;
  budgets: Budget[];
}

const { values } = parseArgs({
  options: {
    in: { type: 'string', multiple: true, default: ['bench/results/guided-correction.json'] },
    out: { type: 'string', default: 'docs/guided-correction-studio.svg' },
    arm: { type: 'string', multiple: true, default: [] },
    'guided-label': { type: 'string' },
  },
});
const settings = values.in!.flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { settings: Setting[] }).settings);

const W = 420;
const H = 300;
const M = { l: 48, r: 12, t: 36, b: 44 };
type Key = 'random' | 'oracle' | 'guided' | 'travel' | 'randomTravel' | 'gazetteer' | 'randomGazetteer';
/** A summary's line (`key`), or an arm of its `arms` (`arm`). */
type Line = { key?: Key; arm?: string; label: string; color: string; dash?: string };
const EXTRA_COLORS = ['#17becf', '#bcbd22', '#e377c2', '#393b79'];
const ALL_LINES: Line[] = [
  { key: 'random', label: 'random sentences', color: '#7f7f7f' },
  { key: 'guided', label: values['guided-label'] ?? `the queue's top (${settings[0]?.budgets[0]?.guided.signal ?? 'doubt'})`, color: '#1f77b4' },
  { key: 'travel', label: 'the queue\u2019s, corrections travelling', color: '#2ca02c' },
  { key: 'randomTravel', label: 'random, corrections travelling', color: '#9467bd', dash: '2 2' },
  { key: 'gazetteer', label: 'the queue\u2019s, into the dictionary too', color: '#ff7f0e' },
  { key: 'randomGazetteer', label: 'random, into the dictionary too', color: '#8c564b', dash: '2 2' },
  { key: 'oracle', label: 'oracle (most wrong)', color: '#d62728', dash: '4 3' },
];
for (const [k, a] of values.arm!.entries()) {
  const [arm, ...label] = a.split('=');
  ALL_LINES.splice(ALL_LINES.length - 1, 0, { arm, label: label.join('=') || arm, color: EXTRA_COLORS[k % EXTRA_COLORS.length] });
}
const at = (b: Budget, l: Line): Arm | undefined => (l.arm ? b.arms?.[l.arm] : b[l.key!]);
// Only the lines some summary has.
const LINES = ALL_LINES.filter((l) => settings.some((s) => s.budgets.some((b) => at(b, l))));

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(s: Setting, x0: number): string {
  const xs = s.budgets.map((b) => 100 * b.fraction);
  const all = s.budgets.flatMap((b) =>
    LINES.flatMap((l) => {
      const v = at(b, l);
      return v ? [v.gain - v.std, v.gain + v.std] : [];
    }),
  );
  const lo = Math.min(0, ...all, s.control?.gain ?? 0);
  const hi = Math.max(0, ...all);
  const pad = (hi - lo) * 0.08 || 1;
  const [y0, y1] = [lo - pad, hi + pad];
  // The budgets on a log axis (1, 2, 5, 10 %), evenly apart.
  const lx = (x: number) => Math.log(x);
  const [a, b] = [lx(Math.min(...xs)), lx(Math.max(...xs))];
  const px = (x: number) => x0 + M.l + ((lx(x) - a) / (b - a || 1)) * (W - M.l - M.r);
  const py = (y: number) => M.t + (1 - (y - y0) / (y1 - y0)) * (H - M.t - M.b);
  const out: string[] = [];
  out.push(
    `<text x="${x0 + W / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">${esc(s.name)} (${s.seeds.length} seed${s.seeds.length === 1 ? '' : 's'})</text>`,
  );
  out.push(`<line x1="${px(xs[0])}" x2="${px(xs[xs.length - 1])}" y1="${py(0)}" y2="${py(0)}" stroke="#000" stroke-width="0.6"/>`);
  if (s.control)
    out.push(
      `<line x1="${px(xs[0])}" x2="${px(xs[xs.length - 1])}" y1="${py(s.control.gain)}" y2="${py(s.control.gain)}" stroke="#999" stroke-dasharray="2 3"/><text x="${px(xs[xs.length - 1])}" y="${py(s.control.gain) - 4}" text-anchor="end" font-size="10" fill="#666">fine-tuned, no corrections</text>`,
    );
  for (let t = Math.ceil(y0); t <= Math.floor(y1); t++)
    out.push(`<text x="${x0 + M.l - 6}" y="${py(t) + 3}" text-anchor="end" font-size="10">${t > 0 ? '+' : ''}${t}</text>`);
  for (const x of xs) out.push(`<text x="${px(x)}" y="${H - M.b + 14}" text-anchor="middle" font-size="10">${x} %</text>`);
  out.push(`<text x="${x0 + W / 2}" y="${H - 8}" text-anchor="middle" font-size="11">share of the pool corrected</text>`);
  out.push(
    `<text x="${x0 + 12}" y="${(M.t + H - M.b) / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 ${x0 + 12} ${(M.t + H - M.b) / 2})">test F1 gain over the base model</text>`,
  );
  for (const l of LINES) {
    const pts = s.budgets.filter((bb) => at(bb, l)).map((bb) => [100 * bb.fraction, at(bb, l)!.gain, at(bb, l)!.std] as const);
    if (!pts.length) continue;
    out.push(
      `<polyline fill="none" stroke="${l.color}" stroke-width="2"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''} points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const [x, y, sd] of pts)
      out.push(
        `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${l.color}"/>${sd > 0 ? `<line x1="${px(x).toFixed(1)}" x2="${px(x).toFixed(1)}" y1="${py(y - sd).toFixed(1)}" y2="${py(y + sd).toFixed(1)}" stroke="${l.color}"/>` : ''}`,
      );
  }
  return out.join('\n');
}

// The legend in rows of three under the panels.
const PER_ROW = 3;
const legend = LINES.map((l, k) => {
  const x = M.l + (k % PER_ROW) * 260;
  const y = H + 16 + Math.floor(k / PER_ROW) * 16;
  return `<line x1="${x}" x2="${x + 22}" y1="${y}" y2="${y}" stroke="${l.color}" stroke-width="2"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/><text x="${x + 28}" y="${y + 4}" font-size="11">${esc(l.label)}</text>`;
}).join('\n');
const width = Math.max(W * settings.length, M.l + PER_ROW * 260);
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H + 16 + Math.ceil(LINES.length / PER_ROW) * 16 + 8}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
${settings.map((s, k) => panel(s, k * W)).join('\n')}
${legend}
</svg>
`;
writeFileSync(values.out!, svg);
process.stdout.write(`${JSON.stringify({ out: values.out, settings: settings.map((s) => s.name) })}\n`);
