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
    """fastest of 3 runs: (seconds, peak RSS KiB, exit status). Peak memory
    comes from GNU time when present (a fork of python would count python's
    own pages in ru_maxrss)."""
    best = None
    for _ in range(3):
        if GNU_TIME:
            out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "bh-bench-time.%d" % os.getpid())
            t0 = time.perf_counter()
            p = subprocess.run([GNU_TIME, "-f", "%M", "-o", out] + cmd, cwd=corpus,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
            try:
                kib = int(open(out).read().split()[-1])
            except Exception:
                kib = 0
            os.unlink(out)
            r = (dt, kib, p.returncode)
        else:
            t0 = time.perf_counter()
            p = subprocess.run(cmd, cwd=corpus, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
            r = (dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)
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
print("%-28s %-30s %10s %10s %10s %10s %7s %7s" % ("chart", "case", "bh s", "bh MiB", "helm s", "helm MiB", "time x", "mem x"))
for chart in sorted(cases):
    cid, args = cases[chart]
    bt, bm, brc = measure([bulkhead] + args)
    line = "%-28s %-30s %10.3f %10.1f" % (os.path.basename(chart), cid, bt, bm / 1024.0)
    if brc != 0:
        line += "  (bulkhead exit %d)" % brc
    if helm:
        ht, hm, hrc = measure([helm] + args)
        line += " %10.3f %10.1f %7.2f %7.2f" % (ht, hm / 1024.0, ht / bt if bt else 0, hm / bm if bm else 0)
    else:
        line += "  (helm not installed)"
    print(line)
PY
