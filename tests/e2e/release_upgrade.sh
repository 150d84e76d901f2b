#!/usr/bin/env bash
# tests/e2e/release_upgrade.sh — the release state machine's sync decisions:
# install, then a reconcile with nothing changed is in sync (Ready, no new
# Helm version), a values change and a chart version change upgrade; the
# history snapshots carry digests, configDigest is sha256 of the values'
# YAML, and Helm storage agrees with .status.history.
set -uo pipefail
: "${BH_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$BH_SRCDIR/tests/e2e/lib.sh"
. "$BH_SRCDIR/tests/e2e/skeleton_lib.sh"
. "$BH_SRCDIR/tests/e2e/release_lib.sh"
sk_setup
sk_publish "$BH_SRCDIR/tests/e2e/release/app" team-u app
sk_apply_hr team-u web app "  values:
    message: one"
r=$(sk_wait_ready team-u web 60)
e2e_expect_contains "$r" "True|InstallSucceeded|Helm install succeeded for release team-u/web.v1 with chart app@1.0.0" "Ready after install"
e2e_expect_contains "$(rl_cond team-u web Released)" "True|InstallSucceeded|" "Released"
[ "$(rl_history team-u web)" = "1:deployed" ] || sk_fail "helm history after install: $(rl_history team-u web)"
h=$(rl_status team-u web '{.status.history[0].apiVersion} {.status.history[0].name} {.status.history[0].namespace} {.status.history[0].version} {.status.history[0].status} {.status.history[0].chartName} {.status.history[0].chartVersion} {.status.history[0].appVersion}')
[ "$h" = "v2 web team-u 1 deployed app 1.0.0 1.0" ] || sk_fail "history[0]: $h"
d1=$(rl_status team-u web '{.status.history[0].digest}')
case "$d1" in sha256:????????????????????????????????????????????????????????????????) ;; *) sk_fail "digest '$d1'" ;; esac
# configDigest: sha256 over the values' YAML (fluxcd/pkg chartutil.DigestValues)
want="sha256:$(printf 'message: one\n' | sha256sum | cut -d' ' -f1)"
[ "$(rl_status team-u web '{.status.history[0].configDigest}')" = "$want" ] || sk_fail "configDigest $(rl_status team-u web '{.status.history[0].configDigest}') want $want"
[ "$(rl_status team-u web '{.status.lastAttemptedConfigDigest}')" = "$want" ] || sk_fail "lastAttemptedConfigDigest"
[ "$(rl_status team-u web '{.status.lastAttemptedRevision} {.status.lastAttemptedReleaseAction} {.status.observedGeneration}')" = "1.0.0 install 1" ] \
	|| sk_fail "lastAttempted*: $(rl_status team-u web '{.status}')"
[ "$(kubectl get cm web-config -n team-u -o jsonpath='{.data.message}')" = one ] || sk_fail "web-config"

# nothing changed: in sync, no new release version, Ready stays True
rl_request team-u web
r=$(sk_ready team-u web)
e2e_expect_contains "$r" "True|InstallSucceeded|" "Ready after an in-sync reconcile"
[ "$(rl_history team-u web)" = "1:deployed" ] || sk_fail "in-sync reconcile wrote a release: $(rl_history team-u web)"
[ "$(rl_status team-u web '{.status.history[0].digest}')" = "$d1" ] || sk_fail "digest changed while in sync"
[ "$(rl_status team-u web '{.status.lastAppliedRevision}')" = 1.0.0 ] || sk_fail "lastAppliedRevision"

