// ESLint flat config for extension/. Run from the repository root with
// `-c tools/jslint/eslint.config.mjs` (run.sh does) so paths below are
// relative to the root.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['**/node_modules/**', 'extension/vendor/**'] },
  {
    files: ['extension/**/*.js', 'extension/**/*.mjs'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: {
        ...globals.browser,
        ...globals.serviceworker,
        ...globals.webextensions,
      },
    },
    rules: {
      ...js.configs.recommended.rules,
      eqeqeq: ['error', 'smart'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "AssignmentExpression[left.property.name='innerHTML']",
          message: 'Render data with textContent, never innerHTML.',
        },
      ],
    },
  },
  {
    files: ['extension/tests/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
];
