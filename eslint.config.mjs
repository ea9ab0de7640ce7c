// Lint: `npm run lint` (eslint --max-warnings 0), run by .ci/run before the tests.
// TypeScript gets typescript-eslint's type-checked recommended rules; the plain .mjs/.js
// scripts get ESLint's recommended rules with Node's globals.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Node's globals, listed here because the `globals` package is not a dependency.
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Blob',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextDecoder',
    'TextEncoder',
    'Headers',
    'Request',
    'Response',
    'FormData',
    'fetch',
    'crypto',
    'performance',
    'console',
    'process',
    'global',
    'queueMicrotask',
    'structuredClone',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'atob',
    'btoa',
  ].map((name) => [name, 'readonly']),
);

// Rule options shared by sources and tests.
const tsRules = {
  // `const { secret: _s, ...rest } = row` is how a field is dropped from a copy, and a callback
  // may have to declare a parameter it does not read (Express tells an error handler by its four).
  '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
  // Passing on a caught error or an abort signal's reason as it came is right (as `throw error`
  // in a catch is); a rejection the code makes itself must still be an Error.
  '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
};

export default defineConfig(
  globalIgnores([
    '**/node_modules/**',
    '**/dist/**',
    'coverage/**',
    'data/**',
    'bench/out/**',
    'docs/**',
    '**/*.d.mts',
    'packages/client/test/.readme-*/**',
    'packages/server/test/.codegen-*/**',
  ]),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },

  // Plain JavaScript: the scripts, the benchmarks, the CLI entry and the audit verifier.
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: nodeGlobals },
  },

  // TypeScript sources: the packages' own tsconfigs, found by the project service.
  {
    files: ['packages/*/src/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: tsRules,
  },

  // Tests and the vitest config: not in any package tsconfig, so tsconfig.test.json.
  {
    files: ['packages/*/test/**/*.ts', 'vitest.config.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      ...tsRules,
      // Tests read JSON response bodies (typed `any` by the harness) and assert on their shape;
      // typing each body would add casts, not safety. Every other rule stays on for tests.
      '@typescript-eslint/no-unsafe-member-access': 'off', // body.result.id
      '@typescript-eslint/no-unsafe-assignment': 'off', // const { id } = body.result
      '@typescript-eslint/no-unsafe-argument': 'off', // post(key, 'books.invoiceSend', { id: draft.id })
      '@typescript-eslint/no-unsafe-call': 'off', // body.invoices.map(…)
      '@typescript-eslint/no-unsafe-return': 'off', // helpers that hand a body on
      '@typescript-eslint/no-explicit-any': 'off', // the bodies' own type, and deliberately malformed params
    },
  },
);
