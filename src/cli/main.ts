/**
 * The studio's command line: `npm run studio -- <verb> ...`. Each verb runs the same core code as
 * the browser and prints one JSON object as its last line on stdout.
 */
import { parseArgs } from 'node:util';
import { InputError } from '../core/errors';
import { VERBS } from './verbs';

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const run = verb ? VERBS[verb] : undefined;
  if (!run) {
    process.stderr.write(`usage: npm run studio -- <verb> ...\nverbs: ${Object.keys(VERBS).join(', ')}\n`);
    console.log(JSON.stringify({ ok: false, error: verb ? `unknown verb "${verb}"` : 'no verb' }));
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
