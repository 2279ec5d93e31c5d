/** A select's options for label layers: each by its name, or with `withKind` as "kind: name". */
export function LayerOptions({ layers, withKind = false }: { layers: readonly { id?: number; name: string; kind?: string }[]; withKind?: boolean }) {
  return (
    <>
      {layers.map((l) => (
        <option key={l.id} value={l.id}>
          {withKind ? `${l.kind}: ${l.name}` : l.name}
        </option>
      ))}
    </>
  );
}
