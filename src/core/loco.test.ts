import { describe, expect, it } from 'vitest';
import { DEV_SELECT, leaveOneCorpusOut, locoChoice, type LocoInput, type LocoRecord } from './loco';

const rec = (setting: string, label: string, seed: number, dev: number, test: number): LocoRecord => ({
  setting,
  label,
  seed,
  dev: { f1: dev },
  test: { f1: test },
});

/** Three corpora (a has two settings), a reference and two candidates. */
function input(records: LocoRecord[]): LocoInput {
  return {
    settings: [
      { name: 'a1', corpus: 'a' },
      { name: 'a2', corpus: 'a' },
      { name: 'b', corpus: 'b' },
      { name: 'c', corpus: 'c' },
    ],
    candidates: ['x', 'y'],
    reference: 'wsl',
    weakRows: ['weak'],
    records,
  };
}

describe('leave-one-corpus-out', () => {
  // x gains on a's dev only, y on b and c: left out, a gets y (chosen by b and c), b and c get what the others say.
  const records = ['a1', 'a2', 'b', 'c'].flatMap((s) =>
    [1, 2].flatMap((seed) => [
      rec(s, 'wsl', seed, 50, 50),
      rec(s, 'x', seed, s.startsWith('a') ? 60 : 49, s.startsWith('a') ? 61 : 48),
      rec(s, 'y', seed, s.startsWith('a') ? 51 : 53, s.startsWith('a') ? 40 : 54),
    ]),
  );

  it("chooses from the other corpora's dev figures only, leaving a corpus's settings out together", () => {
    const inp = input(records);
    expect(locoChoice(inp, 'a')?.choice).toBe('y');
    // For b: a (+10 for x, +1 for y) and c (-1 for x, +3 for y): x +4.5, y +2, dev-select +5.
    expect(locoChoice(inp, 'b')?.choice).toBe(DEV_SELECT);
  });

  it('never reads the left-out corpus: changing its test or dev figures does not change its choice', () => {
    const moved = records.map((r) => (r.setting === 'b' ? { ...r, dev: { f1: r.label === 'x' ? 99 : 1 }, test: { f1: 0 } } : r));
    expect(locoChoice(input(moved), 'b')?.choice).toBe(locoChoice(input(records), 'b')?.choice);
  });

  it("reports the choice's test mean over seeds, the weak labels' better test score, WSL and the target", () => {
    const out = leaveOneCorpusOut(input([...records, rec('a1', 'weak', 0, 0, 70), { ...rec('a1', 'weak', 0, 0, 90), split: 'train' }]));
    const a1 = out.find((o) => o.name === 'a1')!;
    expect(a1.loco).toMatchObject({ choice: 'y', mean: 40, seeds: [1, 2] });
    expect(a1.weak).toBe(70);
    expect(a1.weakOnTrain).toBe(90);
    expect(a1.wsl).toBe(50);
    expect(a1.target).toBe(73);
    expect(a1.best).toMatchObject({ label: 'x', mean: 61 });
  });

  it('has no choice for a corpus when a candidate lacks the others', () => {
    const out = leaveOneCorpusOut(input(records.filter((r) => r.setting === 'a1')));
    expect(out[0].loco).toBeNull();
  });

  describe('priors that travel', () => {
    // x run again with a prior p: dev +2 on a, +1 on b, and on c `cDev` (its test 70).
    const prior = (cDev: number) => ({
      name: 'p',
      records: ['a1', 'a2', 'b', 'c'].flatMap((s) =>
        [1, 2].map((seed) => (s.startsWith('a') ? rec(s, 'x', seed, 62, 61) : s === 'b' ? rec(s, 'x', seed, 50, 48) : rec(s, 'x', seed, cDev, 70))),
      ),
    });

    it("keeps a prior for a row where the other corpora's dev gains, and reads that row with it before choosing", () => {
      const out = leaveOneCorpusOut({ ...input(records), priors: [prior(55)] });
      const c = out.find((o) => o.name === 'c')!;
      // Kept for c by a (+2) and b (+1); on c's dev x with p (55) now beats y (53), and its test is read.
      expect(c.priors).toEqual([{ name: 'p', rows: ['x'], why: expect.stringContaining('a +2.00, b +1.00; mean +1.50, kept') }]);
      expect(c.loco).toMatchObject({ choice: DEV_SELECT, mean: 70 });
      expect(leaveOneCorpusOut(input(records)).find((o) => o.name === 'c')!.loco).toMatchObject({ mean: 54 });
    });

    it('drops it where the other corpora lose with it, and never reads the left-out corpus to decide', () => {
      const out = leaveOneCorpusOut({ ...input(records), priors: [prior(40)] });
      const plain = leaveOneCorpusOut(input(records));
      // For a: b +1, c -9: not kept, and a's figures are the plain ones.
      const a1 = out.find((o) => o.name === 'a1')!;
      expect(a1.priors).toEqual([{ name: 'p', rows: [], why: expect.stringContaining('mean -4.00') }]);
      expect(a1.loco).toEqual(plain.find((o) => o.name === 'a1')!.loco);
      // c's own dev (40 or 55) does not move c's decision.
      expect(out.find((o) => o.name === 'c')!.priors![0].rows).toEqual(['x']);
    });

    it('reads a stacked prior against the prior it stacks on, keeps it only where that one is kept, and reads the row with both', () => {
      // q on top of p: dev +1 over p on a, -0.5 on b, +3 on c (its test 75).
      const q = {
        name: 'p + q',
        over: 'p',
        records: prior(55).records.map((r) => ({
          ...r,
          dev: { f1: r.dev!.f1 + (r.setting.startsWith('a') ? 1 : r.setting === 'b' ? -0.5 : 3) },
          test: { f1: r.setting === 'c' ? 75 : r.test.f1 },
        })),
      };
      const out = leaveOneCorpusOut({ ...input(records), priors: [prior(55), q] });
      const c = out.find((o) => o.name === 'c')!;
      // For c: over p, a +1 and b -0.5: +0.25, kept; x is read with p + q.
      expect(c.priors![1]).toEqual({
        name: 'p + q',
        rows: ['x'],
        why: expect.stringContaining('dev gain with p + q over p: x: a +1.00, b -0.50; mean +0.25, kept'),
      });
      expect(c.loco).toMatchObject({ mean: 75 });
      // Where p itself is dropped (p's c dev 40: for a, b +1 and c -9), q cannot be kept, whatever it gains over p.
      const lost = leaveOneCorpusOut({
        ...input(records),
        priors: [prior(40), { ...q, records: q.records.map((r) => ({ ...r, dev: { f1: r.dev!.f1 + 20 } })) }],
      });
      expect(lost.find((o) => o.name === 'a1')!.priors![1]).toMatchObject({ rows: [], why: expect.stringContaining('not kept: p is not') });
      expect(() => leaveOneCorpusOut({ ...input(records), priors: [q] })).toThrow(/not an earlier prior/);
    });

    /** A prior over p (prior(55)) whose dev is p's plus `by` everywhere, and whose test on c is `cTest`. */
    const over = (name: string, by: number, cTest: number) => ({
      name,
      over: 'p',
      records: prior(55).records.map((r) => ({ ...r, dev: { f1: r.dev!.f1 + by }, test: { f1: r.setting === 'c' ? cTest : r.test.f1 } })),
    });

    it('reads the one of two priors on the same footing that gains more, since no run has both', () => {
      // Over p: q gains +1 on every setting (c's test 75), r +2 (c's test 80); for c both gain, r more.
      const p = prior(55);
      const c = leaveOneCorpusOut({ ...input(records), priors: [p, over('p + q', 1, 75), over('p + r', 2, 80)] }).find((o) => o.name === 'c')!;
      expect(c.priors!.map((k) => [k.name, k.rows])).toEqual([
        ['p', ['x']],
        ['p + q', []],
        ['p + r', ['x']],
      ]);
      expect(c.priors![1].why).toContain('mean +1.00, not kept: p + r gains more (no run has both)');
      expect(c.loco).toMatchObject({ mean: 80 });
      // On equal gains the earlier one is read; two priors stacking on none are alternatives too.
      const tie = leaveOneCorpusOut({ ...input(records), priors: [p, over('p + q', 2, 75), over('p + r', 2, 80)] }).find((o) => o.name === 'c')!;
      expect(tie.loco).toMatchObject({ mean: 75 });
      const roots = leaveOneCorpusOut({ ...input(records), priors: [p, { ...over('s', 3, 90), over: undefined }] }).find((o) => o.name === 'c')!;
      expect(roots.priors!.map((k) => k.rows)).toEqual([[], ['x']]);
      expect(roots.loco).toMatchObject({ mean: 90 });
    });

    it('never reads an inert prior where it cannot apply: that corpus does not vote on it, and is read without it, so an alternative can be', () => {
      // r, an alternative to p + q over p, gains more where it votes, but cannot apply to c.
      const p = prior(55);
      const r = { ...over('p + r', 2, 80), inert: { c: 'no list maps onto its types' } };
      const out = leaveOneCorpusOut({ ...input(records), priors: [p, over('p + q', 1, 75), r] });
      const c = out.find((o) => o.name === 'c')!;
      expect(c.priors![2]).toEqual({ name: 'p + r', rows: [], why: 'p + r does not apply to c: no list maps onto its types' });
      expect(c.priors![1].rows).toEqual(['x']);
      expect(c.loco).toMatchObject({ mean: 75 });
      // Where it votes, c's runs are not read: b's gain with r is a's alone (+2), not a's and c's.
      const b = out.find((o) => o.name === 'b')!;
      expect(b.priors![2].why).toContain('x: a +2.00; mean +2.00');
    });

    it('has no choice where a kept prior has not run with its row on every seed, and says so', () => {
      const p = prior(55);
      const out = leaveOneCorpusOut({ ...input(records), priors: [{ ...p, records: p.records.filter((r) => !(r.setting === 'c' && r.seed === 2)) }] });
      const c = out.find((o) => o.name === 'c')!;
      expect(c.loco).toBeNull();
      expect(c.notMeasured).toBe('x has not run with p on every seed');
    });
  });

  describe('pooling the other corpora', () => {
    // Left out d. x gains +1 on a and b, seed for seed, and -9 on c, where its seeds disagree (-1, -17);
    // y gains +0.5 everywhere; the best on each corpus's own dev is x on a and b and y on c.
    const gain = { a: { x: [1, 1], y: [0.5, 0.5] }, b: { x: [1, 1], y: [0.5, 0.5] }, c: { x: [-1, -17], y: [0.5, 0.5] } };
    const recs = (['a', 'b', 'c'] as const).flatMap((s) =>
      [1, 2].flatMap((seed) => [rec(s, 'wsl', seed, 50, 50), rec(s, 'x', seed, 50 + gain[s].x[seed - 1], 50), rec(s, 'y', seed, 50 + gain[s].y[seed - 1], 50)]),
    );
    const pooled = (pool?: LocoInput['pool']): LocoInput => ({
      ...input(recs),
      settings: ['a', 'b', 'c', 'd'].map((s) => ({ name: s, corpus: s })),
      ...(pool ? { pool } : {}),
    });

    it('the mean weighs every corpus alike: one noisy corpus sinks x', () => {
      // x (1 + 1 - 9) / 3, y 0.5, the best on own dev (1 + 1 + 0.5) / 3.
      expect(locoChoice(pooled(), 'd')).toMatchObject({ choice: DEV_SELECT, why: expect.stringContaining('; mean +0.83') });
    });

    it('the median takes the middle corpus (x ties the best on own dev at +1, and is the earlier row)', () => {
      expect(locoChoice(pooled('median'), 'd')).toMatchObject({ choice: 'x', why: expect.stringContaining('; median +1.00') });
    });

    it('random effects count the corpus whose seeds disagree for less', () => {
      // c's gain for x has variance 128 / 2 over 2 seeds; a's and b's agree (the floor, 0.01); no excess spread between corpora.
      expect(locoChoice(pooled('random-effects'), 'd')).toMatchObject({ choice: 'x', why: expect.stringContaining('; random-effects +1.00') });
    });
  });
});
