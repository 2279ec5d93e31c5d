/**
 * Where a GPU program comes from, for counting them (bench/gpu-programs.ts): the model marks its
 * parts (embedding and character CNN, each LSTM direction, the output layer, the loss, the
 * optimizer, the dev pass) with `programSource`, and the gradient of an op is counted under the
 * part that ran it forward, as "<part> (backward)". Outside a count this is one string assignment
 * per part and step.
 */
import * as tf from './tf';

let current = 'other';
/** Where a model's variables are initialized (once, on first use): not a cost of every step. */
export const MADE_ONCE_VARIABLES = "the model's variables, made once";
/** Parts that hold the programs of the parts inside them (the dev pass runs the model's forward parts). */
const ENCLOSING = new Set(['dev pass', MADE_ONCE_VARIABLES]);

/** Runs `f` with its GPU programs counted under `label` (or the enclosing part's, inside the dev pass). */
export function programSource<T>(label: string, f: () => T): T {
  const outer = current;
  if (!ENCLOSING.has(outer)) current = label;
  try {
    return f();
  } finally {
    current = outer;
  }
}

/** `programSource` for an asynchronous part (the dev pass reads its predictions back between programs). */
export async function programSourceAsync<T>(label: string, f: () => Promise<T>): Promise<T> {
  const outer = current;
  current = label;
  try {
    return await f();
  } finally {
    current = outer;
  }
}

/** The part the programs being recorded now come from. */
export const currentProgramSource = (): string => current;

type TapeNode = { gradient?: (dys: tf.Tensor[]) => Record<string, () => tf.Tensor> };
type EngineInternals = {
  addTapeNode: (...a: unknown[]) => void;
  state: { activeTape: TapeNode[] | null };
};

/**
 * Makes the engine count each op's gradient under the part that ran the op: every tape node
 * recorded from now on runs its gradient (and the gradient's lazily built tensors) under the
 * forward part's label plus " (backward)". Returns what undoes it.
 */
export function attributeBackward(): () => void {
  const engine = tf.engine() as unknown as EngineInternals;
  const original = engine.addTapeNode;
  engine.addTapeNode = function (this: EngineInternals, ...a: unknown[]) {
    original.apply(this, a);
    const tape = this.state.activeTape;
    const node = tape?.[tape.length - 1];
    const gradient = node?.gradient;
    if (!node || !gradient) return;
    const label = `${current} (backward)`;
    node.gradient = (dys) => {
      const grads = programSource(label, () => gradient(dys));
      return Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, () => programSource(label, g)]));
    };
  };
  return () => {
    engine.addTapeNode = original;
  };
}
