#!/usr/bin/env bash
# tests/bench/bench_template.sh — wall time and peak memory of
# `bulkhead template` for each chart of the conformance corpus
# (../shared/conformance/charts), using the first successful case of that
# chart for the arguments, and of the real `helm template` on the same
# inputs when helm is installed (.tools/bin/helm or PATH), with the ratio.
# Each command runs 3 times; the fastest run is reported.
set -uo pipefail
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
corpus="$src/../shared/conformance"
bulkhead="$build/cli/bulkhead"
[ -d "$corpus/cases" ] || { echo "bench_template: corpus not found at $corpus (skipped)"; exit 0; }
[ -x "$bulkhead" ] || { echo "bench_template: $bulkhead not built"; exit 1; }
helm=""
if [ -x "$src/.tools/bin/helm" ]; then helm="$src/.tools/bin/helm"; elif command -v helm >/dev/null; then helm=$(command -v helm); fi
command -v python3 >/dev/null || { echo "bench_template: python3 needed"; exit 1; }
export HELM_CONFIG_HOME=$(mktemp -d) HELM_CACHE_HOME=$(mktemp -d) HELM_DATA_HOME=$(mktemp -d)
trap 'rm -rf "$HELM_CONFIG_HOME" "$HELM_CACHE_HOME" "$HELM_DATA_HOME"' EXIT
exec python3 - "$corpus" "$bulkhead" "$helm" <<'PY'
import json, os, resource, subprocess, sys, time
corpus, bulkhead, helm = sys.argv[1], sys.argv[2], sys.argv[3]

GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

def measure(cmd):
    """fastest of 3 runs: (wall seconds, peak RSS KiB, exit status, CPU
    seconds). Peak memory and CPU come from GNU time when present (a fork of
    python would count python's own pages in ru_maxrss)."""
    best = None
    for _ in range(3):
        if GNU_TIME:
            out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "bh-bench-time.%d" % os.getpid())
            t0 = time.perf_counter()
            p = subprocess.run([GNU_TIME, "-f", "%M %U %S", "-o", out] + cmd, cwd=corpus,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
            try:
                f = open(out).read().split()
                kib, cpu = int(f[-3]), float(f[-2]) + float(f[-1])
            except Exception:
                kib, cpu = 0, 0.0
            os.unlink(out)
            r = (dt, kib, p.returncode, cpu)
        else:
            t0 = time.perf_counter()
            p = subprocess.run(cmd, cwd=corpus, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
            r = (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, 0.0)
        if best is None or r[0] < best[0]:
            best = r
    return best

cases = {}
for cid in sorted(os.listdir(os.path.join(corpus, "cases"))):
    p = os.path.join(corpus, "cases", cid)
    if not os.path.exists(os.path.join(p, "expected.yaml")):
        continue
    c = json.load(open(os.path.join(p, "case.json")))
    cases.setdefault(c["chart"], (cid, c["helmArgs"]))
print("wall = elapsed seconds (best of 3), cpu = user+system seconds, MiB = peak RSS; x = helm / bulkhead")
print("%-25s %-30s %7s %7s %7s %7s %7s %7s %7s %7s %7s" % ("chart", "case", "bh wall", "bh cpu", "bh MiB",
      "hm wall", "hm cpu", "hm MiB", "wall x", "cpu x", "mem x"))
for chart in sorted(cases):
    cid, args = cases[chart]
    bt, bm, brc, bc = measure([bulkhead] + args)
    line = "%-25s %-30s %7.3f %7.3f %7.1f" % (os.path.basename(chart), cid, bt, bc, bm / 1024.0)
    if helm:
        ht, hm, hrc, hc = measure([helm] + args)
        line += " %7.3f %7.3f %7.1f %7.2f %7.2f %7.2f" % (ht, hc, hm / 1024.0, ht / bt if bt else 0,
                                                     hc / bc if bc else 0, hm / bm if bm else 0)
    else:
        line += "  (helm not installed)"
    if brc != 0:
        line += "  (bulkhead exit %d)" % brc
    print(line)
PY
