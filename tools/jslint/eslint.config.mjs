// ESLint flat config for extension/ and the scripts the daemon injects
// into pages (internal/**/*.js). Run from the repository root with
// `-c tools/jslint/eslint.config.mjs` (run.sh does) so paths below are
// relative to the root.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import globals from 'globals';

// The injected scripts are not modules: the daemon sends each one as
// script text, and several files of one package are joined into one
// script (internal/visible's three, analyze's helpers before each mode's
// function). A file may therefore use what its package's other files
// declare at top level; names the daemon puts in from Go strings are
// listed here with where they come from.
const injected = {
  gasolineSecret: 'readonly', // internal/sensitive (sensitive.JS)
  gasolineSecretIn: 'readonly', // internal/sensitive
  gasolineSecretTest: 'readonly', // internal/sensitive
  gasolineRefOf: 'readonly', // internal/snapshot (RefOfJS)
  MASK: 'readonly', // internal/analyze (script's wrapper)
  axe: 'readonly', // extension/vendor/axe, injected by cdp.inject
};

const topLevel =
  /^(?:const|let|var|function\*?|async function|class)\s+([A-Za-z_$][\w$]*)/gm;

// siblings are the top-level names the other .js files of dir declare.
function siblings(dir, file) {
  const out = {};
  for (const f of fs.readdirSync(dir)) {
    if (!f.endsWith('.js') || f === file) continue;
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(topLevel)) out[m[1]] = 'readonly';
  }
  return out;
}

// pageScripts is one config block per injected script.
function pageScripts(root) {
  const blocks = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js')) {
        blocks.push({
          files: [p],
          languageOptions: {
            ecmaVersion: 'latest',
            sourceType: 'script',
            globals: {
              ...globals.browser,
              ...injected,
              ...siblings(dir, e.name),
            },
          },
          rules: {
            ...js.configs.recommended.rules,
            ...rules,
            // A top-level name may be used by another file of the script.
            'no-unused-vars': [
              'error',
              { vars: 'local', argsIgnorePattern: '^_' },
            ],
            'no-empty': ['error', { allowEmptyCatch: true }],
          },
        });
      }
    }
  };
  walk(root);
  return blocks;
}

const rules = {
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
};

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
    rules: { ...js.configs.recommended.rules, ...rules },
  },
  {
    files: ['extension/tests/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  ...pageScripts('internal'),
];
