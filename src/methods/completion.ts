/**
 * Weak-label completion: NEEDLE's Eq. 2 with no strong labels. A WSL teacher, decoded with the O
 * shift chosen on dev, gives the weak labels' O tokens its tags; a student goes on from the
 * teacher on the completed labels. Distant labels miss entities; the shifted teacher finds some of
 * them, and the student learns them as entities instead of O. `rounds` times, each round's model
 * completing the ORIGINAL weak labels anew. With train.typeShifts the teacher decodes with a shift
 * per entity type as well (weak labels miss each type at its own rate). With `folds` k > 1 the
 * first round is cross-fitted: each fold of the weak sentences is completed by a teacher trained on
 * the others. With teacherEnsemble (and one fold) the first teacher is the mean of the models its
 * dictionary-dropout choice trained. With `relabel` the teacher's spans also replace the weak spans
 * they overlap (distant labels type a place PER, or mark "Benjamin" of "Benjamin Netanyahu"). With
 * `unlabeled` the last round's teacher (the last `unlabeledRounds` rounds' teachers) also labels
 * unlabeled sentences for its student; with `freshStudent` that student starts afresh. With
 * `keepBest` the run keeps the best model on dev (the teacher or a round's student) and stops at the
 * first round whose student does not beat it.
 */
import { describeTypeShifts } from '../core/runConfig';
import { spansToTags, tagsToSpans } from '../core/tagScheme';
import { type LabeledSentence, tagSetScheme } from '../model/data';
import { type Decoding, TaggerEnsemble } from '../model/tagger';
import { chooseShifts, predict } from '../model/train';
import { registerPipeline } from './registry';
import { type Candidate, type PipelineContext, pct, type TrainSignals, unlabeledPool, withMethod } from './stages';

/** The teacher's tags for `sentences`, decoded with its O shift (and type shifts) chosen on dev; `who` names it in progress messages. */
async function teacherPaths(
  ctx: PipelineContext,
  pipeline: { rounds: number; typeShifts: boolean },
  teacher: Decoding,
  sentences: readonly LabeledSentence[],
  who: string,
  round: number,
): Promise<number[][]> {
  const { cfg, feat, data, hooks } = ctx;
  // With type shifts (the pipeline's, or train.typeShifts) the teacher also decodes with a shift
  // per type; both chosen on dev from one pass of the teacher over it.
  const chosen = await chooseShifts(teacher, feat, data.dev, { oShift: 'dev', types: cfg.train.typeShifts || pipeline.typeShifts });
  const typed = chosen.typeShifts ? `, type shifts ${describeTypeShifts(chosen.typeShifts)}` : '';
  const scored = chosen.dev
    ? `; its dev F1 ${pct(chosen.dev.overall.f1)}${chosen.before ? ` (${pct(chosen.before.overall.f1)} with the O shift alone)` : ''}`
    : '';
  hooks.onStage?.(`completion round ${round} of ${pipeline.rounds}: ${who} decodes with O shift ${chosen.oShift}${typed} (chosen on dev)${scored}`);
  return (await predict(teacher, feat, sentences)).paths;
}

/**
 * A weak sentence's tags completed by the teacher's (tag ids into `tags`, 0 the O tag). Eq. 2: weak
 * entity tags stay and weak O tokens take the teacher's tag. `relabel`: at the level of spans, every
 * teacher span is kept, and a weak span stays only where no teacher span overlaps it; `relabeled`
 * counts the weak spans the teacher's replaced.
 */
export function completeTags(
  weak: readonly number[],
  teacher: readonly number[],
  tags: readonly string[],
  relabel: boolean,
): { tags: number[]; relabeled: number } {
  if (!relabel) return { tags: weak.map((t, i) => (t === 0 ? teacher[i] : t)), relabeled: 0 };
  const spans = (ids: readonly number[]) => tagsToSpans(ids.map((t) => tags[t]));
  const [w, p] = [spans(weak), spans(teacher)];
  const kept = w.filter((s) => !p.some((q) => q.start < s.end && s.start < q.end));
  const same = w.filter((s) => p.some((q) => q.start === s.start && q.end === s.end && q.label === s.label)).length;
  const out = spansToTags([...p, ...kept], 0, weak.length, tagSetScheme(tags)).map((t) => tags.indexOf(t));
  return { tags: out, relabeled: w.length - kept.length - same };
}

