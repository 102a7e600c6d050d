import { defineConfig } from 'vitest/config';

/**
 * Workspace packages are tested from their TypeScript sources: the SDK's package.json sends this
 * condition to `src/`, its published entries are the compiled `dist/` (see packages/sdk/README.md).
 */
export const SOURCE_CONDITIONS = ['@license-manager/source', 'module', 'node', 'development|production'];

/**
 * Three projects (the third, `kit`, is the clients' conformance kit in clients/kit): `unit` (pure code: contract, sdk, `*.unit.test.ts` in the server) and `server` (the
 * Fastify app through app.inject, every suite on SQLite and on PostgreSQL; see
 * packages/server/test/harness.ts). Server files open databases and hash passwords with argon2, so at
 * most two files run at once: enough for a 2-core machine without starving it.
 */
export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    // One value for both projects: Vitest refuses projects with different maxWorkers in one run
    // unless they are ordered into groups, and the unit files are too quick to need more.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/contract/**/*.test.ts', 'packages/sdk/**/*.test.ts', 'packages/server/src/**/*.unit.test.ts', 'packages/web/src/**/*.test.ts', 'scripts/**/*.unit.test.ts'],
          exclude: ['**/node_modules/**'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['packages/server/test/**/*.test.ts', 'packages/server/src/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'packages/server/**/*.unit.test.ts'],
          environment: 'node',
          pool: 'forks',
          // Guards against a test that hangs, not budgets of the work: a busy 2-core runner takes many
          // times as long as an idle one (issue 39), and a test fails by its assertions, not its pace.
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        extends: true,
        test: {
          // The conformance kit (clients/kit/README.md): real server processes and each client's harness.
          name: 'kit',
          include: ['clients/kit/**/*.kit.test.ts'],
          exclude: ['**/node_modules/**'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
