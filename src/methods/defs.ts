/**
 * Every method's description (its `.def.ts`), in the order the training page lists their presets,
 * and what the pages read from them: the loss schemas by name, the presets, the review signals and
 * each option's label and help. No TensorFlow.js here.
 */
import type { z } from 'zod';
import { bondDef } from './bond.def';
import { completionDef } from './completion.def';
import { decoupledDef } from './decoupled.def';
import type { MethodDef, OptionDoc, TokenRecord } from './def';
import { needleDef } from './needle.def';
import { negativeSamplingDef } from './negativeSampling.def';
import { puDef } from './pu.def';
import { rosterDef } from './roster.def';
import { sstDef } from './sst.def';
import { supervisedDef } from './supervised.def';
import { weakDef } from './weak.def';

export const METHOD_DEFS: readonly MethodDef[] = [
  supervisedDef,
  weakDef,
  sstDef,
  completionDef,
  needleDef,
  rosterDef,
  negativeSamplingDef,
  puDef,
  bondDef,
  decoupledDef,
];

const literal = (schema: z.ZodObject, key: 'name' | 'kind'): string => (schema.shape[key] as z.ZodLiteral<string>).value;

/** Every loss config schema, by the method's name. */
export const LOSS_SCHEMAS: Readonly<Record<string, z.ZodObject>> = Object.fromEntries(
  METHOD_DEFS.flatMap((d) => (d.losses ?? []).map((s) => [literal(s, 'name'), s])),
);

function defOfLoss(name: string): MethodDef | undefined {
  return METHOD_DEFS.find((d) => d.losses?.some((s) => literal(s, 'name') === name));
}

function defOfPipeline(kind: string): MethodDef | undefined {
  return METHOD_DEFS.find((d) => d.pipeline && literal(d.pipeline, 'kind') === kind);
}

/** Every method's per-token records, by field. */
export const TOKEN_RECORDS: Readonly<Record<string, TokenRecord>> = Object.assign({}, ...METHOD_DEFS.map((d) => d.records ?? {}));

/** An option's label and help on the form ("method.tau", "pipeline.lm.epochs"), from the module of the method or pipeline it belongs to. */
export function optionDoc(key: string, owner: { method?: string; kind?: string }): OptionDoc | undefined {
  const def = key.startsWith('method.') ? owner.method && defOfLoss(owner.method) : owner.kind && defOfPipeline(owner.kind);
  return def ? def.options[key] : undefined;
}
