#!/bin/sh
# Removes what install.sh installed: same as install.sh --uninstall.
#   installer/uninstall.sh [--yes] [--purge] [--bin-dir DIR] [--no-service]
set -eu
exec "$(dirname -- "$0")/install.sh" --uninstall "$@"
