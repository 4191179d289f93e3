#!/bin/sh
# make run: build gasoline-host and gasoline-mcp, make sure the daemon is up, and open a
# browser with a dedicated profile, the extension loaded and the native host
# registered in that profile, on the demo page from testdata/. Headless when
# there is no display. Ctrl-C closes the browser and the demo server and
# leaves the daemon running.
#
#   scripts/run.sh          start (or reuse) everything
#   scripts/run.sh --stop   stop the daemon this script started
#
# Environment:
#   GASOLINE_RUN_DIR   profile, logs and pids (default ~/.cache/gasoline-run)
#   GASOLINE_PORT      daemon port (default 7890)
#   GASOLINE_DEMO_PORT port of the demo page server (default 8765)
#   GASOLINE_BROWSER   browser binary to use instead of searching
#   GASOLINE_HEADLESS  1 or 0 to force headless on or off
set -eu

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
run_dir=${GASOLINE_RUN_DIR:-$HOME/.cache/gasoline-run}
profile=$run_dir/profile
port=${GASOLINE_PORT:-7890}
web_port=${GASOLINE_DEMO_PORT:-8765}
bin=$root/bin/gasoline-host
ext=$root/extension
demo_url=http://127.0.0.1:$web_port/demo.html

say() { printf '%s\n' "$*"; }
die() {
	printf 'run.sh: %s\n' "$*" >&2
	exit 1
}

healthy() {
	curl -fsS --max-time 2 "http://127.0.0.1:$port/health" 2>/dev/null | grep -q '"service-name":"gasoline"'
}

# is_ours PID NAME: the process exists and its command name contains NAME.
is_ours() {
	case $(ps -p "$1" -o comm= 2>/dev/null || true) in
	*"$2"*) return 0 ;;
	esac
	return 1
}

stop_daemon() {
	pidfile=$run_dir/daemon.pid
	if [ -f "$pidfile" ] && pid=$(cat "$pidfile") && is_ours "$pid" gasoline-host; then
		kill -TERM "$pid"
		say "Stopped the daemon (pid $pid)."
	else
		say "No daemon started by run.sh is running."
	fi
	rm -f "$pidfile"
}

if [ "${1:-}" = --stop ]; then
	stop_daemon
	exit 0
