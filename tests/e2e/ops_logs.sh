#!/usr/bin/env bash
# tests/e2e/ops_logs.sh — issue 13: --version and --help on every binary
# (and the man pages naming every option and command they list),
# and bulkheadd --log-encoding=json: every line is a JSON object with Flux's
# fields (level, ts, msg; for a HelmRelease also controller, controllerGroup,
# controllerKind, HelmRelease {name,namespace}, reconcileID), and the
# worker's lines are attributed to their release and reconcile.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"

for b in supervisor/bulkheadd cli/bulkhead worker/bulkhead-worker fetcher/bulkhead-fetcher; do
	v=$("$BH_BUILDDIR/$b" --version) || sk_fail "$b --version failed"
	e2e_expect_contains "$v" "$(basename "$b") " "$b --version"
	h=$("$BH_BUILDDIR/$b" --help) || sk_fail "$b --help failed"
	e2e_expect_contains "$h" "usage: $(basename "$b")" "$b --help"
done
e2e_expect_contains "$("$BH_BUILDDIR/worker/bulkhead-worker" --help)" "Not for direct use" "worker --help"
e2e_expect_contains "$("$BH_BUILDDIR/fetcher/bulkhead-fetcher" --help)" "Not for direct use" "fetcher --help"
# the manual pages name every option and command the binaries list
# (the pages are read into variables: 'sed | grep -q' under pipefail fails
# whenever grep's early exit reaches sed as SIGPIPE)
man8=$(sed 's/\\-/-/g' "$BH_SRCDIR/man/bulkheadd.8")
man1=$(sed 's/\\-/-/g' "$BH_SRCDIR/man/bulkhead.1")
for f in $("$BH_BUILDDIR/supervisor/bulkheadd" --help | grep -o -- '--[a-z-]*' | sort -u); do
	grep -q -- "$f" <<<"$man8" || sk_fail "bulkheadd(8) lacks $f"
done
for c in $("$BH_BUILDDIR/cli/bulkhead" --help | sed -n 's/^  \([a-z-]*\) .*/\1/p'); do
	grep -q "^\.BR* $c" <<<"$man1" || sk_fail "bulkhead(1) lacks the command $c"
done
"$BH_BUILDDIR/supervisor/bulkheadd" --log-encoding=yaml >/dev/null 2>&1 && sk_fail "--log-encoding=yaml accepted"

sk_setup --log-encoding=json
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-log demo
sk_apply_hr team-log web demo
sk_wait_ready team-log web 60 >/dev/null
python3 - "$SK_DIR/bulkheadd.log" <<'PY' || sk_fail "JSON log lines"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
hr, worker, rids = 0, 0, set()
for l in lines:
    o = json.loads(l)  # every line parses
    assert o["level"] in ("error", "info", "debug") and o["ts"].endswith("Z") and isinstance(o["msg"], str), o
    if "HelmRelease" in o:
        assert o["controller"] == "helmrelease" and o["controllerGroup"] == "helm.toolkit.fluxcd.io", o
        assert o["controllerKind"] == "HelmRelease", o
        assert o["HelmRelease"] == {"name": "web", "namespace": "team-log"}, o
        hr += 1
        if "reconcileID" in o:
            rids.add(o["reconcileID"])
        if o.get("logger") == "worker":
            assert "reconcileID" in o, o
            worker += 1
assert hr >= 3 and worker >= 1 and rids, (hr, worker, rids)
ready = [json.loads(l) for l in lines if "Ready=True" in l]
assert ready and "reconcileID" in ready[0], ready
print("json lines: %d, about the release: %d, from its worker: %d, reconcile ids: %d" % (len(lines), hr, worker, len(rids)))
PY
echo "PASS: --version/--help everywhere; JSON logs carry Flux's fields"
