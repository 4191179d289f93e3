#!/usr/bin/env bash
# Copies the browser libraries the extension uses into extension/vendor/,
# each with its licence: axe-core (analyze accessibility) and xterm.js with
# its fit addon (the panel's terminal). Installs the pinned versions from
# package-lock.json first when they are missing. extension/vendor/ is
# generated (git-ignored); `make vendor` runs this, and `make build`,
# `make test`, `make e2e`, `make run` and `make dist` depend on it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ ! -d "$here/node_modules/axe-core" || ! -d "$here/node_modules/@xterm/xterm" || ! -d "$here/node_modules/@xterm/addon-fit" ]]; then
  (cd "$here" && npm ci --silent --no-audit --no-fund)
fi
nm="$here/node_modules"
out="$root/extension/vendor"
tmp="$(mktemp -d "$root/extension/.vendor.XXXXXX")"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/axe" "$tmp/xterm"
cp "$nm/axe-core/axe.min.js" "$nm/axe-core/LICENSE" "$tmp/axe/"
cp "$nm/axe-core/LICENSE-3RD-PARTY.txt" "$tmp/axe/"
cp "$nm/@xterm/xterm/lib/xterm.mjs" "$nm/@xterm/xterm/css/xterm.css" "$tmp/xterm/"
cp "$nm/@xterm/xterm/LICENSE" "$tmp/xterm/LICENSE"
cp "$nm/@xterm/addon-fit/lib/addon-fit.mjs" "$tmp/xterm/"
cp "$nm/@xterm/addon-fit/LICENSE" "$tmp/xterm/LICENSE-addon-fit"
node -e '
const fs = require("fs");
const v = (p) => JSON.parse(fs.readFileSync(p + "/package.json")).version;
const nm = process.argv[1];
fs.writeFileSync(process.argv[2], JSON.stringify({
  "axe-core": v(nm + "/axe-core"),
  "@xterm/xterm": v(nm + "/@xterm/xterm"),
  "@xterm/addon-fit": v(nm + "/@xterm/addon-fit"),
}, null, 2) + "\n");
' "$nm" "$tmp/versions.json"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
