# replay: the npm tooling that replays generated Playwright reproductions
# in Debian Chromium (tools/replay; tests only, the product ships no Node).
# `make test` and `make e2e` install it first, so the export end-to-end
# tests run; outside CI they skip when it is missing, in CI they fail.
.PHONY: replay-deps
replay-deps:
	@test -d tools/replay/node_modules/playwright-core || (cd tools/replay && npm ci --no-audit --no-fund --loglevel=error)

test: replay-deps
e2e: replay-deps
