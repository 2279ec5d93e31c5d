/**
 * One line of help for each method and pipeline option, shown beside its field on the training
 * page (the schemas in schemas.ts and core/runConfig.ts say the same at more length).
 */
export const OPTION_HELP: Record<string, string> = {
  'method.gamma':
    'Weighted WSL: the weak sentences’ loss is multiplied by this; negative sampling (PU): the share of a sentence’s length sampled from its O tokens',
  'method.q': 'RoSTER: GCE’s q (0.7 in the paper); 0, the default chosen on dev, is cross entropy, the paper’s “w/o GCE” ablation',
  'method.tau':
    'RoSTER: noisy-label removal threshold τ (0.3, chosen on dev over the user-scale suite; 0.7 in the paper); 0 turns removal off, which dev prefers where weak labels are wrong rather than missing (bc5cdr)',
  'method.removeFromEpoch': 'RoSTER: removal starts at this epoch; before it every token counts',
  'method.dropO': 'RoSTER: share of weak O tokens left out at random each step (0.5 in the paper; 0.25, the default, chosen on dev)',
  'method.lambda': 'Negative sampling: ⌈λ·n⌉ negatives for a sentence of n tokens',
  'method.sampling': 'Negative sampling: uniform, or weighted toward spans the model finds unlikely entities',
  'method.mu': 'Weighted negative sampling: higher μ, fewer missampled entities; lower μ, harder negatives',
  'pipeline.wlc': 'NEEDLE: weak label completion (Eq. 2): weak O tokens take the initial model’s prediction',
  'pipeline.nal': 'NEEDLE: the noise-aware loss (Eq. 3); off trains Stage II with plain NLL',
  'pipeline.ft': 'NEEDLE: Stage III, fine-tuning on the strong sentences',
  'pipeline.bins': 'NEEDLE: histogram bins for the confidence of Viterbi scores',
  'pipeline.cap': 'NEEDLE: the cap on the confidence (0.95 in the paper)',
  'pipeline.stage1.epochs': 'NEEDLE Stage I: language-model epochs on the training text (0: off)',
  'pipeline.stage1.vocab': 'Language model: the most frequent words it predicts',
  'pipeline.rounds': 'Rounds of the method’s repeated stages (self-training, completion, NEEDLE’s II–III)',
  'pipeline.typeShifts':
    'Completion: the teacher decodes the weak labels with a shift per entity type as well, chosen on dev after its O shift (weak labels miss each type at its own rate)',
  'pipeline.teacherEnsemble':
    'Completion, with dictionary dropout chosen on dev: the first teacher is the mean of the models trained at every dropout rate, not the chosen one alone',
  'pipeline.folds':
    'Completion: k > 1 splits the weak sentences into k folds, each completed in the first round by a teacher trained on the other folds (k more trainings on part of the data); 1: one teacher completes all',
  'pipeline.relabel':
    'Completion: the teacher’s entity spans also replace the weak spans they overlap (it corrects their types and boundaries, not only fills their misses)',
  'pipeline.unlabeled':
    'Completion, BOND, RoSTER: self-training on up to this many unlabeled sentences (the project’s unassigned documents), labeled by the last round’s teacher for its student (BOND, RoSTER: by each round’s teacher, with the training text); 0: off',
  'pipeline.unlabeledRounds':
    'Completion with self-training: how many of the last rounds label the unlabeled text for their students (2: the second-to-last round’s teacher labels it, and the last teacher, trained on those labels, labels it anew)',
  'pipeline.freshStudent':
    'Completion with self-training: the student of a round that self-trains starts from the pre-trained encoder, not from its teacher’s weights, so it learns the teacher’s labels instead of going on from them (Noisy Student)',
  'pipeline.models':
    'RoSTER: noise-robust models in the ensemble (2 by default, for time: each is about a third of a run; 3 gained 0.2–0.5 dev F1 on the user-scale suite)',
  'pipeline.roundEpochs': 'RoSTER, BOND: epochs of each self-training round (BOND: the student becomes the teacher after each)',
  'pipeline.roundLr': 'RoSTER, BOND: learning rate of the self-training rounds',
  'pipeline.teacherEpochs': 'BOND Stage 1: epochs at most on the distant labels; the teacher is the best epoch on dev (early stopping)',
  'pipeline.threshold': 'BOND: a token teaches the student when its largest soft pseudo-label reaches this (ε, 0.9 in the paper)',
  'pipeline.pseudoLabels':
    'BOND: soft pseudo-labels sharpened by class frequency (§3.2, BOND soft), or hard ones, the teacher’s most probable tag (BOND hard: every token teaches)',
  'pipeline.entityThreshold': 'RoSTER: sharpen the type distribution of tokens with P(entity) at least this',
  'pipeline.augmentRate': 'RoSTER: share of words the language model replaces in each augmented copy (0: none)',
  'pipeline.lm.epochs': 'RoSTER: language-model epochs for the augmentation, when the run has no pre-trained encoder (with one, its language model augments)',
  'pipeline.keepBest':
    'RoSTER: the run keeps the best model on dev among every stage’s (each noise-robust model, the distilled one, each round’s); off: the last round’s, as in the paper. Completion: the run keeps the best on dev among the teacher and each round’s student, and stops at the first round whose student does not beat it; off: every round runs',
  'pipeline.stopEarly':
    'RoSTER, with keepBest: stop at the first stage after the ensemble (distillation, a round) that does not beat the best model so far on dev; off: every stage runs',
  'pipeline.ensembleSeeds':
    'RoSTER: the seeds of the ensemble’s models: spread (seed + 1000·k: runs of nearby seeds share no model) or consecutive (seed + k, as before)',
  'pipeline.lm.vocab': 'Language model: the most frequent words it predicts',
  'pipeline.explore': 'PU: epochs of plain training before the O-values are read',
  'pipeline.lambda': 'PU: the share ⌈λ·m⌉ of O-tagged tokens with the smallest O-values taken out of the loss',
  'pipeline.alpha': 'Decoupled model: weight of the mention classifier’s loss (Eq. 10)',
  'pipeline.beta': 'Decoupled model: weight of the context classifier’s loss (Eq. 10)',
  'pipeline.shared': 'Decoupled model: one encoder for mentions and contexts',
  'pipeline.maxLength': 'Decoupled model: longest candidate region, in tokens',
  'pipeline.proposer': 'Decoupled model: a token tagger proposes candidates too',
  'pipeline.negatives': 'Decoupled model: O regions drawn each epoch per sentence',
  'pipeline.oShift': 'Decoupled model: shift of the O class at prediction, or “dev” to choose it on dev',
  'pipeline.mentionPretrain.epochs': 'Decoupled model: mention pre-training on the dictionary (0: off)',
  'pipeline.mentionPretrain.oRatio': 'Decoupled model: O examples per dictionary entry',
  'pipeline.contextPretrain.epochs': 'Decoupled model: context pre-training on distant sentences (0: off)',
  'pipeline.contextPretrain.vocab': 'Decoupled model: masked-word vocabulary',
  'pipeline.contextPretrain.oRatio': 'Decoupled model: O regions per entity region',
};
