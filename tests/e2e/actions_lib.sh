# tests/e2e/actions_lib.sh — helpers for the release-action tests (source
# after lib.sh): drive `bulkhead release` and the real helm alternately
# against kubesim and check storage Secrets and objects.
#
#   bh release install NAME CHART -n NS ...     # bulkhead, fails the test on error
#   bh_fail release upgrade ...                 # must fail; prints its stderr
#   expect_versions NS NAME "1:superseded 2:deployed"
#   expect_history NS NAME REV STATUS DESCRIPTION-REGEX   (read by helm history)

: "${BH_BUILDDIR:=$(pwd)}"
BULKHEAD="$BH_BUILDDIR/cli/bulkhead"
[ -x "$BULKHEAD" ] || e2e_skip "bulkhead not built at $BULKHEAD"

bh() {
	local out
	out=$("$BULKHEAD" "$@" 2>&1) || e2e_fail "bulkhead $*: $out"
	BH_OUT=$out
}

bh_fail() {
	local out
	out=$("$BULKHEAD" "$@" 2>&1) && e2e_fail "bulkhead $* succeeded but should fail: $out"
	BH_OUT=$out
}

hm() {
	local out
	out=$(helm "$@" 2>&1) || e2e_fail "helm $*: $out"
	HELM_OUT=$out
}

# The storage Secrets of a release as "V:STATUS ..." (label status, by version).
release_versions() {
	kubectl get secrets -n "$1" -l "owner=helm,name=$2" \
		-o jsonpath='{range .items[*]}{.metadata.labels.version}:{.metadata.labels.status}{"\n"}{end}' |
		sort -n | tr '\n' ' ' | sed 's/ $//'
}

expect_versions() {
	local got
	got=$(release_versions "$1" "$2")
	[ "$got" = "$3" ] || e2e_fail "release $1/$2 storage: want '$3', got '$got'"
	# the type of every storage Secret is Helm's
	local types
	types=$(kubectl get secrets -n "$1" -l "owner=helm,name=$2" -o jsonpath='{range .items[*]}{.type}{"\n"}{end}' | sort -u)
	[ -z "$3" ] || [ "$types" = helm.sh/release.v1 ] || e2e_fail "release $1/$2 Secret types: $types"
}

expect_history() {
	local ns=$1 name=$2 rev=$3 status=$4 desc=$5 out
	out=$(helm history "$name" -n "$ns" 2>&1) || e2e_fail "helm history $name: $out"
	echo "$out" | grep -Eq "^$rev[[:space:]].*[[:space:]]$status[[:space:]].*$desc" ||
		e2e_fail "helm history $name: revision $rev not '$status' '$desc':
$out"
}

# jsonpath of one object
kget() {
	kubectl get "$@" 2>/dev/null
}

# make_hookchart DIR: a small chart with a hook for every Helm event (three
# ConfigMap hooks per event with weights 5, -1, -1 named a, b, c — run order
# b, c, a), a pre-upgrade Job (preUpgradeJob=true; exits with jobExit), test Pods
# (t-ok, and t-bad when testFail=true), a ConfigMap with
# helm.sh/resource-policy: keep (kept=false drops it), an optional "extra"
# ConfigMap, a ConfigMap of `lookup` results (lookup=true), and an ordinary Job hk-work-N sleeping workJob=N seconds (0 = none).
make_hookchart() {
	local d=$1
	mkdir -p "$d/templates" "$d/crds"
	cat >"$d/Chart.yaml" <<'YAML'
apiVersion: v2
name: hookchart
version: 0.1.0
appVersion: "1.0"
YAML
	cat >"$d/values.yaml" <<'YAML'
data: one
extra: false
kept: true
workJob: 0
lookup: false
oldKey: false
preUpgradeJob: false
jobExit: 0
jobDeletePolicy: hook-succeeded
testFail: false
hookEvents: [pre-install, post-install, pre-upgrade, post-upgrade, pre-rollback, post-rollback, pre-delete, post-delete]
YAML
	cat >"$d/templates/main.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-main
data:
  value: {{ .Values.data | quote }}
{{- if .Values.oldKey }}
  old: x
{{- end }}
{{- if .Values.kept }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-kept
  annotations:
    helm.sh/resource-policy: keep
data:
  value: kept
{{- end }}
{{- if .Values.workJob }}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-work-{{ .Values.workJob }}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: busybox
          command: ["sh", "-c", "sleep {{ .Values.workJob }}"]
{{- end }}
{{- if .Values.lookup }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-lookup
data:
  probe: {{ (lookup "v1" "ConfigMap" .Release.Namespace "probe").data | toJson | quote }}
  missing: {{ lookup "v1" "ConfigMap" .Release.Namespace "no-such" | toJson | quote }}
  names: {{ range (lookup "v1" "ConfigMap" .Release.Namespace "").items }}{{ if hasPrefix "probe" .metadata.name }}{{ .metadata.name }},{{ end }}{{ end }}
{{- end }}
{{- if .Values.extra }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-extra
data:
  value: extra
{{- end }}
YAML
	cat >"$d/templates/hooks.yaml" <<'YAML'
{{- range .Values.hookEvents }}
{{- $ev := . }}
{{- range $n, $w := dict "a" "5" "b" "-1" "c" "-1" }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: h-{{ $ev }}-{{ $n }}
  annotations:
    helm.sh/hook: {{ $ev }}
    helm.sh/hook-weight: {{ $w | quote }}
data:
  event: {{ $ev }}
{{- end }}
{{- end }}
{{- if .Values.preUpgradeJob }}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: h-pre-upgrade-job
  annotations:
    helm.sh/hook: pre-upgrade
    helm.sh/hook-delete-policy: {{ .Values.jobDeletePolicy }}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: job
          image: busybox
          command: ["sh", "-c", "exit {{ .Values.jobExit }}"]
{{- end }}
YAML
	cat >"$d/templates/tests.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: t-ok
  annotations:
    helm.sh/hook: test
    helm.sh/hook-delete-policy: before-hook-creation
spec:
  restartPolicy: Never
  containers:
    - name: t
      image: busybox
      command: ["sh", "-c", "exit 0"]
{{- if .Values.testFail }}
---
apiVersion: v1
kind: Pod
metadata:
  name: t-bad
  annotations:
    helm.sh/hook: test
spec:
  restartPolicy: Never
  containers:
    - name: t
      image: busybox
      command: ["sh", "-c", "exit 1"]
{{- end }}
YAML
	e2e_crd_yaml Widget >"$d/crds/widgets.yaml"
}

# log_mark: remember the request log position; log_since: the requests after
# it as "VERB RESOURCE NAME STATUS" lines (writes only, hook objects h-*/t-*
# unless a grep pattern is given).
log_mark() {
	LOG_MARK=$(wc -l <"$KUBESIM_DIR/requests.log")
}
log_since() {
	# (a reader that stops early, like grep -q, must not fail the pipeline)
	tail -n +"$((LOG_MARK + 1))" "$KUBESIM_DIR/requests.log" | python3 -c 'import json,os,sys
try:
    for l in sys.stdin:
        r=json.loads(l)
        if r["verb"] in ("get","list","watch"): continue
        print(r["verb"], r["resource"], r["name"], r["status"], flush=True)
except BrokenPipeError:
    os._exit(0)'
}

# release_json NS NAME VERSION: the decoded release record.
release_json() {
	kubectl get secret -n "$1" "sh.helm.release.v1.$2.v$3" -o jsonpath='{.data.release}' |
		base64 -d | base64 -d | gunzip
}
