#!/usr/bin/env bash
# tests/bench/bench_scale.sh — the controller at scale (issue 14): for each N
# in $BENCH_SCALE_N (default "100 300 1000"), a fresh kubesim and bulkheadd
# (--concurrent $BENCH_SCALE_CONCURRENT, default 10, under its ServiceAccount as in the e2e tests), the
# podinfo chart of ../shared/conformance published as a HelmChart in $BENCH_SCALE_TENANTS (default 10)
# tenant namespaces, N HelmReleases applied at once, then:
#   ready_s         time from the apply to every HelmRelease Ready=True
#   sup_rss_mib     bulkheadd's peak RSS (VmHWM)
#   sup_cpu_s       bulkheadd's CPU (all threads) during the installs, with
#                   its tenants' namespace holders' (live children, not
#                   workers: counted on the supervisor's side)
#   workers_cpu_s   the workers' CPU (bulkheadd's reaped children)
#   ratio           sup_cpu_s / workers_cpu_s
#   req/install     API requests bulkheadd made (as itself and as tenants;
#                   its own cache watches left out, a worker's watch
#                   counted) per HelmRelease installed
#   req/noop        the same per no-op reconcile (a reconcile request on
#                   every HelmRelease, nothing to change)
#   noop_cpu_ms     CPU (bulkheadd, workers and kubesim) per no-op
#                   reconcile: the first round after the installs (each
#                   with a worker) / a second round (the supervisor alone
#                   when nothing changed, supervisor/noop.h); req/noop is
#                   printed for both rounds the same way
#   worker_ms       wall time of one worker spawn, exec and lock-down to its
#                   first message (median over the run, from the log)
#   kubesim_cpu     kubesim's CPU over the installs, and its share of the
#                   wall time (above ~90% kubesim is what is measured)
# Each N has a deadline ($BENCH_SCALE_TIMEOUT, default 600 s); a run past it
# reports how many were Ready. A benchmark, not a test: it prints numbers.
set -uo pipefail
src=${BH_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export BH_SRCDIR=$src BH_BUILDDIR=${BH_BUILDDIR:-$PWD}
chart="$src/../shared/conformance/charts/podinfo"
if [ "${1:-}" != --one ]; then
	[ -f "$chart/Chart.yaml" ] || { echo "bench_scale: podinfo chart not found at $chart (skipped)"; exit 0; }
	[ -x "$BH_BUILDDIR/supervisor/bulkheadd" ] || { echo "bench_scale: bulkheadd not built"; exit 1; }
	printf '%6s %9s %11s %9s %13s %6s %11s %9s %13s %9s %14s\n' N ready_s sup_rss_mib sup_cpu_s workers_cpu_s ratio \
		req/install req/noop noop_cpu_ms worker_ms kubesim_cpu
	rc=0
	for n in ${BENCH_SCALE_N:-100 300 1000}; do
		bash "$0" --one "$n" || rc=1
	done
	exit $rc
fi

# ---- one run of N HelmReleases ---------------------------------------------------
n=$2
tenants=${BENCH_SCALE_TENANTS:-10} # tenant namespaces, each with the chart published (BENCH_SCALE_TENANTS)
. "$src/tests/e2e/lib.sh"
. "$src/tests/e2e/skeleton_lib.sh"
exec 3>&1 >"$E2E_TMP/bench.out" 2>&1 # the helpers' chatter stays out of the table
sk_setup --concurrent "${BENCH_SCALE_CONCURRENT:-10}" --log-level info --log-encoding json
tgz=$(cd "$SK_DIR/charts" && helm package "$chart" | sed 's/.*: //')
ver=$(sed -n 's/^version: *//p' "$chart/Chart.yaml" | tr -d '"')
for t in $(seq 1 $tenants); do
	sk_publish_tgz "$SK_DIR/charts/$(basename "$tgz")" "bench-$t" podinfo podinfo "$ver"
done
sleep 2
{
	for i in $(seq 1 "$n"); do
		cat <<YAML
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app-$i
  namespace: bench-$(((i % tenants) + 1))
spec:
  interval: 1h
  chartRef:
    kind: HelmChart
    name: podinfo
YAML
	done
} >"$E2E_TMP/hrs.yaml"

cpu() { awk '{print $14 + $15, $16 + $17}' "/proc/$1/stat"; }       # own, reaped children (ticks)
# "pid ticks" of each live namespace holder of bulkheadd (bulkhead-worker
# --hold-namespaces): they live on, never reaped during a run
holders() {
	local p
	for p in $(pgrep -P "$BULKHEADD_PID"); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- --hold-namespaces &&
			awk '{print $1, $14 + $15}' "/proc/$p/stat" 2>/dev/null
	done
}
# holder ticks spent between two holders() snapshots (files $1, $2)
holders_delta() { awk 'NR == FNR { t0[$1] = $2; next } { d += $2 - t0[$1] } END { print d + 0 }' "$1" "$2"; }
log_len() { kubesim_admin GET /_kubesim/log | wc -l; }
# requests bulkheadd made after log line $1 (its own watches left out, the
# workers' watches, as tenants, counted: as scale_requests counts)
reqs_since() {
	kubesim_admin GET /_kubesim/log | python3 -c '
import json, sys
since, n = int(sys.argv[1]), 0
for i, line in enumerate(sys.stdin):
    if i < since:
        continue
    e = json.loads(line)
    if e.get("userAgent", "").startswith("bulkhead/") and (e.get("verb") != "watch" or e.get("impersonatedUser")):
        n += 1
print(n)' "$1"
}
# wait_all FIELD VALUE SECS: until every HelmRelease's FIELD is VALUE
# ("ready" = Ready=True); prints how many are. One list, then a watch: the
# bench costs kubesim one serialisation per HelmRelease change, not a list of
# all N every poll (at N = 1000 that polling was a large part of kubesim's CPU)
wait_all() {
	python3 - "$KUBESIM_URL" "$KUBESIM_DIR" "$n" "$1" "$2" "$3" <<'PY'
import json, ssl, sys, time, urllib.request
url, d, n, field, want, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6])
ctx = ssl.create_default_context(cafile=d + "/ca.crt")
ctx.load_cert_chain(d + "/admin.crt", d + "/admin.key")
base = url + "/apis/helm.toolkit.fluxcd.io/v2/helmreleases"
end, state, done, rv = time.time() + secs, {}, 0, None
def ok(o):
    st = o.get("status") or {}
    if field == "ready":
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in st.get("conditions") or [])
    return st.get(field) == want
