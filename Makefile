# Gasoline. `make run` brings up a demo; `make test` runs everything,
# end to end in real Chromium included. See README.md.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
LDFLAGS := -X github.com/gasoline-mcp/gasoline/internal/version.Version=$(VERSION)
CHROMIUM ?= /usr/lib/chromium/chromium

.PHONY: all build test unit e2e lint run bench chromium vet fuzz soak

all: build

# build: gasoline-host (every mode) and gasoline-mcp (the stdio relay
# alone, what agents' configs run; it starts gasoline-host beside it).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/gasoline-host ./host
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/gasoline-mcp ./mcp

vet:
	$(GO) vet ./...
	@unformatted=$$(git ls-files '*.go' | xargs gofmt -l); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

# test: everything. Unit tests first (fast feedback), then the JS unit
# tests, then end to end in real Chromium, then the MCP conformance suite.
test: chromium sshd lint
	$(GO) test -race -count=1 ./...
	node --test extension/tests/
	$(MAKE) --no-print-directory conformance
	$(MAKE) --no-print-directory clients

unit:
	$(GO) test -race -count=1 -short ./...

# e2e: only the real-Chromium tests.
e2e: chromium sshd
	$(GO) test -count=1 -run 'E2E' -v ./internal/e2e/...

lint: vet bench-lint
	bash tools/jslint/run.sh
	$(MAKE) --no-print-directory shellcheck crossbuild-check

# bench: Go benchmarks; the end-to-end ones run the real chain in Chromium
# (200 calls after warm-up, p50/p95 reported beside ns/op; 20 for analyze,
# whose axe-core audit of the large page takes seconds).
BENCH_PKGS ?= ./host/ ./mcp/ ./internal/nativemsg/ ./internal/capture/ ./internal/mcpserver/... ./internal/redact/... ./internal/approval/...
bench: chromium sshd bench-e2e
	@mkdir -p out
	$(GO) test -run '^$$' -bench . -skip 'Flood|E2EAnalyze|E2ESoak|E2EClickSettle' -benchtime 200x ./internal/e2e/ | tee out/bench-e2e.txt
	$(GO) test -run '^$$' -bench Flood -benchtime 1x ./internal/e2e/ | tee -a out/bench-e2e.txt
	$(GO) test -run '^$$' -bench 'E2EAnalyze|E2EClickSettle' -benchtime 20x ./internal/e2e/ | tee -a out/bench-e2e.txt
	$(GO) test -run '^$$' -bench . -benchtime 1s $(BENCH_PKGS) | tee out/bench-unit.txt

# soak: 4 agents (2 HTTP, 2 stdio) making mixed calls in the real browser,
# and a fifth that starts a session and a tab each round and ends both, for
# SOAK (a Go duration; default 2m): calls, errors, p50/p95 per mode, the
# daemon's resident memory, live heap and store sizes every SOAK_SAMPLE, a
# verdict comparing the first and last thirds, in out/soak.txt; heap
# profiles at 10 minutes (or a third) and at the end in out/.
SOAK ?= 2m
SOAK_SAMPLE ?= 10s
soak: chromium
	@mkdir -p out
	GASOLINE_SOAK=$(SOAK) GASOLINE_SOAK_SAMPLE=$(SOAK_SAMPLE) GASOLINE_SOAK_OUT=$(CURDIR)/out $(GO) test -run '^$$' -bench E2ESoak -benchtime 1x -timeout 0 ./internal/e2e/ | tee out/soak.txt

# fuzz: every Fuzz target in the module, one after the other, FUZZTIME
# each. tools/fuzz/fuzz.sh finds them (go test -list), so a new target
# needs no edit here. FUZZFLAGS passes more go test flags.
FUZZTIME ?= 15s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZFLAGS='$(FUZZFLAGS)' bash tools/fuzz/fuzz.sh

run:
	bash scripts/run.sh

# chromium: make sure Debian's Chromium is there. Installs it when missing
# and running as root; otherwise says how. In CI a missing browser fails.
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian chromium (apt-get)..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "Chromium not found at $(CHROMIUM): run 'sudo apt-get install chromium' (or set CHROMIUM=...)" >&2; exit 1; \
	  fi; \
	fi
	@test -x "$(CHROMIUM)" || { echo "Chromium still missing at $(CHROMIUM)" >&2; exit 1; }

-include mk/*.mk
