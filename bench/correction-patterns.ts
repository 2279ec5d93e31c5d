/**
 * A probe (trains nothing): can a budget of corrections teach patterns, not only strings? From the
 * corrected sentences it induces rules a la Snuba (Varma & Ré 2018): a word's ending that the
 * corrected sentences' gold mentions of one type end with and nothing else there does, and a
 * neighbouring word that precedes or follows only mentions of one type there. Each rule must hold
 * on the corrected sentences (support, precision) before it may travel. It reports the weak labels'
 * span F1 on the rest of the pool (which has gold) before and after the corrections travel: as
 * exact phrases (what the studio's "apply to all" and "add to gazetteer" do), and with the patterns.
 *
 *   npx tsx bench/correction-patterns.ts [--budget 0.02]
 */
import { parseArgs } from 'node:util';
import { simulatedPool } from './simulatedPool';
import { applyTravel, budgetCount, type PoolSentence, randomOrder, rankBy, spansOfIds, tokenErrors, travelRules } from '../src/core/guidedCorrection';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '0.02' }, support: { type: 'string', default: '2' } } });
const fraction = Number(values.budget);
const SUPPORT = Number(values.support);
const CONFIGS = ['bench/configs/guided-correction-defaults-6-seeds.json', 'bench/configs/guided-correction-defaults-bc5cdr.json'];
const SEEDS = [1, 2, 3];

function f1(rows: readonly { pred: readonly number[]; gold: readonly number[]; words: readonly string[] }[], names: readonly string[]) {
  let tp = 0;
  let np = 0;
  let ng = 0;
  for (const r of rows) {
    const g = new Set(spansOfIds(r.gold, names).map((s) => `${s.start}:${s.end}:${s.type}`));
    const p = spansOfIds(r.pred, names).map((s) => `${s.start}:${s.end}:${s.type}`);
    np += p.length;
    ng += g.size;
    tp += p.filter((k) => g.has(k)).length;
  }
  return np && ng ? (200 * tp) / (np + ng) : 0;
}

interface Pattern {
  kind: 'suffix' | 'before' | 'after';
  key: string;
  type: string;
}

/** Candidate patterns from the gold mentions the weak labels got wrong in the corrected sentences, kept where they hold there. */
function induce(pool: readonly PoolSentence[], corrected: readonly number[], names: readonly string[]): Pattern[] {
  const cands = new Map<string, Pattern>();
  for (const i of corrected) {
    const s = pool[i];
    const weak = new Set(spansOfIds(s.weak, names).map((w) => `${w.start}:${w.end}:${w.type}`));
    for (const g of spansOfIds(s.gold, names)) {
      if (weak.has(`${g.start}:${g.end}:${g.type}`)) continue;
      const last = s.words[g.end - 1].toLowerCase();
      for (const L of [4, 5, 6])
        if (last.length >= L + 3 && /^[a-z]+$/.test(last.slice(-L)))
          cands.set(`suffix ${last.slice(-L)} ${g.type}`, { kind: 'suffix', key: last.slice(-L), type: g.type });
      if (g.start > 0)
        cands.set(`before ${s.words[g.start - 1].toLowerCase()} ${g.type}`, { kind: 'before', key: s.words[g.start - 1].toLowerCase(), type: g.type });
      if (g.end < s.words.length)
        cands.set(`after ${s.words[g.end].toLowerCase()} ${g.type}`, { kind: 'after', key: s.words[g.end].toLowerCase(), type: g.type });
    }
  }
  // A pattern holds where every token it fires on in the corrected sentences ends (suffix), follows or precedes a gold mention of its type.
  const kept: Pattern[] = [];
  for (const p of cands.values()) {
    let fires = 0;
    let right = 0;
    for (const i of corrected) {
      const s = pool[i];
      const gold = spansOfIds(s.gold, names);
      s.words.forEach((w, t) => {
        const lw = w.toLowerCase();
        if (p.kind === 'suffix') {
          if (lw.length < p.key.length + 3 || !lw.endsWith(p.key)) return;
          fires++;
          if (gold.some((g) => g.end - 1 === t && g.type === p.type)) right++;
        } else if (lw === p.key) {
          fires++;
          if (gold.some((g) => g.type === p.type && (p.kind === 'before' ? g.start === t + 1 : g.end === t))) right++;
        }
      });
    }
    if (right >= SUPPORT && right === fires) kept.push(p);
  }
  return kept;
}

/** The patterns applied where no weak span is: a one-token span of the pattern's type. */
function applyPatterns(words: readonly string[], tags: number[], patterns: readonly Pattern[], names: readonly string[]): number[] {
  const id = new Map(names.map((n, k) => [n, k]));
  const out = [...tags];
  const free = (t: number) => t >= 0 && t < words.length && out[t] === 0;
  words.forEach((w, t) => {
    const lw = w.toLowerCase();
    for (const p of patterns) {
      let at = -1;
      if (p.kind === 'suffix' && lw.length >= p.key.length + 3 && lw.endsWith(p.key)) at = t;
      else if (p.kind === 'before' && lw === p.key) at = t + 1;
      else if (p.kind === 'after' && lw === p.key) at = t - 1;
      if (at >= 0 && free(at) && /[a-z]/i.test(words[at])) out[at] = id.get(`B-${p.type}`)!;
    }
  });
  return out;
}

for (const file of CONFIGS) {
  const { setting, tags, pool } = simulatedPool(file);
  const k = budgetCount(pool.length, fraction);
  for (const [arm, order] of [
    ['oracle', (seed: number) => rankBy(pool.map(tokenErrors), seed)],
    ['random', (seed: number) => randomOrder(pool.length, seed)],
  ] as const) {
    const rows = SEEDS.map((seed) => {
      const corrected = order(seed).slice(0, k);
      const skip = new Set(corrected);
      const rest = pool.map((_, i) => i).filter((i) => !skip.has(i));
      const travelled = applyTravel(pool, travelRules(pool, corrected, tags), skip, tags);
      const patterns = induce(pool, corrected, tags);
      const base = rest.map((i) => ({ words: pool[i].words, gold: pool[i].gold, pred: pool[i].weak }));
      const exact = rest.map((i) => ({ ...base[0], words: pool[i].words, gold: pool[i].gold, pred: travelled.get(i) ?? pool[i].weak }));
      const withPatterns = exact.map((r) => ({ ...r, pred: applyPatterns(r.words, [...r.pred], patterns, tags) }));
      return {
        seed,
        before: f1(base, tags),
        exact: f1(exact, tags),
        patterns: f1(withPatterns, tags),
        rules: patterns.map((p) => `${p.kind}:${p.key}→${p.type}`),
      };
    });
    const m = (f: (r: (typeof rows)[0]) => number) => (rows.reduce((a, r) => a + f(r), 0) / rows.length).toFixed(2);
    process.stdout.write(
      `${setting.name}, ${arm}, ${k} sentences: the rest of the pool's weak labels ${m((r) => r.before)} → exact phrases ${m((r) => r.exact)} → with patterns ${m((r) => r.patterns)}\n`,
    );
    for (const r of rows)
      process.stdout.write(
        `  seed ${r.seed}: ${r.before.toFixed(2)} → ${r.exact.toFixed(2)} → ${r.patterns.toFixed(2)}; ${r.rules.length} patterns: ${r.rules.slice(0, 12).join(', ')}\n`,
      );
  }
}