elif [ $# -gt 0 ]; then
	die "unknown argument: $1 (use --stop, or no argument)"
fi

command -v go >/dev/null 2>&1 || die "Go is needed to build gasoline-host and gasoline-mcp"
command -v curl >/dev/null 2>&1 || die "curl is needed to check the daemon"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to serve the demo page"

# 1. Build.
say "Building $bin and $root/bin/gasoline-mcp (the stdio server the printed configs run)"
(cd "$root" && go build -o bin/gasoline-host ./host && go build -o bin/gasoline-mcp ./mcp)

# 2. Register the native host in the dedicated profile. The extension ID is
# pinned by the key in extension/manifest.json, so the manifest matches it.
mkdir -p "$profile/Default"
"$bin" install --browser chromium --user-data-dir "$profile"

# 3. The daemon: reuse a healthy one, else start it in the background.
if healthy; then
	say "Daemon already running on 127.0.0.1:$port"
else
	say "Starting the daemon (log: $run_dir/daemon.log)"
	# In a session of its own, so that Ctrl-C here does not reach it.
	nohup python3 -c 'import os, sys; os.setsid(); os.execv(sys.argv[1], sys.argv[1:])' \
		"$bin" daemon >"$run_dir/daemon.log" 2>&1 &
	echo $! >"$run_dir/daemon.pid"
	tries=0
	until healthy; do
		tries=$((tries + 1))
		[ $tries -le 50 ] || die "the daemon did not answer on 127.0.0.1:$port within 10 s; see $run_dir/daemon.log"
		sleep 0.2
	done
fi

# 4. The demo page.
web_pid=
if curl -fsS --max-time 2 "$demo_url" >/dev/null 2>&1; then
	say "Demo page already served at $demo_url"
else
	python3 -m http.server --bind 127.0.0.1 --directory "$root/testdata" "$web_port" >"$run_dir/web.log" 2>&1 &
	web_pid=$!
	tries=0
	until curl -fsS --max-time 2 "$demo_url" >/dev/null 2>&1; do
		tries=$((tries + 1))
		[ $tries -le 50 ] || die "the demo server did not start on port $web_port; see $run_dir/web.log"
		sleep 0.2
	done
fi

# 5. A browser: Chromium first (branded Chrome ignores --load-extension in
# recent versions), then Chrome; Debian's chromium is installed when none is
# found and we are root.
find_browser() {
	if [ -n "${GASOLINE_BROWSER:-}" ]; then
		printf '%s\n' "$GASOLINE_BROWSER"
		return
	fi
	for b in /usr/lib/chromium/chromium \
		"/Applications/Chromium.app/Contents/MacOS/Chromium" \
		chromium chromium-browser google-chrome google-chrome-stable \
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; do
		case $b in
		/*) [ -x "$b" ] && printf '%s\n' "$b" && return ;;
		*) command -v "$b" 2>/dev/null && return ;;
		esac
	done
	return 1
}
browser=$(find_browser || true)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	say "No Chromium or Chrome found; installing Debian's chromium"
	apt-get update && apt-get install -y chromium
	browser=$(find_browser || true)
fi
[ -n "$browser" ] || die "no Chromium or Chrome found; install one or set GASOLINE_BROWSER"

# First-run preferences: no "alternate error pages" lookups off the machine.
[ -f "$profile/Default/Preferences" ] ||
	printf '%s\n' '{"alternate_error_pages":{"enabled":false}}' >"$profile/Default/Preferences"

headless=${GASOLINE_HEADLESS:-}
if [ -z "$headless" ]; then
	headless=0
	if [ "$(uname -s)" = Linux ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
		headless=1
	fi
fi

set -- --user-data-dir="$profile" \
	--load-extension="$ext" --disable-extensions-except="$ext" \
	--disable-features=DisableLoadExtensionCommandLineSwitch,NetworkTimeServiceQuerying \
	--enable-features=WebMCP \
	--no-first-run --no-default-browser-check --disable-background-networking \
	--disable-component-update --disable-sync --disable-quic --disable-default-apps \
	--disable-domain-reliability --disable-client-side-phishing-detection \
	--metrics-recording-only --no-pings --disable-breakpad \
	"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1" \
	--component-updater=url-source=http://127.0.0.1:1/
[ "$headless" = 1 ] && set -- "$@" --headless=new
[ "$(id -u)" = 0 ] && set -- "$@" --no-sandbox
set -- "$@" "$demo_url"

say "Launching $browser$([ "$headless" = 1 ] && printf ' (headless)') (log: $run_dir/browser.log)"
"$browser" "$@" >"$run_dir/browser.log" 2>&1 &
browser_pid=$!

cleanup() {
	trap - INT TERM EXIT
	if kill -0 "$browser_pid" 2>/dev/null; then
		kill -TERM "$browser_pid" 2>/dev/null || true
		wait "$browser_pid" 2>/dev/null || true
	fi
	if [ -n "$web_pid" ]; then
		kill -TERM "$web_pid" 2>/dev/null || true
		wait "$web_pid" 2>/dev/null || true
	fi
	say ""
	say "Browser and demo server stopped; the daemon keeps running (scripts/run.sh --stop ends it)."
}
trap cleanup INT TERM EXIT

say ""
say "Gasoline is up: daemon on 127.0.0.1:$port, demo page at $demo_url"
case $browser in
*[Gg]oogle*[Cc]hrome*)
	say "Note: if Chrome ignored --load-extension, load $ext by hand: chrome://extensions,"
	say "Developer mode, Load unpacked."
	;;
esac
say ""
say "Connect an MCP client (more: $bin mcp-config --client codex|gemini|cursor|json):"
say ""
"$bin" mcp-config --client claude
say ""
say "Ctrl-C closes the browser and the demo server; the daemon stays up."
wait "$browser_pid" || true
