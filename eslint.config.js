// Lint rules that catch the bugs this codebase cares about: floating promises and type-only imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', '.bench-build/**', 'node_modules/**', 'coverage/**', 'bin/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The sandbox page's browser modules: plain JavaScript served as is (no build step), so no type information.
    files: ['packages/sim/src/page/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        [
          'document',
          'window',
          'location',
          'sessionStorage',
          'fetch',
          'EventSource',
          'CSS',
          'URL',
          'setTimeout',
          'clearTimeout',
          'console',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
);