def key(o):
    return o["metadata"].get("namespace", ""), o["metadata"]["name"]
while True:
    left = end - time.time()
    try:
        if rv is None:  # (re)list: at the start, and after a watch error
            with urllib.request.urlopen(base, context=ctx, timeout=60) as r:
                lst = json.load(r)
            state = {key(o): ok(o) for o in lst["items"]}
            done, rv = sum(state.values()), lst["metadata"]["resourceVersion"]
        if done >= n or left <= 0:
            break
        q = "?watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%d" % (rv, int(left) + 1)
        with urllib.request.urlopen(base + q, context=ctx, timeout=left + 30) as r:
            for line in r:
                e = json.loads(line)
                o = e["object"]
                if e["type"] == "ERROR":
                    rv = None
                    break
                rv = o["metadata"]["resourceVersion"]
                if e["type"] == "BOOKMARK":
                    continue
                k = key(o)
                was, now = state.pop(k, False), e["type"] != "DELETED" and ok(o)
                if e["type"] != "DELETED":
                    state[k] = now
                done += now - was
                if done >= n:
                    break
    except (OSError, ValueError):
        if time.time() > end:
            break
        rv = None
        time.sleep(0.5)
print(done)
PY
}

mark=$(log_len)
read -r s0 c0 < <(cpu "$BULKHEADD_PID")
holders >"$E2E_TMP/holders0"
read -r k0 _ < <(cpu "$KUBESIM_PID")
t0=$(date +%s.%N)
kubectl apply -f "$E2E_TMP/hrs.yaml" >/dev/null || sk_fail "applying $n HelmReleases"
ready=$(wait_all ready True "${BENCH_SCALE_TIMEOUT:-600}")
t1=$(date +%s.%N)
sleep 1 # the last status writes
read -r s1 c1 < <(cpu "$BULKHEADD_PID")
holders >"$E2E_TMP/holders1"
s1=$((s1 + $(holders_delta "$E2E_TMP/holders0" "$E2E_TMP/holders1")))
read -r k1 _ < <(cpu "$KUBESIM_PID")
inst=$(reqs_since "$mark")
rss=$(awk '/VmHWM/ {print $2}' "/proc/$BULKHEADD_PID/status")

