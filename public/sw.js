// Offline support: precache every built file listed by the build, then serve same-origin GETs
// cache-first. A new build has a new manifest version, which replaces the cache.
const MANIFEST = 'precache-manifest.json';

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const res = await fetch(MANIFEST, { cache: 'no-store' });
      if (!res.ok) return;
      const { version, files } = await res.json();
      const cache = await caches.open(`studio-${version}`);
      await cache.addAll(files);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const keys = await caches.keys();
      const newest = keys.filter((k) => k.startsWith('studio-')).sort().pop();
      await Promise.all(keys.filter((k) => k !== newest).map((k) => caches.delete(k)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      // Pages go to the network first so a new build shows at once; hashed assets never change.
      if (event.request.mode === 'navigate') {
        try {
          return await fetch(event.request);
        } catch (e) {
          const shell = await caches.match('./', { ignoreVary: true });
          if (shell) return shell;
          throw e;
        }
      }
      const hit = await caches.match(event.request, { ignoreSearch: true, ignoreVary: true });
      if (hit) return hit;
      const res = await fetch(event.request);
      // Word vectors are too big to precache; keep them once a training job has fetched them.
      if (res.ok && url.pathname.includes('/glove/')) {
        const newest = (await caches.keys()).filter((k) => k.startsWith('studio-')).sort().pop();
        if (newest) await (await caches.open(newest)).put(event.request, res.clone());
      }
      return res;
    })(),
  );
});
