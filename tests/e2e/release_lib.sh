# tests/e2e/release_lib.sh — helpers for the release state machine e2e tests
# (source after lib.sh and skeleton_lib.sh):
#   rl_status NS NAME JSONPATH      kubectl jsonpath of the HelmRelease
#   rl_wait_gen NS NAME GEN SECS    until .status.lastAttemptedGeneration=GEN
#                                   and Reconciling is gone
#   rl_request NS NAME              sets reconcile.fluxcd.io/requestedAt and
#                                   waits until it is handled
#   rl_history NS NAME              "v:status v:status ..." of helm history
#   rl_cond NS NAME TYPE            "status|reason|message" of a condition
#   rl_wait_gone NS NAME            until the HelmRelease is gone (60 s)
rl_status() { kubectl get helmrelease "$2" -n "$1" -o jsonpath="$3" 2>/dev/null; }

rl_cond() {
	kubectl get helmrelease "$2" -n "$1" -o jsonpath="{range .status.conditions[?(@.type==\"$3\")]}{.status}|{.reason}|{.message}{end}" 2>/dev/null
}

rl_settled() { # not Reconciling
	[ -z "$(rl_cond "$1" "$2" Reconciling)" ]
}

rl_wait_gen() {
	local end=$((SECONDS + $4))
	until [ "$(rl_status "$1" "$2" '{.status.lastAttemptedGeneration}')" = "$3" ] && rl_settled "$1" "$2"; do
		[ $SECONDS -ge $end ] && sk_fail "$1/$2 generation $3 not reconciled after $4s: $(rl_status "$1" "$2" '{.status}')"
		sleep 0.3
	done
}

rl_request() {
	local t end=$((SECONDS + 60))
	t=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
	kubectl annotate helmrelease "$2" -n "$1" --overwrite "reconcile.fluxcd.io/requestedAt=$t" >/dev/null
	until [ "$(rl_status "$1" "$2" '{.status.lastHandledReconcileAt}')" = "$t" ] && rl_settled "$1" "$2"; do
		[ $SECONDS -ge $end ] && sk_fail "$1/$2: reconcile request $t not handled: $(rl_status "$1" "$2" '{.status}')"
		sleep 0.3
	done
}

rl_wait_gone() {
	local end=$((SECONDS + 60))
	while kubectl get helmrelease "$2" -n "$1" >/dev/null 2>&1; do
		[ $SECONDS -ge $end ] && sk_fail "HelmRelease $1/$2 not let go: $(rl_status "$1" "$2" '{.metadata.finalizers} {.status.conditions}')"
		sleep 0.3
	done
}

rl_history() {
	helm history "$2" -n "$1" -o json 2>/dev/null | python3 -c 'import json,sys; print(" ".join("%d:%s" % (h["revision"], h["status"]) for h in json.load(sys.stdin)))'
}

# the chart of tests/e2e/release/app with another version, in $SK_DIR/vN/app
rl_chart_version() {
	local v=$1 d="$SK_DIR/v$1/app"
	mkdir -p "$SK_DIR/v$v"
	cp -r "$BH_SRCDIR/tests/e2e/release/app" "$SK_DIR/v$v/"
	sed -i "s/^version: .*/version: $v/" "$d/Chart.yaml"
	echo "$d"
}
