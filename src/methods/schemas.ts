/**
 * Every method's loss config, checked without its loss: the training page fills in and checks a
 * method's options on the main thread, where TensorFlow.js is not loaded; each schema is in its
 * method's `.def.ts`, which the worker's module registers its loss with.
 */
import { LOSS_SCHEMAS } from './defs';
import { issueSentence } from '../core/issueSentence';

export const methodSchemas = LOSS_SCHEMAS;

/** A method's config with its defaults filled in, or an error naming the field at fault. */
export function parseMethodConfig(raw: unknown, where = 'method'): { name: string } & Record<string, unknown> {
  const name = (raw as { name?: unknown } | null)?.name;
  const schema = typeof name === 'string' ? methodSchemas[name] : undefined;
  if (!schema) throw new Error(`${where}.name: unknown method ${JSON.stringify(name)}; known: ${Object.keys(methodSchemas).join(', ')}`);
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${where}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issueSentence(issue)}`);
  }
  return r.data as { name: string } & Record<string, unknown>;
}
