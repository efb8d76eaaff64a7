#!/bin/sh
# Run every fuzz target of the module for a given time each.
#
#   scripts/fuzz.sh [TIME] [MINIMIZE]     e.g. scripts/fuzz.sh 30s
#
# TIME is -fuzztime per target (default 30s). MINIMIZE is -fuzzminimizetime
# (default 1x: minimise a new input at most once), so that minimisation does
# not eat the budget (with Go's default of 60 s, FuzzCheckSnapshot ran 21 execs
# in 80 s). Targets are found with `go test -list 'Fuzz.*'`. For each target
# one line "package target execs" is printed at the end; the exit status is
# non-zero when any target failed (the failing input is in the package's
# testdata/fuzz/TARGET directory).
set -u
time=${1:-30s}
minimize=${2:-1x}
cd "$(dirname "$0")/.." || exit 2
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
status=0
summary=""
for pkg in $(go list ./...); do
	targets=$(go test -list 'Fuzz.*' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	for t in $targets; do
		out="$log/$(echo "$pkg.$t" | tr '/' '_')"
		echo "== $pkg $t ($time, minimize $minimize)"
		if go test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$time" -fuzzminimizetime "$minimize" >"$out" 2>&1; then
			res=ok
		else
			res=FAIL
			status=1
			cat "$out"
		fi
		# The last progress line reads "fuzz: elapsed: 20s, execs: 123456 (...)".
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
		summary="$summary$pkg $t ${execs:-?} $res
"
	done
done
echo
echo "package target execs result"
printf '%s' "$summary"
exit $status
