import { defineConfig } from 'vitest/config';
import { SOURCE_CONDITIONS } from '../vitest.config.ts';

/** Browser journeys: each file starts its own server and Chromium, so they run one file at a time. */
export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    include: ['e2e/journeys/**/*.e2e.ts'],
    root: new URL('..', import.meta.url).pathname,
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // A page on a busy 2-core CI machine can take seconds to appear; polls wait for it, tests stay bounded.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});
