# Tools `make test` calls that a fresh Debian machine may lack. Each is
# installed with apt-get when missing and running as root (as the chromium
# target does); otherwise the target says how to install it and fails.
APT_TOOLS := shellcheck zip

.PHONY: tools $(addprefix tool-,$(APT_TOOLS))
tools: $(addprefix tool-,$(APT_TOOLS))

$(addprefix tool-,$(APT_TOOLS)): tool-%:
	@if ! command -v $* >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian $* (apt-get)..."; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $* >/dev/null; } || exit 1; \
	  else \
	    echo "$* not found: run 'sudo apt-get install $*'" >&2; exit 1; \
	  fi; \
	fi

shellcheck: tool-shellcheck
dist-extension: tool-zip
