# Remote agents and MCP clients (issue 34).
#
# sshd: Debian's OpenSSH server and client, for the remote-agent tests
# (internal/e2e starts its own sshd on a loopback port with its own keys
# and config; the system's sshd is never started or used). Installed when
# missing and running as root, with a policy-rc.d that keeps apt from
# starting the system service; otherwise says how. The tests skip without
# it outside CI and fail in CI.
#
# clients: the MCP clients whose CLIs run without a model (Claude Code,
# Codex, Gemini CLI, the MCP Inspector), pinned in tools/clients, and the
# test that runs every config `gasoline-host mcp-config` prints in its
# client (internal/mcpconfig/clients_test.go). npm ci takes ~1.5-2 min on
# a fresh machine (~1 GB of node_modules, tooling only).

.PHONY: sshd clients clients-deps

sshd:
	@if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian openssh-server and openssh-client (apt-get; the system sshd is not started)..."; \
	    rc=/usr/sbin/policy-rc.d; made=; \
	    if [ ! -e $$rc ]; then printf '#!/bin/sh\nexit 101\n' > $$rc; chmod 755 $$rc; made=1; fi; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-client >/dev/null; st=$$?; \
	    if [ -n "$$made" ]; then rm -f $$rc; fi; \
	    exit $$st; \
	  elif [ -n "$$CI" ]; then \
	    echo "OpenSSH missing: the remote-agent tests need openssh-server and openssh-client" >&2; exit 1; \
	  else \
	    echo "OpenSSH not found: the remote-agent tests will skip; run 'sudo apt-get install openssh-server openssh-client'" >&2; \
	  fi; \
	fi

clients-deps:
	cd tools/clients && npm ci --no-audit --no-fund --loglevel=error

clients: clients-deps
	GASOLINE_CLIENTS=1 $(GO) test -count=1 -run '^TestPrintedConfigsWorkInTheirClients$$' -v ./internal/mcpconfig/
