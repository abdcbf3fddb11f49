// The page's lint rules (eslint's recommended set, and a few that keep a plain-module page honest),
// run by ./run test as the suite page_lint: node_modules/.bin/eslint -c web/page/eslint.config.mjs web/page
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['dist/**'] },
  js.configs.recommended,
  {
    files: ['**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.browser },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-eval': 'error',  // the CSP refuses eval; nothing should try it
      'no-implied-eval': 'error',
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // the workers: a worker's globals, not a window's
    files: ['worker.mjs', 'module-worker.mjs'],
    languageOptions: { globals: { ...globals.worker } },
  },
];