registerPipeline({
  kind: 'completion',
  async run(ctx, pipeline) {
    const { cfg, data, hooks, strong, weak } = ctx;
    const folds = Math.min(pipeline.folds, weak.length);
    // Round r: the model so far, decoded with its O shift chosen on dev, completes the ORIGINAL
    // weak labels (an entity tag where they say O); the next model goes on from it on them.
    let current = await ctx.stage('teacher (WSL)', withMethod(cfg, { name: 'wsl' }), data.train, undefined, {
      keepCandidates: pipeline.teacherEnsemble && folds === 1,
    });
    let others: Candidate[] = current.candidates ?? [];
    let completion: TrainSignals['completion'];
    // keepBest: the best model on dev so far (the round's teacher while its student trains), with
    // the completed labels it learned; keptStage names it once a student fails to beat it.
    let best = pipeline.keepBest ? { r: current, f1: await ctx.scoreOnDev(current), stage: 'teacher (WSL)', completion } : null;
    let keptStage: string | undefined;
    try {
      for (let round = 1; round <= pipeline.rounds; round++) {
        let paths: number[][];
        // Self-training: the teachers of the last unlabeledRounds rounds label the unlabeled pool
        // for their students too.
        const pool = round > pipeline.rounds - pipeline.unlabeledRounds ? unlabeledPool(data, pipeline.unlabeled) : [];
        let pseudo: number[][] = [];
        if (round === 1 && folds > 1) {
          // Cross-fitted: fold f (every k-th weak sentence from the f-th) is completed by a teacher
          // trained on the strong sentences and the other folds, at the dictionary dropout chosen.
          paths = new Array(weak.length);
          for (let f = 0; f < folds; f++) {
            const held = weak.map((_, k) => k).filter((k) => k % folds === f);
            const rest = weak.filter((_, k) => k % folds !== f);
            const name = `teacher for fold ${f + 1} of ${folds}`;
            const r = await ctx.stage(name, withMethod(cfg, { name: 'wsl' }), [...strong, ...rest], undefined, {}, `${name} (trained on the other folds)`);
            try {
              const fp = await teacherPaths(
                ctx,
                pipeline,
                r.tagger,
                held.map((k) => weak[k]),
                `the teacher for fold ${f + 1} of ${folds} (${held.length} sentences it was not trained on)`,
                round,
              );
              held.forEach((k, j) => (paths[k] = fp[j]));
            } finally {
              r.tagger.dispose();
            }
          }
          if (pool.length) pseudo = await teacherPaths(ctx, pipeline, current.tagger, pool, 'the teacher (trained on every fold) on the unlabeled text', round);
        } else {
          const teacher: Decoding = others.length ? new TaggerEnsemble([current.tagger, ...others.map((c) => c.tagger)]) : current.tagger;
          const who = others.length
            ? `the teacher (the mean of the model chosen and those at dictionary dropout ${others.map((c) => c.dictionaryDropout).join(', ')})`
            : 'the teacher';
          paths = await teacherPaths(ctx, pipeline, teacher, weak, who, round);
          // The teacher decodes as its shifts were just chosen on dev.
          if (pool.length) pseudo = (await predict(teacher, ctx.feat, pool)).paths;
        }
        for (const c of others) c.tagger.dispose();
        others = [];
        // A fresh student (freshStudent, in a round that self-trains) starts where the first
        // teacher did, from the pre-trained encoder: it needs no copy of the teacher's weights.
        const fresh = pipeline.freshStudent && pool.length > 0;
        const w = fresh ? undefined : await current.tagger.getWeights();
        // With keepBest the teacher is the best model so far: it stays until its student beats it.
        if (!best) current.tagger.dispose();
        const byTrain = new Map(weak.map((s, k) => [s, k]));
        // Eq. 2: weak entity tags stay; weak O tokens take the teacher's tag (with relabel, the
        // teacher's spans replace the weak spans they overlap).
        let relabeled = 0;
        const completed = weak.map((s, k) => {
          const c = completeTags(s.tags, paths[k], ctx.feat.tags, pipeline.relabel);
          relabeled += c.relabeled;
          return { ...s, tags: c.tags };
        });
        completion = data.train.map((s) => {
          const k = byTrain.get(s);
          if (k === undefined) return null;
          const c: Record<number, number> = {};
          s.tags.forEach((t, i) => {
            if (t === 0 && completed[k].tags[i] !== 0) c[i] = completed[k].tags[i];
          });
          return c;
        });
        const added = completion.reduce((a, c) => a + (c ? Object.keys(c).length : 0), 0);
        hooks.onStage?.(
          `completion round ${round}: ${added} weak-O tokens became entity tokens${pipeline.relabel ? `; the teacher's spans replaced ${relabeled} weak spans` : ''}`,
        );
        const labeled = pool.map((s, k) => ({ ...s, tags: pseudo[k] }));
        if (pool.length) {
          const entities = pseudo.reduce((a, p) => a + p.filter((t) => t !== 0).length, 0);
          hooks.onStage?.(`completion round ${round}: the teacher labeled ${pool.length} unlabeled sentences (${entities} entity tokens) for the student`);
        }
        const student = await ctx.stage(
          `student (round ${round})`,
          withMethod(cfg, { name: 'wsl' }),
          [...strong, ...completed, ...labeled],
          w,
          {},
          `student, round ${round} of ${pipeline.rounds}${fresh ? ', a fresh start' : ''}`,
        );
        current = student;
        if (best) {
          const f1 = await ctx.scoreOnDev(student);
          if (f1 <= best.f1) {
            hooks.onStage?.(
              `completion round ${round}: the student's dev F1 ${pct(f1)} does not beat ${pct(best.f1)} (${best.stage}): the run keeps that model and stops`,
            );
            student.tagger.dispose();
            ({ r: current, completion, stage: keptStage } = best);
            break;
          }
          best.r.tagger.dispose();
          best = { r: student, f1, stage: `student (round ${round})`, completion };
        }
      }
    } finally {
      for (const c of others) c.tagger.dispose();
    }
    return ctx.finish(current, { signals: { completion }, ...(keptStage ? { keptStage } : {}) });
  },
});
