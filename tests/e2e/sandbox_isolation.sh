#!/usr/bin/env bash
# tests/e2e/sandbox_isolation.sh — issue 9: who the worker runs as is checked
# from the outside, not assumed. With bulkheadd running as root, a worker
# runs as 65534:65534 by default and as --worker-uid says; where the host
# allows unprivileged user namespaces, the worker has its own user, network
# and mount namespaces and an empty root, as /proc shows and as it reports;
# those namespaces are its tenant's: a second worker of the same namespace
# and ServiceAccount is in the same ones, a worker of another tenant in
# others (supervisor/spawn.h). Parts the host cannot do are skipped with the
# reason.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
e2e_need_tool unshare setpriv
want_uid=$(id -u)
args=(--test-hooks --concurrent 4 --graceful-shutdown-timeout 1s) # the held workers are not waited for
if [ "$want_uid" = 0 ]; then
	# a bad value is refused at start, by name
	out=$("$SK_BULKHEADD" --worker-uid 0 --kubeconfig /nonexistent 2>&1) && e2e_fail "--worker-uid 0 accepted"
	e2e_expect_contains "$out" "--worker-uid 0: want UID[:GID]" "bulkheadd --worker-uid 0"
	want_uid=65534
fi
userns=no
if [ "$(id -u)" = 0 ]; then
	setpriv --reuid "$want_uid" --regid "$want_uid" --clear-groups unshare -U -n -m true 2>/dev/null && userns=yes
else
	unshare -U -n -m true 2>/dev/null && userns=yes
fi
sk_setup "${args[@]}"
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-iso demo
sk_apply_hr team-iso held demo "" "    bulkhead.dev/test-hook: hang"
pid=
for _ in $(seq 1 150); do
	pid=$(sed -n 's/.*team-iso\/held: started worker \([0-9]*\).*/\1/p' "$SK_DIR/bulkheadd.log" | tail -1)
	[ -n "$pid" ] && grep -q "worker team-iso/held: sandbox:" "$SK_DIR/bulkheadd.log" && break
	sleep 0.2
done
[ -n "$pid" ] || sk_fail "no worker started for team-iso/held"
report=$(grep "worker team-iso/held: sandbox:" "$SK_DIR/bulkheadd.log" | tail -1)
echo "$report"
kill -0 "$pid" 2>/dev/null || sk_fail "worker $pid is not running (hang hook)"
uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
gids=$(awk '/^Gid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
echo "worker $pid: Uid $uids, Gid $gids, Groups $(awk '/^Groups:/ {$1=""; print}' "/proc/$pid/status")"
[ "$uids" = "$want_uid $want_uid $want_uid $want_uid" ] || sk_fail "worker uids are '$uids', want $want_uid"
e2e_expect_contains "$report" "sandbox: uid $want_uid," "the worker's report"
if [ "$(id -u)" = 0 ]; then
	[ "$gids" = "65534 65534 65534 65534" ] || sk_fail "worker gids are '$gids'"
	[ -z "$(awk '/^Groups:/ {$1=""; print}' "/proc/$pid/status" | tr -d ' ')" ] || sk_fail "worker kept supplementary groups"
fi
if [ "$userns" = yes ]; then
	e2e_expect_contains "$report" "user namespace own, network none, file system empty" "the worker's report"
	for ns in user net mnt; do
		[ "$(readlink "/proc/$pid/ns/$ns")" != "$(readlink /proc/self/ns/$ns)" ] || sk_fail "worker shares the $ns namespace"
	done
	if [ "$(id -u)" = 0 ]; then # reading another process's root needs ptrace rights
		[ -z "$(ls -A "/proc/$pid/root/" 2>&1)" ] || sk_fail "worker root is not empty: $(ls -A "/proc/$pid/root/" | head -3)"
	fi
	echo "user namespace: own user, network and mount namespaces, empty root"
	# a second worker of the same tenant, and one of another tenant
	sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-iso2 demo
	sk_apply_hr team-iso held2 demo "" "    bulkhead.dev/test-hook: hang"
	sk_apply_hr team-iso2 held demo "" "    bulkhead.dev/test-hook: hang"
	same= other=
	for _ in $(seq 1 150); do
		same=$(sed -n 's/.*team-iso\/held2: started worker \([0-9]*\).*/\1/p' "$SK_DIR/bulkheadd.log" | tail -1)
		other=$(sed -n 's/.*team-iso2\/held: started worker \([0-9]*\).*/\1/p' "$SK_DIR/bulkheadd.log" | tail -1)
		[ -n "$same" ] && [ -n "$other" ] && grep -q "worker team-iso/held2: sandbox:" "$SK_DIR/bulkheadd.log" &&
			grep -q "worker team-iso2/held: sandbox:" "$SK_DIR/bulkheadd.log" && break
		sleep 0.2
	done
	[ -n "$same" ] && [ -n "$other" ] || sk_fail "no workers started for team-iso/held2 and team-iso2/held"
	for ns in user net mnt ipc uts; do
		[ "$(id -u)" = 0 ] || break # another process's namespaces need ptrace rights
		a=$(readlink "/proc/$pid/ns/$ns") b=$(readlink "/proc/$same/ns/$ns") c=$(readlink "/proc/$other/ns/$ns")
		[ -n "$a" ] && [ "$a" = "$b" ] || sk_fail "one tenant's workers are in two $ns namespaces: '$a' '$b'"
		[ "$a" != "$c" ] || sk_fail "two tenants' workers share the $ns namespace $a"
	done
	echo "tenants: one tenant's workers share their namespaces, another tenant's has its own"
else
	echo "SKIP (part): this host refuses unprivileged user namespaces; the worker says: $report"
	e2e_expect_contains "$report" "user namespace shared (host refuses)" "the worker's report"
fi
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
echo "PASS: worker runs as $want_uid; namespaces: $userns"
