import type { Method } from '../model/method';

export type { LossContext, Method, PrepareContext, RecordContext } from '../model/method';

const methods = new Map<string, Method<{ name: string }>>();

export function registerMethod<C extends { name: string }>(m: Method<C>): void {
  methods.set(m.name, m as unknown as Method<{ name: string }>);
}

export function getMethod(name: string): Method<{ name: string }> {
  const m = methods.get(name);
  if (!m) throw new Error(`unknown method "${name}"; known: ${[...methods.keys()].join(', ')}`);
  return m;
}
