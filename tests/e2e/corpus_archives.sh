#!/usr/bin/env bash
# tests/e2e/corpus_archives.sh — issue 9 must-show: corpus charts archived by
# other tools than `helm package` go through bulkheadd and the sandboxed worker
# like any other: GNU tar, Python tarfile with PAX headers on every entry,
# PAX long names (a template under a 120-character folder), sub-charts as
# nested .tgz files, and a template entry written twice (Helm keeps the last,
# once). Each reaches Ready=True, its stored manifest equals `helm template`
# of the same archive, it upgrades and uninstalls (corpus_lib.sh). Hostile
# archives end Ready=False with the loader's own error, as the CLI prints it:
# a nested-archive bomb gets the decompressed-size budget error (never a
# sandbox reason), ".." and absolute entry names are refused, and so is a
# Chart.yaml whose apiVersion is a number ("unsupported chart version").
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/corpus_lib.sh"
corpus_setup
start=$SECONDS
for x in "gnutar podinfo" "gnutar redis" "gnutar kube-state-metrics" "pax nginx" "pax metrics-server" \
	"pax grafana" "longname podinfo" "longname external-secrets" "nested postgresql" "dup podinfo" "dup vault"; do
	read -r fmt chart <<<"$x"
	read -r _ case _ ns < <(python3 "$BH_SRCDIR/tests/e2e/corpus_lib.py" pick "$CORPUS" | grep "^$chart ")
	corpus_add "$fmt" "$chart" "$case" "$fmt-$chart" "arch-$fmt"
done
# the formats really are what they claim
tar -tvzf "$SK_DIR/charts/gnutar-podinfo.tgz" >/dev/null || sk_fail "GNU tar archive unreadable"
python3 - "$SK_DIR/charts" <<'PY' || sk_fail "archive formats are not as claimed"
import sys, tarfile
d = sys.argv[1]
for f in ("pax-nginx", "longname-podinfo", "dup-podinfo"):
    with tarfile.open("%s/%s.tgz" % (d, f)) as t:
        m = t.getmembers()
        assert all(x.pax_headers for x in m), f + ": an entry without PAX headers"
        if f == "longname-podinfo":
            assert any(len(x.name) > 100 and "path" in x.pax_headers for x in m), f + ": no long PAX name"
        if f == "dup-podinfo":
            names = [x.name for x in m]
            assert len(names) != len(set(names)), f + ": no duplicate entry"
with tarfile.open(d + "/gnutar-podinfo.tgz") as t:
    assert t.getmembers()[0].pax_headers == {}, "gnutar: PAX headers"
PY

# hostile archives, each against what `bulkhead template` says of it
hostile() { # NAME: writes $SK_DIR/pack/NAME.tgz
	python3 - "$1" "$SK_DIR/pack/$1.tgz" <<'PY'
import io, sys, tarfile
kind, out = sys.argv[1:]
def add(t, name, data):
    ti = tarfile.TarInfo(name); ti.size = len(data); ti.mode = 0o644
    t.addfile(ti, io.BytesIO(data))
chart = b"apiVersion: %s\nname: %s\nversion: 0.1.0\n" % (b"2" if kind == "apinumber" else b"v2", kind.encode())
with tarfile.open(out, "w:gz") as t:
    add(t, kind + "/Chart.yaml", chart)
    if kind == "apinumber":  # the loader's apiVersion check: a number is no version
        add(t, "apinumber/templates/x.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    if kind == "bomb":  # 40 sub-charts of 4 MiB of zeros each, about 4 KiB compressed
        inner = io.BytesIO()
        with tarfile.open(fileobj=inner, mode="w:gz") as i:
            add(i, "sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 1.0.0\n")
            add(i, "sub/templates/big.yaml", b"\0" * (4 << 20))
        for n in range(40):
            add(t, "bomb/charts/sub%d-1.0.0.tgz" % n, inner.getvalue())
    elif kind == "dotdot":
        add(t, "dotdot/templates/../../../etc/x.yaml", b"kind: ConfigMap\n")
    elif kind == "absolute":
        add(t, "/absolute/templates/x.yaml", b"kind: ConfigMap\n")
PY
}
for h in bomb dotdot absolute apinumber; do
	hostile "$h" || sk_fail "building the $h archive"
	sk_publish_tgz "$SK_DIR/pack/$h.tgz" arch-hostile "$h" "$h" 0.1.0
	sk_apply_hr arch-hostile "$h" "$h"
done
corpus_run 900
for h in bomb dotdot absolute apinumber; do
	cli=$("$BH_BUILDDIR/cli/bulkhead" template x "$SK_DIR/pack/$h.tgz" 2>&1) && sk_fail "the CLI rendered $h"
	cli=${cli#Error: }
	r=$(sk_wait_cond arch-hostile "$h" False 120)
	echo "$h: $r"
	case "$r" in *SandboxViolation*|*seccomp*) sk_fail "$h ended with a sandbox reason: $r" ;; esac
	e2e_expect_contains "$r" "$cli" "Ready of arch-hostile/$h (the CLI says: $cli)"
done
echo "PASS: ${#CORPUS_RELEASES[@]} archives of 5 kinds installed, upgraded and uninstalled; hostile archives refused as the CLI refuses them ($((SECONDS - start))s)"
