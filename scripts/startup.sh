#!/bin/bash
# Start-up cost of a dorisdiag command against a hello-world Go binary built
# with the same Go, in one interleaved loop (docs/performance.md "Start-up").
#
#   scripts/startup.sh N BIN ARGS...   e.g. scripts/startup.sh 100 ./dorisdiag tso decode 1
#
# Runs hello then BIN ARGS, N times; prints the median wall time, the mean
# CPU (user + sys, from the children's rusage) of each and their ratios.
# Output goes to a file, as a script's would: not /dev/null, which builds
# before the startup branch took for a terminal (and paged through less).
set -eu
n=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$dir/main.go"
printf 'module hello\n' >"$dir/go.mod"
(cd "$dir" && go build -o hello .)
python3 - "$n" "$dir/out" "$dir/hello" "$@" <<'PY'
import resource, statistics as st, subprocess, sys, time
n, out, hello, cmd = int(sys.argv[1]), open(sys.argv[2], "w"), [sys.argv[3]], sys.argv[4:]
wall, cpu = {0: [], 1: []}, {0: [], 1: []}
for _ in range(n):
    for k, c in ((0, hello), (1, cmd)):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
        subprocess.run(c, stdout=out, stderr=out)
        t = time.perf_counter() - t; r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall[k].append(t); cpu[k].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
for k, name in ((0, "hello"), (1, " ".join(cmd))):
    print(f"{name}: median wall {st.median(wall[k])*1000:.2f} ms, mean CPU {st.mean(cpu[k])*1000:.2f} ms")
print(f"ratio: wall (median) {st.median(wall[1])/st.median(wall[0]):.2f}x, CPU (mean) {st.mean(cpu[1])/st.mean(cpu[0]):.2f}x")
PY
