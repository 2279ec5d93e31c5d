import { defineConfig } from 'vitest/config';

// `npm run test:data` (NER_STUDIO_TEST=data) runs the checks on the whole data files; `npm test`
// runs everything else, on committed fixtures, so that a fresh clone needs no data folder.
const data = process.env.NER_STUDIO_TEST === 'data';

export default defineConfig({
  test: {
    include: data ? ['src/**/*.data.test.ts'] : ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    exclude: data ? [] : ['src/**/*.data.test.ts', '**/node_modules/**'],
    testTimeout: 60_000,
  },
});
