#!/usr/bin/env bash
# tests/bench/bench_template.sh — `bulkhead template` against the real
# `helm template` (.tools/bin/helm or PATH) on every case of the conformance
# corpus (../shared/conformance/cases), as interleaved pairs: each round runs
# bulkhead then helm on the same arguments, and the ratios helm/bulkhead of
# wall time, CPU (user + system) and peak RSS are taken per round, so load
# from other processes hits both sides alike. Per chart: the median of its
# cases' median ratios, with bulkhead's and helm's medians; last, the median
# ratio over all cases. Measured by tests/bench/runstat (wait4 rusage).
# BENCH_ROUNDS (default 3) rounds per case; BENCH_CASES (a Python regular
# expression, matched at the start of each case's name, e.g. 'vault|podinfo-d')
# measures only those cases. Without helm, bulkhead alone.
set -uo pipefail
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BH_BUILDDIR:-$PWD}
corpus="$src/../shared/conformance"
bulkhead="$build/cli/bulkhead"
runstat="$build/tests/bench/runstat"
[ -d "$corpus/cases" ] || { echo "bench_template: corpus not found at $corpus (skipped)"; exit 0; }
[ -x "$bulkhead" ] || { echo "bench_template: $bulkhead not built"; exit 1; }
[ -x "$runstat" ] || { echo "bench_template: $runstat not built (make bench builds it)"; exit 1; }
command -v python3 >/dev/null || { echo "bench_template: python3 needed"; exit 1; }
helm=""
if [ -x "$src/.tools/bin/helm" ]; then helm="$src/.tools/bin/helm"; elif command -v helm >/dev/null; then helm=$(command -v helm); fi
export HELM_CONFIG_HOME=$(mktemp -d) HELM_CACHE_HOME=$(mktemp -d) HELM_DATA_HOME=$(mktemp -d)
trap 'rm -rf "$HELM_CONFIG_HOME" "$HELM_CACHE_HOME" "$HELM_DATA_HOME"' EXIT
exec python3 - "$corpus" "$bulkhead" "$helm" "$runstat" "${BENCH_ROUNDS:-3}" "${BENCH_CASES:-}" <<'PY'
import json, os, re, statistics, subprocess, sys
corpus, bulkhead, helm, runstat, rounds, only = sys.argv[1:7]
rounds = max(1, int(rounds))
med = statistics.median

def run(cmd):
    """(wall s, cpu s, peak RSS KiB, exit status) of one run"""
    out = subprocess.run([runstat, corpus] + cmd, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])

charts = {}
for cid in sorted(os.listdir(os.path.join(corpus, "cases"))):
    if only and not re.match(only, cid):
        continue
    c = json.load(open(os.path.join(corpus, "cases", cid, "case.json")))
    charts.setdefault(os.path.basename(c["chart"]), []).append((cid, c["helmArgs"]))
if not charts:
    sys.exit("bench_template: no case matches BENCH_CASES=%s" % only)

print("per chart: median over its cases of each case's median over %d interleaved rounds" % rounds)
print("wall/cpu in ms, rss in MiB; x = helm / bulkhead (higher is better for bulkhead)")
hdr = "%-25s %5s %8s %8s %7s" % ("chart", "cases", "bh wall", "bh cpu", "bh rss")
if helm:
    hdr += " %8s %8s %7s %7s %7s %7s" % ("hm wall", "hm cpu", "hm rss", "wall x", "cpu x", "rss x")
print(hdr)
all_ratios = []  # per case: (wall x, cpu x, rss x)
failed = []
for chart in sorted(charts):
    rows = []
    for cid, args in charts[chart]:
        b, h, r = [], [], []
        for _ in range(rounds):
            bm = run([bulkhead] + args)
            b.append(bm)
            if helm:
                hm = run([helm] + args)
                h.append(hm)
                if (bm[3] == 0) != (hm[3] == 0):
                    failed.append("%s (bulkhead exit %d, helm exit %d)" % (cid, bm[3], hm[3]))
                r.append((hm[0] / bm[0], hm[1] / max(bm[1], 1e-4), hm[2] / bm[2]))
        row = [med(x[i] for x in b) for i in range(3)]
        if helm:
            row += [med(x[i] for x in h) for i in range(3)]
            ratio = tuple(med(x[i] for x in r) for i in range(3))
            row += list(ratio)
            all_ratios.append(ratio)
        rows.append(row)
    agg = [med(x[i] for x in rows) for i in range(len(rows[0]))]
    line = "%-25s %5d %8.1f %8.1f %7.1f" % (chart, len(rows), agg[0] * 1e3, agg[1] * 1e3, agg[2] / 1024)
    if helm:
        line += " %8.1f %8.1f %7.1f %7.2f %7.2f %7.2f" % (agg[3] * 1e3, agg[4] * 1e3, agg[5] / 1024,
                                                       agg[6], agg[7], agg[8])
    print(line)
if helm:
    print("median over %d cases: wall %.2fx, cpu %.2fx, peak rss %.2fx (helm / bulkhead)" % (
        len(all_ratios), med(x[0] for x in all_ratios), med(x[1] for x in all_ratios),
        med(x[2] for x in all_ratios)))
    print("worst case: wall %.2fx, cpu %.2fx, peak rss %.2fx" % (
        min(x[0] for x in all_ratios), min(x[1] for x in all_ratios), min(x[2] for x in all_ratios)))
else:
    print("(helm not installed: no ratios)")
for f in failed:
    print("exit status differs: " + f)
PY
