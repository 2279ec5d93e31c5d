/** The demo asset is served from the app's own origin (public/demo), and cached for offline use. */
export async function fetchDemoAsset(): Promise<unknown> {
  const res = await fetch(`${import.meta.env.BASE_URL}demo/bc5cdr-demo.json`);
  if (!res.ok) throw new Error(`demo asset: HTTP ${res.status}`);
  return res.json();
}
