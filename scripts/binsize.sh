#!/bin/sh
# What each module adds to the dorisdiag binary: the sizes of its symbols
# (code, read-only data, type descriptors; go tool nm -size), summed per
# module of `go version -m`; the module's own packages are split out.
#
#   scripts/binsize.sh [BINARY]     default: builds ./dorisdiag into a temp dir
#
# Symbols are about 40% of the file: the rest is the function tables
# (.gopclntab, roughly in proportion to code) and DWARF (not loaded at run
# time). docs/performance.md "Start-up and binary size" has the figures.
set -eu
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	bin=$dir/dorisdiag
	go build -o "$bin" .
fi
main=$(go list -m)
{
	go version -m "$bin" | awk '$1 == "dep" { print "M", $2 }'
	go tool nm -size "$bin" | awk '$3 != "U" && $2 < 8388608 { print "S", $2, $4 }'
} | awk -v main="$main" '
$1 == "M" { mods[++n] = $2; next }
{
	size = $2; name = $3
	sub(/^(type:\.(eq|hash)\.|type:|go:itab\.|go:info\.|go:)/, "", name)
	gsub(/^[*\[\]()]+/, "", name)
	sub(/[(\[,].*/, "", name)
	slash = 0
	for (i = length(name); i > 0; i--) if (substr(name, i, 1) == "/") { slash = i; break }
	rest = substr(name, slash + 1); dot = index(rest, ".")
	pkg = dot ? substr(name, 1, slash + dot - 1) : name
	mod = ""
	if (pkg == main || index(pkg, main "/") == 1) {
		mod = pkg == main ? main : main "/" substr(pkg, length(main) + 2)
		sub("^" main "/", "", mod); split(mod, p, "/"); mod = "(dorisdiag) " p[1]
	} else {
		for (i = 1; i <= n; i++) if ((pkg == mods[i] || index(pkg, mods[i] "/") == 1) && length(mods[i]) > length(mod)) mod = mods[i]
		if (mod == "") mod = "(standard library and runtime)"
	}
	tot[mod] += size; all += size
}
END {
	for (m in tot) printf "%8.2f MB  %s\n", tot[m] / 1e6, m
	printf "%8.2f MB  (all symbols)\n", all / 1e6
}' | sort -rn
ls -l "$bin" | awk '{ printf "%8.2f MB  (the file)\n", $5 / 1e6 }'
