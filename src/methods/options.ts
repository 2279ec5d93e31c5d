/**
 * A method's options as the training page edits them: { method, pipeline } with every option
 * filled in from the schemas (so the ablations' switches are in view), and checked before a run
 * is queued, with errors that name the field. No TensorFlow.js here: it runs on the main thread.
 */
import { z } from 'zod';
import { pipelineSchema, type Pipeline } from '../core/runConfig';
import type { CatalogEntry } from './catalog';
import { methodSchemas, parseMethodConfig } from './schemas';
import { issueSentence } from '../core/issueSentence';

export interface MethodOptions {
  method: { name: string } & Record<string, unknown>;
  pipeline: Pipeline;
}

/** A catalog entry's method and pipeline with their defaults, as pretty JSON. */
export function entryOptionsText(entry: Pick<CatalogEntry, 'method' | 'pipeline'>): string {
  return JSON.stringify({ method: parseMethodConfig(entry.method), pipeline: pipelineSchema.parse(entry.pipeline ?? { kind: 'single' }) }, null, 2);
}

/** The options text checked: JSON with method and pipeline, each valid for its schema. */
export function parseOptionsText(text: string): MethodOptions {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`method options: invalid JSON (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('method options: expected an object with "method" and "pipeline"');
  const extra = Object.keys(raw).filter((k) => k !== 'method' && k !== 'pipeline');
  if (extra.length) throw new Error(`method options: unknown key "${extra[0]}" (expected "method" and "pipeline")`);
  const { method, pipeline = { kind: 'single' } } = raw as { method?: unknown; pipeline?: unknown };
  const m = parseMethodConfig(method ?? { name: 'supervised' }, 'method options: method');
  const p = pipelineSchema.safeParse(pipeline);
  if (!p.success) {
    const issue = p.error.issues[0];
    throw new Error(`method options: pipeline${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issueSentence(issue)}`);
  }
  return { method: m, pipeline: p.data };
}

/** The options with a fixed set of values (an enum in a method's or pipeline's schema), by their path on the form ("method.sampling"). */
export const OPTION_CHOICES: Readonly<Record<string, readonly string[]>> = (() => {
  const out: Record<string, string[]> = {};
  const walk = (prefix: string, schema: z.ZodObject) => {
    for (const [k, v] of Object.entries(schema.shape)) {
      const inner = v instanceof z.ZodDefault ? v.unwrap() : v;
      if (inner instanceof z.ZodEnum) out[`${prefix}.${k}`] = inner.options.map(String);
    }
  };
  for (const s of Object.values(methodSchemas)) walk('method', s as z.ZodObject);
  for (const s of pipelineSchema.options) walk('pipeline', s as z.ZodObject);
  return out;
})();
