# jupyter (issue 28): the real-app suite (internal/e2e, TestE2ERealApp*)
# drives Debian's classic Jupyter Notebook. Installed with apt-get when
# missing and running as root, like the chromium target, with
# --no-install-recommends (81 packages; none pulls in Debian's nodejs,
# which would replace the machine's Node). In CI a missing notebook fails
# the suite; elsewhere the suite skips and says to run `make jupyter`.
JUPYTER ?= /usr/bin/jupyter-notebook

.PHONY: jupyter
jupyter:
	@if [ ! -x "$(JUPYTER)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian jupyter-notebook (apt-get, no recommends)..."; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends jupyter-notebook >/dev/null; } || exit 1; \
	  else \
	    echo "jupyter-notebook not found at $(JUPYTER): run 'sudo apt-get install --no-install-recommends jupyter-notebook'" >&2; exit 1; \
	  fi; \
	fi
	@test -x "$(JUPYTER)" || { echo "jupyter-notebook still missing at $(JUPYTER)" >&2; exit 1; }

test e2e: jupyter

# bench-realapp: the real-app side by side (bench/realapp.mjs): a scripted
# agent does the suite's four Jupyter tasks through Gasoline's tools
# (default policy, the harness approving each prompt) and Playwright MCP's,
# counting tool calls, KiB of text returned and prompts per task; writes
# bench/results/realapp-<date>.md. Never fails on the numbers.
.PHONY: bench-realapp
bench-realapp: chromium jupyter bench-deps
	CHROMIUM=$(CHROMIUM) node bench/realapp.mjs

bench: bench-realapp
