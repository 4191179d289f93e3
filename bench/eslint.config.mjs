// ESLint flat config for bench/ (Node ESM), run by `make bench-lint` with
// tools/jslint's ESLint; its packages are imported from there.
import js from '../tools/jslint/node_modules/@eslint/js/src/index.js';
import globals from '../tools/jslint/node_modules/globals/index.js';

export default [
  { ignores: ['**/node_modules/**', 'bench/results/**', 'bench/pages/**'] },
  {
    files: ['bench/**/*.mjs'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      ...js.configs.recommended.rules,
      eqeqeq: ['error', 'smart'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
];
