import * as Comlink from 'comlink';
import { useEffect, useState } from 'react';
import type { QueryArgs, QueryName, QueryResult, QueryWorkerApi } from '../worker/query.worker';

let remote: Comlink.Remote<QueryWorkerApi> | null = null;

function queryWorker(): Comlink.Remote<QueryWorkerApi> {
  remote ??= Comlink.wrap<QueryWorkerApi>(new Worker(new URL('../worker/query.worker.ts', import.meta.url), { type: 'module' }));
  return remote;
}

/**
 * A live query run in the query worker (src/worker/query.worker.ts): undefined until its first
 * result, then every result as the data changes. An error is thrown into the page's error boundary.
 */
export function useWorkerQuery<N extends QueryName>(name: N, args: QueryArgs<N>): QueryResult<N> | undefined {
  const [value, setValue] = useState<{ key: string; v: QueryResult<N> }>();
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify([name, args]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for name and args.
  useEffect(() => {
    let live = true;
    let id: number | null = null;
    void queryWorker()
      .watch(
        name,
        args,
        Comlink.proxy((v: unknown) => live && setValue({ key, v: v as QueryResult<N> })),
        Comlink.proxy((m: string) => live && setError(m)),
      )
      .then((i) => {
        if (live) id = i;
        else void queryWorker().unwatch(i);
      });
    return () => {
      live = false;
      if (id !== null) void queryWorker().unwatch(id);
    };
  }, [key]);
  if (error) throw new Error(error);
  return value?.key === key ? value.v : undefined;
}

/** A query of the query worker run once, off the page's thread. */
export function queryOnce<N extends QueryName>(name: N, ...args: QueryArgs<N>): Promise<QueryResult<N>> {
  return queryWorker().once(name, args) as Promise<QueryResult<N>>;
}
