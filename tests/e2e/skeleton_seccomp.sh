#!/usr/bin/env bash
# tests/e2e/skeleton_seccomp.sh — must-show 4: a worker that tries socket(),
# execve() or open("/etc/passwd") is stopped by its seccomp filter, and the
# supervisor reports which system call on the HelmRelease and in an Event.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
sk_setup --test-hooks --concurrent 3
sk_publish "$BH_SRCDIR/tests/e2e/skeleton/demo" team-s demo
sk_apply_hr team-s net demo "" "    bulkhead.dev/test-hook: socket"
sk_apply_hr team-s exec demo "" "    bulkhead.dev/test-hook: execve"
sk_apply_hr team-s files demo "" "    bulkhead.dev/test-hook: open"
nr_socket=$(printf '#include <sys/syscall.h>\nSYS_socket SYS_execve SYS_openat\n' | cpp -P - 2>/dev/null | tr -s ' ' | tail -1)
read -r n_socket n_execve n_openat <<<"$nr_socket"
for x in "net socket $n_socket" "exec execve $n_execve" "files openat $n_openat"; do
	set -- $x
	r=$(sk_wait_cond team-s "$1" False 60)
	echo "$1: $r"
	e2e_expect_contains "$r" "False|SandboxViolation|worker killed by seccomp: forbidden system call $2 ($3)" "Ready of team-s/$1"
done
# nothing escaped the sandbox: no release was stored, no object created
[ -z "$(kubectl get secrets -n team-s -l owner=helm -o name)" ] || sk_fail "a release was stored"
ev=$(kubectl get events -n team-s -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}')
e2e_expect_contains "$ev" "SandboxViolation: worker killed by seccomp: forbidden system call execve" "events"
kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
echo "PASS: socket, execve and open are refused and named"
