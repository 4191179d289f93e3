# bench-e2e (issues 9, 35): Gasoline side by side with Playwright MCP,
# chrome-devtools-mcp and agent-browser, end to end through the official MCP
# client, on the same pages and the same Debian Chromium. Installs bench/'s
# pinned npm packages (bench/package-lock.json; agent-browser's ships its
# native binaries; the product ships no Node), builds
# gasoline-host, and writes bench/results/<date>-<sha>.md. Never fails on
# the numbers; only a broken harness fails it. BENCH_N=5 for a quick look.
# The lead's `bench` target should depend on bench-e2e.
BENCH_N ?= 30
BENCH_WARM ?= 3

BENCH_K ?= 3

.PHONY: bench-e2e bench-deps bench-lint bench-lcp

bench-deps:
	cd bench && npm ci --no-audit --no-fund --loglevel=error

bench-e2e: chromium bench-deps
	CHROMIUM=$(CHROMIUM) node bench/run.mjs --n $(BENCH_N) --warm $(BENCH_WARM)

# bench-lcp (issue 32): analyze performance_trace beside chrome-devtools-mcp's
# trace insight on testdata/pages/devtools/slow.html, BENCH_K reloads each;
# writes bench/results/lcp-<date>-<sha>.md (same LCP element? medians
# within 10%?).
bench-lcp: chromium bench-deps
	CHROMIUM=$(CHROMIUM) node bench/lcp.mjs --k $(BENCH_K)

# bench-lint: ESLint and Prettier from tools/jslint over bench/.
bench-lint:
	@test -d tools/jslint/node_modules || (cd tools/jslint && npm ci --silent --no-audit --no-fund)
	tools/jslint/node_modules/.bin/eslint -c bench/eslint.config.mjs --max-warnings 0 bench/
	tools/jslint/node_modules/.bin/prettier --config tools/jslint/prettier.config.mjs --ignore-path bench/.prettierignore --check bench/
