# Distribution, cross-platform checks and shell linting; included by the
# top-level Makefile (include mk/*.mk). The lead's Makefile owns build, test,
# run, lint and e2e; `lint` should also run `shellcheck` and
# `crossbuild-check` below, and `run` is `sh scripts/run.sh`.

DIST ?= dist
DIST_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST_LDFLAGS := -s -w -X github.com/gasoline-mcp/gasoline/internal/version.Version=$(VERSION)
SHELL_SCRIPTS = $(shell find . -name '*.sh' -not -path './.git/*' -not -path '*/node_modules/*' -not -path './$(DIST)/*')

.PHONY: dist dist-binaries dist-extension crossbuild-check shellcheck

# dist: gasoline-host and gasoline-mcp for every platform, the extension
# zip, the installers (install.sh finds gasoline-host-<os>-<arch> and
# gasoline-mcp-<os>-<arch> next to itself) and SHA256SUMS.
dist: dist-binaries dist-extension
	cp installer/install.sh installer/uninstall.sh installer/install.ps1 installer/uninstall.ps1 $(DIST)/
	cd $(DIST) && { sha256sum gasoline-* *.sh *.ps1 2>/dev/null || shasum -a 256 gasoline-* *.sh *.ps1; } > SHA256SUMS
	@echo "dist: $(DIST)/ ready for version $(VERSION)"

dist-binaries:
	@mkdir -p $(DIST)
	@set -e; for p in $(DIST_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; \
		if [ "$$os" = windows ]; then ext=.exe; fi; \
		for b in host mcp; do \
			out=$(DIST)/gasoline-$$b-$$os-$$arch$$ext; \
			echo "go build $$out"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags '$(DIST_LDFLAGS)' -o $$out ./$$b; \
		done; \
	done

# The unpacked extension as shipped: its manifest keeps the public "key", so
# it installs under the pinned ID the native-host manifests allow. The
# private key is never in the tree. Tests stay out.
dist-extension:
	@mkdir -p $(DIST)
	rm -f $(DIST)/gasoline-extension-$(VERSION).zip
	cd extension && zip -q -r -X $(abspath $(DIST))/gasoline-extension-$(VERSION).zip . -x 'tests/*' -x '.*' -x '*/.*'
	@echo "wrote $(DIST)/gasoline-extension-$(VERSION).zip"

# The Windows and macOS builds compile and vet clean (run on Linux in CI);
# ./... holds both binaries; gasoline-mcp is linked by name too.
crossbuild-check:
	GOOS=windows GOARCH=amd64 go vet ./...
	GOOS=windows GOARCH=amd64 go build ./...
	GOOS=windows GOARCH=amd64 go build -o /dev/null ./mcp
	GOOS=darwin GOARCH=arm64 go vet ./...
	GOOS=darwin GOARCH=arm64 go build ./...
	GOOS=darwin GOARCH=arm64 go build -o /dev/null ./mcp

shellcheck:
	shellcheck $(SHELL_SCRIPTS)
