# MCP surface (issue 3): the official MCP conformance suite against /mcp of
# a real daemon, through a loopback proxy that adds the bearer token (see
# internal/mcpserver/conformance_test.go). The first run installs the
# suite's pinned npm packages into $(MCP_CONFORMANCE_DIR)/node_modules.
MCP_CONFORMANCE_DIR ?= $(abspath $(CURDIR)/../shared/tools/mcp-conformance)

.PHONY: conformance golden-update

conformance:
	GASOLINE_CONFORMANCE=1 MCP_CONFORMANCE_RUN=$(MCP_CONFORMANCE_DIR)/run.sh \
	  $(GO) test -count=1 -run '^TestConformance$$' -v ./internal/mcpserver/

# golden-update rewrites testdata/mcp/*.txtar from a stdio run (review the diff).
golden-update:
	$(GO) test -count=1 -run '^TestGolden$$' ./internal/mcpserver/ -update
