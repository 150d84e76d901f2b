#!/usr/bin/env bash
# tests/e2e/scale_h2_connections.sh — bulkheadd keeps its connections to an
# API server that speaks HTTP/2 (issue 14). kubesim offers h2 by ALPN, as
# kube-apiserver does; libcurl multiplexes the forwarded requests and the
# workers' readiness watches on the connections it has (CURLOPT_PIPEWAIT),
# and a cancelled watch is an RST_STREAM that keeps its connection. Counted
# by kubesim (GET /_kubesim/stats: connections by their first request's
# User-Agent), six installs one after another: the workers' readiness
# watches share one connection of bulkheadd's, so the installs open at most
# 8 (today one per install is the status and event writes', which keep no
# connection between releases). Over HTTP/1.1 (KUBESIM_HTTP1=1) each
# cancelled watch also closed its connection: 11 or 12, and this test fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/skeleton_lib.sh"
e2e_need_shared
chart="$E2E_SHARED/conformance/charts/podinfo"
[ -f "$chart/Chart.yaml" ] || e2e_skip "podinfo chart not in $chart"
sk_setup --concurrent 2
sk_publish "$chart" apps podinfo
sleep 2 # bulkheadd's start-up (list, discovery, watches) is not the installs'

# prints bulkheadd's connections so far: all, and those that chose h2
conns() {
	kubesim_admin GET /_kubesim/stats | python3 -c '
import json, sys
d = json.load(sys.stdin)["connections"]["by_agent"].get("bulkhead", {})
print(sum(d.values()), d.get("h2", 0))'
}
read -r c0 h0 < <(conns)
for i in 1 2 3 4 5 6; do
	sk_apply_hr apps "podinfo-$i" podinfo
	sk_wait_ready apps "podinfo-$i" 60 >/dev/null
done
read -r c1 h1 < <(conns)
echo "bulkheadd's connections: $c0 before six installs, $c1 after (HTTP/2: $h0, $h1)"
[ $((c1 - c0)) -le 8 ] || sk_fail "six installs opened $((c1 - c0)) connections of bulkheadd's (at most 8)"
[ "$h1" -ge 1 ] && [ "$h1" = "$c1" ] || sk_fail "bulkheadd's connections did not all choose HTTP/2 ($h1 of $c1)"
echo "PASS: scale_h2_connections"
