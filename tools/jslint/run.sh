#!/usr/bin/env bash
# Lints and format-checks extension/ (ESLint, flat config, then Prettier)
# and lints the scripts the daemon injects into pages (internal/**/*.js)
# with the same rules (ESLint).
# Usage: tools/jslint/run.sh            (from anywhere)
#        tools/jslint/run.sh --fix      (rewrite formatting, apply lint fixes)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ ! -d "$here/node_modules" ]]; then
  (cd "$here" && npm ci --silent --no-audit --no-fund)
fi
bin="$here/node_modules/.bin"
cd "$root"
if [[ "${1:-}" == "--fix" ]]; then
  "$bin/prettier" --config "$here/prettier.config.mjs" --write extension/
  "$bin/eslint" -c "$here/eslint.config.mjs" --fix extension/
fi
"$bin/eslint" -c "$here/eslint.config.mjs" --max-warnings 0 extension/ internal/
"$bin/prettier" --config "$here/prettier.config.mjs" --check extension/