# noop_round TAG: a reconcile request on every HelmRelease; prints
# "handled requests cpu_ticks" (bulkheadd, its workers, kubesim)
noop_round() {
	local mark a b c d e f handled
	mark=$(log_len)
	read -r a b < <(cpu "$BULKHEADD_PID")
	read -r c _ < <(cpu "$KUBESIM_PID")
	kubectl annotate helmrelease --all -A --overwrite reconcile.fluxcd.io/requestedAt="$1" >/dev/null ||
		sk_fail "annotating"
	handled=$(wait_all lastHandledReconcileAt "$1" 300)
	sleep 1
	read -r d e < <(cpu "$BULKHEADD_PID")
	read -r f _ < <(cpu "$KUBESIM_PID")
	echo "$handled $(reqs_since "$mark") $((d - a + e - b + f - c))"
}
read -r handled noop noopcpu < <(noop_round bench-noop)
read -r handled2 noop2 noopcpu2 < <(noop_round bench-noop2)

hz=$(getconf CLK_TCK)
python3 - "$n" "$ready" "$t0" "$t1" "$rss" "$s0" "$s1" "$c0" "$c1" "$k0" "$k1" "$hz" "$inst" "$noop" "$handled" \
	"$SK_DIR/bulkheadd.log" "$noop2" "$handled2" "$noopcpu" "$noopcpu2" >&3 <<'PY'
import json, statistics, sys
from datetime import datetime
a = sys.argv[1:]
n, ready, t0, t1, rss = int(a[0]), int(a[1]), float(a[2]), float(a[3]), int(a[4])
s0, s1, c0, c1, k0, k1, hz = (float(x) for x in a[5:12])
inst, noop, handled, log = int(a[12]), int(a[13]), int(a[14]), a[15]
noop2, handled2, ncpu, ncpu2 = int(a[16]), int(a[17]), float(a[18]), float(a[19])
def per_noop(reqs, done):
    return "%.1f" % (reqs / max(done, 1)) if done >= n else ">(%d/%d)" % (done, n)
wall = t1 - t0
sup, work, kube = (s1 - s0) / hz, (c1 - c0) / hz, (k1 - k0) / hz
# spawn cost: "started worker" to the worker's first line ("sandbox: ...")
start, spawn = {}, []
for line in open(log, errors="replace"):
    try:
        e = json.loads(line)
        ts = datetime.fromisoformat(e["ts"].replace("Z", "+00:00")).timestamp()
    except (ValueError, KeyError, TypeError):
        continue
    rid, msg = e.get("reconcileID"), e.get("msg", "")
    if msg.startswith("started worker"):
        start[rid] = ts
    elif e.get("logger") == "worker" and msg.startswith("sandbox:") and rid in start:
        spawn.append((ts - start.pop(rid)) * 1000)
ready_s = "%.1f" % wall if ready >= n else ">%.0f(%d)" % (wall, ready)
print("%6d %9s %11.1f %9.2f %13.2f %6.2f %11.1f %9s %13s %9s %8.1fs/%3.0f%%" % (
    n, ready_s, rss / 1024, sup, work, sup / work if work else 0, inst / max(ready, 1),
    per_noop(noop, handled) + "/" + per_noop(noop2, handled2),
    "%.1f/%.1f" % (1000 * ncpu / hz / n, 1000 * ncpu2 / hz / n),
    "%.1f" % statistics.median(spawn) if spawn else "-", kube, 100 * kube / wall if wall else 0))
PY
