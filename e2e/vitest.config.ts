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
    // Guards against a journey that hangs, not budgets: a busy runner is many times slower (issue 39).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // A page on a busy 2-core CI machine can take many seconds to appear; polls wait for it (a bound
    // against a page that never comes, not a budget of the work).
    expect: { poll: { timeout: 120_000, interval: 100 } },
  },
});
