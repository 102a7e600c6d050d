import fs from 'node:fs';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const FEATURES_DIR = 'packages/web/src/features';
const features = fs.existsSync(FEATURES_DIR) ? fs.readdirSync(FEATURES_DIR).filter((name) => fs.statSync(`${FEATURES_DIR}/${name}`).isDirectory()) : [];

/** The modals provider mounts with the first dialog, so only its wrapper may send `modals.open…()`. */
const modalsThroughWrapper = {
  name: '@mantine/modals',
  message: 'Open dialogs through src/components/modals.tsx: the provider that shows them mounts with the first one.',
};

/** Web features do not import each other (DESIGN.md section 3): shared UI goes to src/components. */
const featureBoundaries = features.map((feature) => ({
  files: [`${FEATURES_DIR}/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [modalsThroughWrapper],
        patterns: features
          .filter((other) => other !== feature)
          .map((other) => ({
            group: [`../${other}/*`, `../../${other}/*`, `**/features/${other}/*`],
            message: 'Web features do not import each other; move what both need to src/components or src/lib.',
          })),
      },
    ],
  },
}));

export default tseslint.config(
  // CMake writes compiler_depend.ts files into its build folders (clients/c/build and the like).
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'bench/results/**',
      'e2e/screenshots/**',
      'packages/server/test/openapi-client/generated/**',
      'clients/node/.build/**',
      '**/CMakeFiles/**',
      'clients/c/build/**',
      'clients/java/target/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['packages/web/src/**/*.tsx', 'packages/web/src/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    files: ['packages/web/src/**/*.tsx', 'packages/web/src/**/*.ts'],
    ignores: ['packages/web/src/components/modals.tsx'],
    rules: { 'no-restricted-imports': ['error', { paths: [modalsThroughWrapper] }] },
  },
  {
    // Routes speak HTTP and call services; only services call repos.
    files: ['packages/server/src/modules/*/routes.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['./repo*', '../*/repo*'], message: 'Routes call services, not repos.' }] }],
    },
  },
  {
    // Repos hold SQL and nothing above it.
    files: ['packages/server/src/modules/*/repo.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['./service*', './routes*', '../*/service*', '../*/routes*'], message: 'Repos do not call services or routes.' }] },
      ],
    },
  },
  {
    // The contract is shared by server, web and SDK: it imports neither.
    files: ['packages/contract/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@lm/server*', '@lm/web*', '**/server/**', '**/web/**'], message: 'The contract imports nothing from server or web.' }] }],
    },
  },
  ...featureBoundaries,
);
