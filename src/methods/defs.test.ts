import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pipelineSchema } from '../core/runConfig';
import { METHOD_DEFS, optionDoc } from './defs';

/** The option paths of an object schema: "pipeline.lm.epochs" for nested groups. */
function optionPaths(prefix: string, schema: z.ZodObject): string[] {
  return Object.entries(schema.shape).flatMap(([k, v]) => {
    if (k === 'name' || k === 'kind') return [];
    let inner = v as z.ZodType;
    while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
    return inner instanceof z.ZodObject ? optionPaths(`${prefix}.${k}`, inner) : [`${prefix}.${k}`];
  });
}

describe('each method describes itself in its .def.ts', () => {
  it('gives every option of its losses and pipeline a label and a line of help, and documents no option it lacks', () => {
    for (const def of METHOD_DEFS) {
      const paths = [...(def.losses ?? []).flatMap((s) => optionPaths('method', s)), ...(def.pipeline ? optionPaths('pipeline', def.pipeline) : [])];
      for (const p of paths) {
        expect(def.options[p]?.label, p).toMatch(/\S/);
        expect(def.options[p]?.help.length, p).toBeGreaterThan(10);
      }
      for (const documented of Object.keys(def.options)) expect(paths, documented).toContain(documented);
    }
  });

  it('owns the pipeline kinds the run config knows, each once', () => {
    const kinds = METHOD_DEFS.flatMap((d) => (d.pipeline ? [(d.pipeline.shape.kind as z.ZodLiteral<string>).value] : []));
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds.sort()).toEqual(pipelineSchema.options.map((o) => (o.shape.kind as z.ZodLiteral<string>).value).sort());
  });

  it("finds an option's words by the method or pipeline it belongs to: one key, different meanings", () => {
    expect(optionDoc('pipeline.rounds', { kind: 'completion' })?.help).toMatch(/teacher/);
    expect(optionDoc('pipeline.rounds', { kind: 'roster' })?.help).toMatch(/distillation/);
    expect(optionDoc('method.gamma', { method: 'pu' })?.label).toBe('negatives sampled');
    expect(optionDoc('method.gamma', { method: 'weighted-wsl' })?.label).toBe('weight of the weak sentences');
    expect(optionDoc('method.tau', { method: 'wsl' })).toBeUndefined();
  });
});
