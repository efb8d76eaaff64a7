#!/usr/bin/env python3
# Where the start-up of a command goes, by phase and (for page faults) by
# region of memory (docs/performance.md "Start-up and binary size").
#
#   perf record -g -e page-faults -c 1 -d -o F.data -- BIN ARGS >/tmp/out       # several runs: F1, F2, …
#   scripts/startup-phases.py --faults BIN F1.data F2.data …
#   perf record -g -e cpu-clock -F 20000 -o C.data -- sh -c 'for i in $(seq 300); do BIN ARGS >/tmp/out; done'
#   scripts/startup-phases.py BIN C.data
#
# A fault's address is placed in a section of `readelf -S BIN` or a mapping
# (ld.so, libc, stack; other anonymous memory below 0x7f0000000000 is the Go
# heap's arena, above it the runtime's off-heap memory). A sample's phase is
# read from its call chain (exec, ld.so, runtime start, the init of package P,
# main, GC and sysmon); one without (runtime work on the system stack, where
# the frame pointers stop) goes to the last phase seen on its thread.
import subprocess, sys, re, collections
faults = sys.argv[1] == "--faults"
if faults: sys.argv.pop(1)
binary = sys.argv[1]; bname = binary.split("/")[-1]
secs = []
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and int(m.group(2), 16):
        secs.append((int(m.group(2), 16), int(m.group(2), 16) + int(m.group(3), 16), m.group(1)))
group = {".text": "text", ".plt": "text", ".rodata": "rodata", ".typelink": "rodata", ".itablink": "rodata", ".gopclntab": "gopclntab",
         ".noptrdata": "noptrdata", ".data": "data", ".bss": "bss", ".noptrbss": "noptrbss"}
def region(a, dso):
    for lo, hi, n in secs:
        if (lo & ~4095) <= a < ((hi + 4095) & ~4095): return "binary " + group.get(n, "other sections")
    if 0x400000 <= a < 0x401000: return "binary other sections"
    if "ld-linux" in dso: return "ld.so"
    if "libc.so" in dso: return "libc"
    if "[stack]" in dso: return "main thread's stack"
    if "vdso" in dso or "vvar" in dso or "ld.so.cache" in dso: return "vdso, ld.so.cache"
    if 0x4000000000 <= a < 0x7f0000000000: return "Go heap (arena)"
    return "off-heap anonymous (runtime metadata, thread stacks, TLS, libc malloc)"
def pkgof(f):
    f = re.sub(r"\.init(\.\d+)?(\.func\d+)*(\.\d+)*$", "", f)
    if "/" in f:
        head, tail = f.rsplit("/", 1)
        return head + "/" + tail.split(".")[0]
    return f.split(".")[0]
def direct(frames, tid, pid):
    syms = [s for s, d in frames]; dsos = [d for s, d in frames]
    if any(s in ("do_exit", "exit_mmap", "do_group_exit") for s in syms): return "exit (kernel teardown)"
    if any("execve" in s for s in syms) and not any(s.startswith("runtime.") for s in syms): return "exec (kernel)"
    if any("ld-linux" in d for d in dsos) and not any(s.startswith("runtime.") for s in syms): return "ld.so (dynamic loading)"
    if "main.main" in syms: return "main"
    for i, s in enumerate(syms):
        if s == "runtime.doInit1":
            return "init " + (pkgof(syms[i - 1]) if i > 0 else "?")
    if "runtime.schedinit" in syms or "runtime.rt0_go.abi0" in syms or "runtime.newproc" in syms and "runtime.main" not in syms: return "runtime start"
    if any(s in ("runtime.gcBgMarkWorker", "runtime.sysmon", "runtime.bgsweep", "runtime.bgscavenge", "runtime.forcegchelper", "runtime.templateThread") for s in syms): return "runtime background (GC, sysmon)"
    return None
samples = []; pids = set()
last = {}
for f in sys.argv[2:]:
    out = subprocess.run(["perf", "script", "-i", f, "-F", "comm,pid,tid,addr,ip,sym,dso"] if faults else ["perf", "script", "-i", f, "-F", "comm,pid,tid,ip,sym,dso"], capture_output=True, text=True).stdout
    for block in out.strip().split("\n\n"):
        lines = block.strip().splitlines()
        if faults:
            m = re.match(r"\s*(\S+)\s+(\d+)/(\d+)\s+([0-9a-f]+)\s*(.*)$", lines[0])
        else:
            m = re.match(r"\s*(\S+)\s+(\d+)/(\d+)\s*()()$", lines[0])
        if not m: continue
        comm, pid, tid = m.group(1), int(m.group(2)), int(m.group(3))
        if not bname.startswith(comm[:15]): continue
        pids.add(pid)
        frames = []
        for l in lines[1:]:
            mm = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$", l)
            if mm: frames.append((mm.group(1).split("+")[0], mm.group(2)))
        ph = direct(frames, tid, pid)
        if ph is None:
            ph = last.get(tid, "runtime start" if tid == pid else "runtime background (GC, sysmon)")
        last[tid] = ph
        r = None
        if faults:
            rest = m.group(5); dso = rest[rest.rfind("(") + 1:-1] if "(" in rest else ""
            r = region(int(m.group(4), 16), dso)
        samples.append((r, ph))
runs = len(pids)
print(f"processes {runs}, samples per process {len(samples)/runs:.1f}")
def coarse(p): return "package inits" if p.startswith("init ") else p
for title, key in (("by phase", lambda s: coarse(s[1])), ("inits by package", lambda s: s[1] if s[1].startswith("init ") else None)) + ((("by region", lambda s: s[0]),) if faults else ()):
    c = collections.Counter(key(s) for s in samples); c.pop(None, None)
    print(f"== {title}")
    for k, v in c.most_common(25): print(f"{v/runs:7.1f}  {100*v/len(samples):5.1f}%  {k}")
if faults:
    c = collections.Counter((s[0], coarse(s[1])) for s in samples)
    print("== region x phase")
    for k, v in c.most_common(30): print(f"{v/runs:7.1f}  {k[0]:72s} {k[1]}")
