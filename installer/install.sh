#!/bin/sh
# Gasoline installer for Linux and macOS.
#
#   installer/install.sh [--yes] [--bin-dir DIR] [--binary PATH] [--no-service]
#   installer/install.sh --uninstall [--yes] [--purge] [--bin-dir DIR] [--no-service]
#
# Install: puts gasoline-host and gasoline-mcp (the stdio server agents run)
# in a user bin folder (built from source when run from a checkout, else the
# binaries next to this script, or next to --binary), registers the
# native-messaging host for the browsers found, installs and starts the user
# service (tolerating a machine without one), and prints the next steps.
# Uninstall reverses each step; --purge also deletes the state folder.
#
# Environment:
#   GASOLINE_BIN_DIR=DIR      same as --bin-dir (default ~/.local/bin)
#   GASOLINE_BIN=PATH         same as --binary: install this gasoline-host (and the
#                             gasoline-mcp beside it), do not build
#   GASOLINE_SKIP_SERVICE=1   same as --no-service: leave the OS service alone
#                             (tests set it so no real service is started)
#   GASOLINE_HOME, XDG_STATE_HOME, XDG_CONFIG_HOME are honoured as gasoline-host does.
set -eu

say() { printf '%s\n' "$*"; }
warn() { printf 'install.sh: %s\n' "$*" >&2; }
die() {
	warn "$*"
	exit 1
}

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}

script_dir=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
repo_root=$(dirname -- "$script_dir")

mode=install
yes=0
purge=0
bin_dir=${GASOLINE_BIN_DIR:-}
binary=${GASOLINE_BIN:-}
skip_service=${GASOLINE_SKIP_SERVICE:-0}

while [ $# -gt 0 ]; do
	case $1 in
	--yes | -y) yes=1 ;;
	--uninstall) mode=uninstall ;;
	--purge) purge=1 ;;
	--no-service) skip_service=1 ;;
	--bin-dir)
		[ $# -ge 2 ] || die "--bin-dir needs a folder"
		bin_dir=$2
		shift
		;;
	--bin-dir=*) bin_dir=${1#--bin-dir=} ;;
	--binary)
		[ $# -ge 2 ] || die "--binary needs a path"
		binary=$2
		shift
		;;
	--binary=*) binary=${1#--binary=} ;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown option: $1 (see --help)" ;;
	esac
	shift
done

[ -n "${HOME:-}" ] || die "HOME is not set"

os=$(uname -s)
case $os in
Linux | Darwin) ;;
*) die "this script supports Linux and macOS; on Windows use installer/install.ps1" ;;
esac

# The user bin folder: ~/.local/bin, or on macOS ~/bin when only that one is
# on PATH.
on_path() {
	case ":${PATH:-}:" in
	*":$1:"*) return 0 ;;
	esac
	return 1
}
if [ -z "$bin_dir" ]; then
	bin_dir=$HOME/.local/bin
	if [ "$os" = Darwin ] && ! on_path "$bin_dir" && on_path "$HOME/bin"; then
		bin_dir=$HOME/bin
	fi
fi
dest=$bin_dir/gasoline-host
slim_dest=$bin_dir/gasoline-mcp

