# tests/e2e/lib.sh — shared helpers for end-to-end shell tests (source it).
#
#   . "$BH_SRCDIR/tests/e2e/lib.sh"
#   e2e_need_tool kubectl          # exit 77 (skip) with a reason if missing
#   e2e_need_shared                # exit 77 if ../shared (conformance data) is absent
#   kubesim_start [EXTRA ARGS...]  # start tests/kubesim on a free loopback port
#   kubectl get ns                 # KUBECONFIG points at kubesim's admin kubeconfig
#   kubesim_admin GET /_kubesim/log
#   kubesim_log_count verb=patch resource=deployments   # count API calls
#   kubesim_spawn remote           # a second cluster: REMOTE_KUBECONFIG, REMOTE_URL, REMOTE_DIR
#
# kubesim_start exports KUBESIM_DIR (its state dir: kubeconfig, ca.crt,
# admin.crt, admin.key, port, kubesim.log), KUBESIM_PORT, KUBESIM_URL and
# KUBECONFIG, and arranges for kubesim to be stopped and E2E_TMP removed on
# exit. Tool caches (kubectl discovery cache, helm config/cache/data) live in
# E2E_TMP so tests never touch $HOME.
# Helpers fail the test (exit 1) with a message on error: e2e_fail MSG.

: "${BH_SRCDIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export BH_SRCDIR
export PATH="$BH_SRCDIR/.tools/bin:$PATH"

E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bh-e2e.XXXXXX")
export E2E_TMP
export KUBECACHEDIR="$E2E_TMP/kubecache"
export XDG_CACHE_HOME="$E2E_TMP/cache" XDG_CONFIG_HOME="$E2E_TMP/config" XDG_DATA_HOME="$E2E_TMP/data"
export HELM_CACHE_HOME="$E2E_TMP/cache/helm" HELM_CONFIG_HOME="$E2E_TMP/config/helm" HELM_DATA_HOME="$E2E_TMP/data/helm"
# never talk to a real cluster by accident: until kubesim_start, no kubeconfig
export KUBECONFIG="$E2E_TMP/no-cluster.kubeconfig"
KUBESIM_PID=

e2e_cleanup() {
	kubesim_stop
	if [ -n "${E2E_KEEP:-}" ]; then
		echo "e2e: kept $E2E_TMP" >&2
	else
		rm -rf "$E2E_TMP"
	fi
}
trap e2e_cleanup EXIT
trap 'exit 1' INT TERM

# e2e_has PATTERN...: grep that reads all its input and prints nothing.
# Use it at the end of a pipe instead of 'grep -q': under pipefail, grep -q's
# early exit reaches the writer as SIGPIPE and fails a pipe that matched.
e2e_has() {
	grep "$@" >/dev/null
}

e2e_fail() {
	echo "FAIL: $*" >&2
	if [ -n "${KUBESIM_DIR:-}" ] && [ -f "$KUBESIM_DIR/kubesim.log" ]; then
		echo "--- last lines of kubesim.log:" >&2
		tail -n 20 "$KUBESIM_DIR/kubesim.log" >&2
	fi
	exit 1
}

e2e_skip() {
	echo "SKIP: $*"
	exit 77
}

e2e_need_tool() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || e2e_skip "$t not found on PATH (install with scripts/install-deps.sh)"
	done
}

e2e_need_shared() {
	E2E_SHARED="$BH_SRCDIR/../shared"
	[ -d "$E2E_SHARED/conformance" ] || e2e_skip "$E2E_SHARED/conformance not present"
	export E2E_SHARED
}

# kubesim_start [ARGS...]: start kubesim, wait (up to 30s) for its kubeconfig.
kubesim_start() {
	command -v python3 >/dev/null 2>&1 || e2e_skip "python3 not installed"
	KUBESIM_DIR="$E2E_TMP/kubesim"
	mkdir -p "$KUBESIM_DIR"
	python3 "$BH_SRCDIR/tests/kubesim/kubesim" --listen 127.0.0.1:0 --dir "$KUBESIM_DIR" "$@" \
		>"$KUBESIM_DIR/kubesim.log" 2>&1 &
	KUBESIM_PID=$!
	local i
	for i in $(seq 1 300); do
		[ -f "$KUBESIM_DIR/kubeconfig" ] && break
		kill -0 "$KUBESIM_PID" 2>/dev/null || { KUBESIM_PID=; e2e_fail "kubesim exited during startup"; }
		sleep 0.1
	done
	[ -f "$KUBESIM_DIR/kubeconfig" ] || e2e_fail "kubesim did not write its kubeconfig within 30s"
	KUBESIM_PORT=$(cat "$KUBESIM_DIR/port")
	KUBESIM_URL=$(cat "$KUBESIM_DIR/url")
	KUBECONFIG="$KUBESIM_DIR/kubeconfig"
	export KUBESIM_DIR KUBESIM_PORT KUBESIM_URL KUBECONFIG
}

kubesim_stop() {
	local p
	for p in ${KUBESIM_PID:-} ${KUBESIM_EXTRA_PIDS:-}; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	KUBESIM_PID=
	KUBESIM_EXTRA_PIDS=
}

