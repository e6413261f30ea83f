// ESLint's flat config for every JS file of the kit (ctest lint_js, tests/lint).
// One rule set, eslint's recommended one, with the globals each file's
// runtime really has: Node everywhere (the stress drivers and tests also run
// under Bun and Deno, which provide node:* and these globals), plus Bun and
// Deno where a file branches on them, and the browser for the report page.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['build*/**', 'node_modules/**'] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.node, Bun: 'readonly', Deno: 'readonly' },
    },
    rules: {
      // An unused catch binding or a placeholder parameter (`_x`) is deliberate.
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  // The HTML report's script runs in the page, after the inlined uPlot.
  { files: ['stress/report/page.js'], languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } } },
  // The browser test's functions passed to page.evaluate() run in the page.
  { files: ['tests/report/*.js'], languageOptions: { globals: { ...globals.browser, ...globals.node } } },
];
