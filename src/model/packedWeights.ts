/**
 * Weights as the shipped model assets hold them (public/models: the starter model, the English
 * encoder): float32, little-endian, base64 per variable.
 */
export type PackedWeights = Record<string, { shape: number[]; base64: string }>;

export { decodeFloat32 } from '../core/modelFile';

/** Packs weights (Node's Buffer: the build scripts). */
export function packWeights(w: Record<string, { shape: number[]; data: ArrayLike<number> }>): PackedWeights {
  return Object.fromEntries(
    Object.entries(w).map(([k, v]) => {
      const f = Float32Array.from(v.data);
      return [k, { shape: v.shape, base64: Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64') }];
    }),
  );
}

/** Checks each packed variable's size against its shape without decoding it: a clear error names the asset and the variable. */
export function checkPacked(p: PackedWeights, where: string): void {
  for (const [k, v] of Object.entries(p)) {
    const n = v.shape.reduce((x, y) => x * y, 1);
    const bytes = Math.floor((v.base64.length * 3) / 4) - (v.base64.endsWith('==') ? 2 : v.base64.endsWith('=') ? 1 : 0);
    if (bytes !== 4 * n) throw new Error(`${where}: weight ${k} has ${bytes} bytes for shape [${v.shape.join(', ')}] (${4 * n} expected)`);
  }
}
