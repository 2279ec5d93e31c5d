/**
 * `studio help` and `studio <verb> --help`: what each verb does and its options, in words.
 */
export interface VerbHelp {
  summary: string;
  usage: string;
  options: [flag: string, what: string][];
}

export const HELP: Record<string, VerbHelp> = {
  import: {
    summary: 'Read a corpus or a gazetteer file and print what it holds (documents, sentences, layers, entries).',
    usage: 'import FILE [--format conll|jsonl|lines|plain|gazetteer-tsv|gazetteer-untyped|gazetteer-patterns] [--labels [kind:name=]FILE ...]',
    options: [
      ['--format F', 'the file format (by its extension when absent)'],
      ['--labels [kind:name=]FILE', 'a label file over a "lines" text, one BIO tag a token (the first is gold, the others weak)'],
      ['--scheme BIO|IO', 'the tag scheme of the label files (BIO)'],
      ['--split train|dev|test', 'the split the documents belong to (train)'],
    ],
  },
  stats: {
    summary: 'Counts of a corpus: sentence lengths, and spans and tokens per type of each label layer.',
    usage: 'stats FILE [--format F] [--labels ...]',
    options: [['--format, --labels, --scheme, --split', 'as for import']],
  },
  weak: {
    summary: 'Weak labels from gazetteers and rules over a corpus, aggregated; scored against gold when given.',
    usage:
      'weak --corpus FILE [--gazetteer FILE ...] [--untyped FILE ...] [--rules FILE] [--gold FILE] [--aggregate priority|vote|hmm] [--abbreviations N] [--case-up-to N]',
    options: [
      ['--corpus FILE', 'the text to label (required)'],
      ['--format F', "the corpus's format (by its extension when absent)"],
      ['--gazetteer FILE', 'a typed gazetteer (Type<TAB>phrase a line); repeatable'],
      ['--untyped FILE', 'an untyped list (a phrase a line), typed by spelling; repeatable'],
      ['--rules FILE', 'rules as JSON (token patterns and regular expressions)'],
      ['--gold FILE', 'gold labels to score against (span P, R, F1 per source and aggregated)'],
      ['--case sensitive|insensitive|normalized', 'how dictionary phrases match (insensitive)'],
      ['--aggregate priority|vote|hmm', 'how the sources combine (priority)'],
      ['--untyped-as-is', 'leave untyped matches untyped'],
      ['--case-up-to N', 'entries of at most N characters (1-10) match only in their own case, whatever --case says ("Mg" is not "mg")'],
      [
        '--abbreviations N',
        'after aggregating, an abbreviation defined right after a weak span ("chloroacetaldehyde ( CAA )") takes its type there and later in its document and the N documents that follow (0 for real documents; more for text of one sentence a line)',
      ],
    ],
  },
  train: {
    summary: 'Train a model from a run config (the same config the training page writes) and print its scores.',
    usage: 'train --config FILE [--out MODEL.json] [--data DIR]',
    options: [
      [
        '--config FILE',
        "a run config: data files, model, method, pipeline, training options (required); one that names neither method nor pipeline trains the training page's default (weak-label completion)",
      ],
      ['--out FILE', 'where to write the trained model'],
      ['--data DIR', 'the data folder that $data/ paths name (NER_STUDIO_DATA, default ../shared/data)'],
    ],
  },
  eval: {
    summary: "Score a trained model (from train --out, or downloaded from a run's page) on a labeled corpus.",
    usage: 'eval --model FILE --corpus FILE [--labels FILE] [--scheme BIO|IO]',
    options: [
      ['--model FILE', "a model written by train --out or downloaded from a run's page (required)"],
      ['--corpus FILE', 'the corpus to tag (required)'],
      ['--labels FILE', 'gold labels for a "lines" corpus'],
      ['--scheme BIO|IO', 'the tag scheme of the labels'],
    ],
  },
  predict: {
    summary:
      "Label a corpus with a trained model (from train --out, or downloaded from a run's page, which makes the dictionary and weak-label features its model reads) and write its spans.",
    usage: 'predict --model FILE --corpus FILE --out FILE [--format conll|lines|jsonl|text]',
    options: [
      ['--model FILE', "a model written by train --out or downloaded from a run's page (required)"],
      ['--corpus FILE', 'the text to label, labeled or not (required)'],
      ['--out FILE', 'where to write the spans: CoNLL (BIO), or JSONL with character offsets for a name ending in .jsonl (required)'],
      ['--format F', 'the corpus format (by its extension when absent)'],
    ],
  },
  experiment: {
    summary: 'Run settings × methods × seeds from an experiment config, recording each run; print the table.',
    usage: 'experiment --config FILE [--jobs N] [--key SETTING/LABEL/SEED ...] [--report | --cost | --loco [--out FILE]]',
    options: [
      ['--config FILE', 'an experiment config (bench/configs/*.json) (required)'],
      ['--jobs N', 'split the runs left among N processes (one per core)'],
      ['--only SETTING', 'run this setting only; repeatable'],
      ['--method LABEL', 'run this method (by label) only; repeatable'],
      ['--key SETTING/LABEL/SEED', 'run exactly this run; repeatable'],
      ['--shard K/N', 'run the K-th of N fixed shares'],
      ['--report', 'print the table of what is recorded, run nothing'],
      ['--cost', 'print the wall minutes a run instead of F1'],
      ['--loco', "leave-one-corpus-out: each corpus's choice from the other corpora's dev records, and its test F1"],
      ['--out FILE', 'with --loco: write the result as JSON'],
      ['--data DIR', 'the data folder that $data/ paths name (NER_STUDIO_DATA, default ../shared/data)'],
    ],
  },
  'simulate-review': {
    summary:
      'The simulated annotator: rank the pool by each review signal, let gold correct the top k %, fine-tune, and record test F1 beside random and the oracle.',
    usage: 'simulate-review --config FILE [--only SETTING] [--seed N ...] [--report]',
    options: [
      ['--config FILE', 'an experiment config with a "simulate" block (bench/configs/guided-correction.json) (required)'],
      ['--only SETTING', 'run this setting only; repeatable'],
      ['--seed N', 'run this seed only; repeatable'],
      ['--report', 'write the summary JSON (simulate.out) from the records and print the table, run nothing'],
      ['--data DIR', 'the data folder that $data/ paths name (NER_STUDIO_DATA, default ../shared/data)'],
    ],
  },
  help: {
    summary: 'List the verbs, or explain one: help VERB (the same as VERB --help).',
    usage: 'help [VERB]',
    options: [],
  },
};

/** The list of verbs, or one verb's usage and options. */
export function helpText(verb?: string): string {
  if (!verb) {
    const width = Math.max(...Object.keys(HELP).map((v) => v.length));
    return [
      'usage: npm run studio -- <verb> [options]   (each verb prints one JSON object as its last line)',
      '',
      ...Object.entries(HELP).map(([v, h]) => `  ${v.padEnd(width)}  ${h.summary}`),
      '',
      'npm run studio -- <verb> --help   explains a verb and its options',
    ].join('\n');
  }
  const h = HELP[verb];
  if (!h) throw new Error(`unknown verb "${verb}"; the verbs: ${Object.keys(HELP).join(', ')}`);
  const width = Math.max(0, ...h.options.map(([f]) => f.length));
  return [
    `usage: npm run studio -- ${h.usage}`,
    '',
    h.summary,
    ...(h.options.length ? ['', ...h.options.map(([f, w]) => `  ${f.padEnd(width)}  ${w}`)] : []),
  ].join('\n');
}
