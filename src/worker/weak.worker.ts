import * as Comlink from 'comlink';
import type { Span } from '../core/types';
import type { AggregateMethod } from '../core/weak/aggregate';
import { compileRule, type Rule, type RuleDoc } from '../core/weak/rules';
import { db } from '../db/instance';
import { runWeakLabeling } from './weakJob';

const api = {
  label(projectId: number, method: AggregateMethod, onProgress: (done: number, total: number, stage: string) => void) {
    return runWeakLabeling(db, projectId, method, { onProgress });
  },
  /** Live preview of one rule on sample documents. */
  preview(rule: Rule, docs: RuleDoc[]): Span[][] {
    const label = compileRule(rule, 1000);
    return docs.map((d) => label(d));
  },
};

export type WeakWorkerApi = typeof api;
Comlink.expose(api);
