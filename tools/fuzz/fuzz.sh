#!/usr/bin/env bash
# fuzz.sh runs every Go fuzz target of the module, one after the other,
# each for FUZZTIME (default 15s). `go test -fuzz` takes one target per
# run, so the targets are found with `go test -list` in every package with
# a Fuzz function: a new target is picked up without editing anything.
# A failing input is kept under the package's testdata/fuzz/<Target>/ (go
# test writes it there); commit it with the fix, and `go test` replays it.
#
# Usage: tools/fuzz/fuzz.sh [package dir...]   (default: the whole module)
# Environment: GO (go), FUZZTIME (15s), FUZZFLAGS (extra go test flags,
# e.g. -parallel=1 on a busy machine).
set -euo pipefail

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-15s}
read -r -a extra <<<"${FUZZFLAGS:-}"
cd "$(dirname "$0")/../.."

dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	# Only packages whose tests define a Fuzz function need building.
	mapfile -t dirs < <(grep -rl --include='*_test.go' '^func Fuzz' . |
		xargs -r -n1 dirname | sort -u)
fi
if [ ${#dirs[@]} -eq 0 ]; then
	echo "fuzz: no Fuzz targets found" >&2
	exit 1
fi

pkgs=()
for d in "${dirs[@]}"; do
	case "$d" in
	./* | /*) pkgs+=("$d") ;;
	*) pkgs+=("./$d") ;;
	esac
done

# `go test -list` prints a package's matching names, then "ok <pkg> …".
list=$("$GO" test -list '^Fuzz' "${pkgs[@]}")
targets=()
names=()
while read -r first second _; do
	case "$first" in
	Fuzz*) names+=("$first") ;;
	ok)
		for n in ${names[@]+"${names[@]}"}; do targets+=("$second $n"); done
		names=()
		;;
	esac
done <<<"$list"
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: go test -list found no Fuzz targets in ${pkgs[*]}" >&2
	exit 1
fi

failed=()
for t in "${targets[@]}"; do
	pkg=${t% *}
	name=${t#* }
	echo "== $name ($pkg, $FUZZTIME)"
	if ! "$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" \
		${extra[@]+"${extra[@]}"} "$pkg"; then
		failed+=("$pkg $name")
	fi
done

echo "fuzz: ran ${#targets[@]} targets for $FUZZTIME each"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz: FAILED %s\n' "${failed[@]}" >&2
	exit 1
fi
