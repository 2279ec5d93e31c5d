import * as Comlink from 'comlink';
import type { Span } from '../core/types';
import { compileRule, type Rule, type RuleDoc } from '../core/weak/rules';
import { db } from '../db/instance';
import { runWeakLabeling, type WeakOptions } from './weakJob';

const api = {
  label(projectId: number, options: WeakOptions, onProgress: (done: number, total: number, stage: string) => void) {
    return runWeakLabeling(db, projectId, options, { onProgress });
  },
  /** Live preview of one rule on sample documents. */
  preview(rule: Rule, docs: RuleDoc[]): Span[][] {
    const label = compileRule(rule, 1000);
    return docs.map((d) => label(d));
  },
};

export type WeakWorkerApi = typeof api;
Comlink.expose(api);