# kubesim_spawn NAME [ARGS...]: start one more kubesim (e.g. a remote cluster)
# in $E2E_TMP/kubesim-NAME; sets NAME_DIR, NAME_URL and NAME_KUBECONFIG
# (NAME upper-cased, e.g. kubesim_spawn remote -> REMOTE_KUBECONFIG).
kubesim_spawn() {
	local name=$1; shift
	local var dir pid i
	var=$(echo "$name" | tr '[:lower:]-' '[:upper:]_')
	dir="$E2E_TMP/kubesim-$name"
	mkdir -p "$dir"
	python3 "$BH_SRCDIR/tests/kubesim/kubesim" --listen 127.0.0.1:0 --dir "$dir" "$@" >"$dir/kubesim.log" 2>&1 &
	pid=$!
	KUBESIM_EXTRA_PIDS="${KUBESIM_EXTRA_PIDS:-} $pid"
	for i in $(seq 1 300); do
		[ -f "$dir/kubeconfig" ] && break
		kill -0 "$pid" 2>/dev/null || e2e_fail "kubesim $name exited during startup: $(tail -5 "$dir/kubesim.log")"
		sleep 0.1
	done
	[ -f "$dir/kubeconfig" ] || e2e_fail "kubesim $name did not write its kubeconfig within 30s"
	printf -v "${var}_DIR" '%s' "$dir"
	printf -v "${var}_URL" '%s' "$(cat "$dir/url")"
	printf -v "${var}_KUBECONFIG" '%s' "$dir/kubeconfig"
	export "${var}_DIR" "${var}_URL" "${var}_KUBECONFIG"
}

# kubesim_admin METHOD PATH [JSON-BODY]: call kubesim as admin (client cert);
# prints the response body, fails on HTTP status >= 400.
kubesim_admin() {
	local method=$1 path=$2 body=${3:-}
	local args=(-sS --fail-with-body -X "$method")
	case "$KUBESIM_URL" in
	https:*) args+=(--cacert "$KUBESIM_DIR/ca.crt" --cert "$KUBESIM_DIR/admin.crt" --key "$KUBESIM_DIR/admin.key") ;;
	esac
	[ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
	curl "${args[@]}" "$KUBESIM_URL$path"
}

# kubesim_log_count [KEY=VALUE...]: number of request-log entries whose fields
# all match (e.g. verb=patch resource=deployments impersonatedUser=system:serviceaccount:a:b).
kubesim_log_count() {
	kubesim_admin GET /_kubesim/log | python3 -c '
import json, sys
want = dict(a.split("=", 1) for a in sys.argv[1:])
n = 0
for line in sys.stdin:
    e = json.loads(line)
    if all(str(e.get(k) if e.get(k) is not None else "") == v for k, v in want.items()):
        n += 1
print(n)' "$@"
}

# kubesim_curl [CURL ARGS...] PATH: raw curl against kubesim with the admin cert.
kubesim_curl() {
	local n=$#
	local path=${!n}
	local args=("${@:1:$((n - 1))}")
	case "$KUBESIM_URL" in
	https:*) args+=(--cacert "$KUBESIM_DIR/ca.crt" --cert "$KUBESIM_DIR/admin.crt" --key "$KUBESIM_DIR/admin.key") ;;
	esac
	curl -sS "${args[@]}" "$KUBESIM_URL$path"
}

# kubesim_kubeconfig_token NAME TOKEN FILE: write a self-contained kubeconfig
# (CA data embedded, no file paths) using bearer TOKEN. E2E_SERVER_HOST set
# (opt-in, e.g. localhost): its server is https://$E2E_SERVER_HOST:PORT, the
# API server given by a name kubesim's certificate holds, not by address.
kubesim_kubeconfig_token() {
	local name=$1 token=$2 file=$3 server=$KUBESIM_URL
	[ -n "${E2E_SERVER_HOST:-}" ] && server="https://$E2E_SERVER_HOST:$KUBESIM_PORT"
	cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubesim
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 <"$KUBESIM_DIR/ca.crt")
users:
- name: $name
  user:
    token: $token
contexts:
- name: $name
  context:
    cluster: kubesim
    user: $name
    namespace: default
current-context: $name
EOF
}

# kubesim_bulkheadd_kubeconfig FILE: apply the RBAC of deploy/bulkhead.yaml
# (all but its Deployment) as admin, and write FILE, a kubeconfig with a
# TokenRequest token of the bulkheadd ServiceAccount: bulkheadd then runs with
# exactly the rights deploy/ grants it.
kubesim_bulkheadd_kubeconfig() {
	local tok
	tok=$(python3 "$BH_SRCDIR/tests/e2e/deploy_rbac.py" "$KUBESIM_DIR" "$BH_SRCDIR/deploy/bulkhead.yaml") \
		|| e2e_fail "installing bulkheadd's identity from deploy/bulkhead.yaml"
	kubesim_kubeconfig_token bulkheadd "$tok" "$1"
}

# e2e_free_port: a free TCP port on 127.0.0.1.
e2e_free_port() {
	local p given="$E2E_TMP/ports-given"
	# never a port this test was given before: the kernel may hand out the
	# same ephemeral port twice while the first taker has not bound it yet,
	# and two servers would then race for one port
	while :; do
		p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') || return 1
		grep -qx "$p" "$given" 2>/dev/null || break
	done
	echo "$p" >>"$given"
	echo "$p"
}

# e2e_retry SECONDS CMD...: run CMD until it succeeds or SECONDS pass.
e2e_retry() {
	local secs=$1; shift
	local end=$((SECONDS + secs))
	while ! "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

# e2e_expect_contains HAYSTACK NEEDLE [WHAT]
e2e_expect_contains() {
	case "$1" in
	*"$2"*) ;;
	*) e2e_fail "${3:-output} does not contain '$2'; got: $1" ;;
	esac
}

# e2e_crd_yaml KIND: a namespaced CustomResourceDefinition of KIND in group
# example.com, version v1, any fields (plural: lowercased KIND + "s").
e2e_crd_yaml() {
	local s=${1,,}
	cat <<YAML
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${s}s.example.com
spec:
  group: example.com
  names: {kind: $1, plural: ${s}s, singular: $s, listKind: ${1}List}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
YAML
}