# The state folder, as gasoline-host computes it (internal/state).
state_dir() {
	if [ -n "${GASOLINE_HOME:-}" ]; then
		printf '%s\n' "$GASOLINE_HOME"
	elif [ "$os" = Darwin ]; then
		printf '%s\n' "$HOME/Library/Application Support/Gasoline"
	else
		case ${XDG_STATE_HOME:-} in
		/*) printf '%s\n' "$XDG_STATE_HOME/gasoline" ;;
		*) printf '%s\n' "$HOME/.local/state/gasoline" ;;
		esac
	fi
}

confirm() {
	[ "$yes" = 1 ] && return 0
	if [ ! -t 0 ]; then
		die "no terminal to ask on; rerun with --yes"
	fi
	printf '%s [y/N] ' "$1"
	read -r answer || answer=
	case $answer in
	y | Y | yes | YES) return 0 ;;
	esac
	die "cancelled"
}

is_checkout() {
	[ -f "$repo_root/go.mod" ] && [ -d "$repo_root/host" ] &&
		grep -q '^module github.com/gasoline-mcp/gasoline$' "$repo_root/go.mod"
}

# put_file copies $1 to $2 through a temp file and a rename, so a running
# copy is never overwritten in place.
put_file() {
	tmp=$(dirname -- "$2")/.$(basename -- "$2").tmp.$$
	if ! { cp "$1" "$tmp" && chmod 755 "$tmp" && mv -f "$tmp" "$2"; }; then
		rm -f "$tmp"
		die "could not install $2"
	fi
	say "Installed $2"
}

# slim_beside prints the gasoline-mcp that ships beside the gasoline-host
# at $1 (gasoline-mcp, or gasoline-mcp-<os>-<arch> beside
# gasoline-host-<os>-<arch>), if there is one.
slim_beside() {
	d=$(dirname -- "$1")
	b=$(basename -- "$1")
	for candidate in "$d/$(printf '%s' "$b" | sed 's/gasoline-host/gasoline-mcp/')" "$d/gasoline-mcp"; do
		if [ "$candidate" != "$1" ] && [ -f "$candidate" ]; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done
	return 1
}

# put_binary installs gasoline-host at $dest and gasoline-mcp at $slim_dest.
put_binary() {
	mkdir -p "$bin_dir"
	if [ -z "$binary" ] && is_checkout && command -v go >/dev/null 2>&1; then
		say "Building gasoline-host and gasoline-mcp from $repo_root"
		build_dir=$(mktemp -d)
		trap 'rm -rf "$build_dir"' EXIT
		(cd "$repo_root" && go build -trimpath -o "$build_dir/gasoline-host" ./host && go build -trimpath -o "$build_dir/gasoline-mcp" ./mcp) ||
			die "go build failed"
		put_file "$build_dir/gasoline-host" "$dest"
		put_file "$build_dir/gasoline-mcp" "$slim_dest"
		rm -rf "$build_dir"
		trap - EXIT
		return 0
	fi
	if [ -n "$binary" ]; then
		[ -f "$binary" ] || die "no binary at $binary"
	else
		arch=$(uname -m)
		case $arch in
		x86_64 | amd64) arch=amd64 ;;
		arm64 | aarch64) arch=arm64 ;;
		esac
		goos=linux
		[ "$os" = Darwin ] && goos=darwin
		for candidate in "$script_dir/gasoline-host" "$script_dir/gasoline-host-$goos-$arch"; do
			if [ -f "$candidate" ]; then
				binary=$candidate
				break
			fi
		done
		[ -n "$binary" ] || die "no gasoline-host next to this script and not a checkout with Go installed; pass --binary PATH"
	fi
	say "Installing $binary"
	put_file "$binary" "$dest"
	if slim=$(slim_beside "$binary"); then
		put_file "$slim" "$slim_dest"
	else
		warn "no gasoline-mcp beside $binary: agents' configs will run $dest --mcp, which starts slower"
	fi
}

do_install() {
	confirm "Install gasoline-host and gasoline-mcp into $bin_dir and register them with your browsers?"
	put_binary

	say ""
	say "Registering the native-messaging host:"
	if ! "$dest" install; then
		warn "no browser registered; once one is installed, run: $dest install (or --browser chrome|chromium|edge|brave|all)"
	fi

	say ""
	if [ "$skip_service" = 1 ]; then
		say "Skipping the OS service (GASOLINE_SKIP_SERVICE=1 or --no-service)."
	elif "$dest" service install && "$dest" service start; then
		:
	else
		warn "no autostart service (see above); the daemon starts on demand when Chrome or an MCP client needs it"
	fi

	next_steps
}

next_steps() {
	say ""
	say "Next steps"
	say ""
	say "1. Load the extension: open chrome://extensions, turn on Developer mode,"
	if is_checkout && [ -f "$repo_root/extension/manifest.json" ]; then
		say "   click \"Load unpacked\" and choose $repo_root/extension"
	else
		say "   click \"Load unpacked\" and choose the unzipped gasoline-extension folder"
	fi
	say "   (Edge: edge://extensions, Brave: brave://extensions)."
	say ""
	say "2. Connect your agent (stdio is recommended). Run '$dest mcp-config --client NAME'"
	say "   for one client (claude, codex, gemini, cursor, json):"
	say ""
	"$dest" mcp-config | sed 's/^/   /'
	say ""
	say "3. Check everything: $dest doctor"
	if ! on_path "$bin_dir"; then
		say ""
		say "Note: $bin_dir is not on your PATH; add it to use 'gasoline-host' by name."
	fi
}

# stop_daemon ends a running daemon started from this install (its pid is in
# the state file), checking the process really is gasoline-host.
stop_daemon() {
	state_file=$(state_dir)/state.json
	[ -f "$state_file" ] || return 0
	pid=$(sed -n 's/.*"pid":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$state_file")
	[ -n "$pid" ] || return 0
	comm=$(ps -p "$pid" -o comm= 2>/dev/null || true)
	case $comm in
	*gasoline-host*)
		say "Stopping the daemon (pid $pid)"
		kill -TERM "$pid" 2>/dev/null || true
		;;
	esac
}

do_uninstall() {
	host=$dest
	if [ ! -x "$host" ]; then
		host=$(command -v gasoline-host 2>/dev/null || true)
	fi
	if [ -z "$host" ] || [ ! -x "$host" ]; then
		die "gasoline-host is not in $bin_dir nor on PATH; nothing to uninstall with"
	fi
	confirm "Remove gasoline-host ($host), its browser registrations and its service?"

	if [ "$skip_service" = 1 ]; then
		say "Skipping the OS service (GASOLINE_SKIP_SERVICE=1 or --no-service)."
	else
		"$host" service uninstall || warn "could not remove the service (see above)"
	fi
	stop_daemon

	say "Removing the native-messaging host registrations:"
	"$host" uninstall || warn "some registrations could not be removed (see above)"

	if [ "$host" = "$dest" ]; then
		rm -f "$dest"
		say "Removed $dest"
		if [ -f "$slim_dest" ]; then
			rm -f "$slim_dest"
			say "Removed $slim_dest"
		fi
		# The bin folder goes too if this left it empty (ours or not, an
		# empty folder holds nothing).
		if rmdir "$bin_dir" 2>/dev/null; then
			say "Removed empty folder $bin_dir"
		fi
	else
		say "Left $host in place (not installed by this script in $bin_dir)."
	fi

	dir=$(state_dir)
	if [ "$purge" = 1 ]; then
		case $dir in
		*/gasoline | */Gasoline | "${GASOLINE_HOME:-/nonexistent}")
			if [ -d "$dir" ]; then
				rm -rf "$dir"
				say "Removed the state folder $dir"
				# Its parent (~/.local/state) goes too if that left it empty.
				rmdir "$(dirname "$dir")" 2>/dev/null || true
			fi
			;;
		*) warn "not purging unexpected state folder $dir" ;;
		esac
	elif [ -d "$dir" ]; then
		say "Kept your state, logs, policy and credentials in $dir (--purge removes them)."
	fi
	# ~/.local goes too if nothing of anyone's is left in it.
	rmdir "$HOME/.local" 2>/dev/null || true
}

case $mode in
install) do_install ;;
uninstall) do_uninstall ;;
esac
