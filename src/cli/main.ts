/**
 * The studio's command line: `npm run studio -- <verb> ...`. Each verb runs the same core code as
 * the browser and prints one JSON object as its last line on stdout.
 */
import { parseArgs } from 'node:util';
import { InputError } from '../core/errors';
import { helpText } from './help';
import { VERBS } from './verbs';

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  // `help`, `help VERB`, `VERB --help` / `-h`: the text on stdout, exit 0.
  if (verb === 'help' || verb === '--help' || verb === '-h' || (verb && VERBS[verb] && (rest.includes('--help') || rest.includes('-h')))) {
    const which = verb === 'help' ? rest[0] : verb.startsWith('-') ? undefined : verb;
    try {
      console.log(helpText(which));
      return 0;
    } catch (e) {
      console.log(JSON.stringify({ ok: false, error: (e as Error).message }));
      return 2;
    }
  }
  const run = verb ? VERBS[verb] : undefined;
  if (!run) {
    process.stderr.write(`${helpText()}\n`);
    console.log(JSON.stringify({ ok: false, error: verb ? `unknown verb "${verb}"; try: npm run studio -- help` : 'no verb; try: npm run studio -- help' }));
    return 2;
  }
  try {
    const result = await run(rest, parseArgs);
    console.log(JSON.stringify({ ok: true, verb, ...result }));
    return 0;
  } catch (e) {
    const err = e as Error;
    console.log(JSON.stringify({ ok: false, verb, error: err.message, ...(e instanceof InputError ? { where: e.where } : {}) }));
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