# values change: upgrade to v2, v1 superseded
kubectl patch helmrelease web -n team-u --type=merge -p '{"spec":{"values":{"message":"two","replicas":2}}}' >/dev/null
rl_wait_gen team-u web 2 60
r=$(sk_ready team-u web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-u/web.v2 with chart app@1.0.0" "Ready after a values change"
[ "$(rl_history team-u web)" = "1:superseded 2:deployed" ] || sk_fail "helm history after upgrade: $(rl_history team-u web)"
h=$(rl_status team-u web '{.status.history[0].version}:{.status.history[0].status} {.status.history[1].version}:{.status.history[1].status}')
[ "$h" = "2:deployed 1:superseded" ] || sk_fail "status.history after upgrade: $h"
want2="sha256:$(printf 'message: two\nreplicas: 2\n' | sha256sum | cut -d' ' -f1)"
[ "$(rl_status team-u web '{.status.history[0].configDigest}')" = "$want2" ] || sk_fail "configDigest after upgrade"
[ "$(rl_status team-u web '{.status.history[1].configDigest}')" = "$want" ] || sk_fail "configDigest of v1 kept"
[ "$(rl_status team-u web '{.status.history[1].digest}')" != "$d1" ] || sk_fail "digest of v1 not refreshed after it was superseded"
[ "$(kubectl get cm web-config -n team-u -o jsonpath='{.data.message}')" = two ] || sk_fail "web-config after upgrade"
[ "$(kubectl get deploy web -n team-u -o jsonpath='{.spec.replicas}')" = 2 ] || sk_fail "replicas after upgrade"
[ "$(rl_status team-u web '{.status.lastAttemptedReleaseAction}')" = upgrade ] || sk_fail "lastAttemptedReleaseAction"

# a new chart version (same HelmRelease generation): upgrade to v3
sk_publish "$(rl_chart_version 1.1.0)" team-u app
rl_request team-u web
r=$(sk_ready team-u web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-u/web.v3 with chart app@1.1.0" "Ready after a chart change"
[ "$(rl_history team-u web)" = "1:superseded 2:superseded 3:deployed" ] || sk_fail "helm history after chart upgrade: $(rl_history team-u web)"
[ "$(rl_status team-u web '{.status.lastAttemptedRevision} {.status.history[0].chartVersion} {.status.history[0].configDigest}')" = "1.1.0 1.1.0 $want2" ] \
	|| sk_fail "after the chart upgrade: $(rl_status team-u web '{.status}')"
# in sync again: the history is truncated to the latest and the previous successful release
rl_request team-u web
[ "$(rl_status team-u web '{.status.history[*].version}')" = "3 2" ] || sk_fail "history not truncated: $(rl_status team-u web '{.status.history[*].version}')"
[ "$(rl_history team-u web)" = "1:superseded 2:superseded 3:deployed" ] || sk_fail "in-sync reconcile wrote a release"

# a release changed behind bulkhead's back (helm CLI upgrade) is unmanaged: adopted by an upgrade
out=$(helm upgrade web "$(rl_chart_version 1.1.0)" -n team-u --reuse-values --set message=cli --force-conflicts 2>&1) || sk_fail "helm upgrade: $out"
rl_request team-u web
r=$(sk_ready team-u web)
e2e_expect_contains "$r" "True|UpgradeSucceeded|Helm upgrade succeeded for release team-u/web.v5 with chart app@1.1.0" "Ready after adopting a CLI upgrade"
[ "$(kubectl get cm web-config -n team-u -o jsonpath='{.data.message}')" = two ] || sk_fail "web-config not restored"
[ "$(rl_status team-u web '{.status.history[*].version}')" = "5" ] || sk_fail "history after adoption: $(rl_status team-u web '{.status.history[*].version}')"
# every .spec.interval the state machine looks again, without any request
kubectl patch helmrelease web -n team-u --type=merge -p '{"spec":{"interval":"2s"}}' >/dev/null
rl_wait_gen team-u web 3 60
[ "$(rl_history team-u web | wc -w)" = 5 ] || sk_fail "an interval change wrote a release: $(rl_history team-u web)"
out=$(helm upgrade web "$(rl_chart_version 1.1.0)" -n team-u --reuse-values --set message=again --force-conflicts 2>&1) || sk_fail "helm upgrade: $out"
end=$((SECONDS + 30))
until [ "$(rl_status team-u web '{.status.history[0].version}')" = 7 ]; do
	[ $SECONDS -ge $end ] && sk_fail "the interval reconcile did not adopt v6: $(rl_status team-u web '{.status.history[*].version}')"
	sleep 0.3
done
[ "$(kubectl get cm web-config -n team-u -o jsonpath='{.data.message}')" = two ] || sk_fail "web-config not restored by the interval reconcile"
# reconcile.fluxcd.io/forceAt = requestedAt: an upgrade although in sync
t=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
kubectl annotate helmrelease web -n team-u --overwrite "reconcile.fluxcd.io/forceAt=$t" "reconcile.fluxcd.io/requestedAt=$t" >/dev/null
end=$((SECONDS + 30))
until [ "$(rl_status team-u web '{.status.lastHandledForceAt}')" = "$t" ]; do
	[ $SECONDS -ge $end ] && sk_fail "force not handled: $(rl_status team-u web '{.status}')"
	sleep 0.3
done
[ "$(rl_status team-u web '{.status.history[0].version}')" = 8 ] || sk_fail "forced upgrade: $(rl_status team-u web '{.status.history[*].version}')"
sleep 3 # interval reconciles after it: in sync, no further versions
[ "$(rl_status team-u web '{.status.history[0].version}')" = 8 ] || sk_fail "the force was handled twice"
echo "PASS: in-sync no-op, upgrades on values and chart changes, digests and history"
