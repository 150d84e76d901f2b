#!/usr/bin/env bash
# tests/e2e/actions_options.sh — each install/upgrade option of
# `bulkhead release` has its documented effect, against kubesim:
# CRD policies (Skip/Create/CreateReplace; upgrade default Skip),
# createNamespace, replace, ownership checks and adoption
# (disableTakeOwnership; the refusal text equals the real helm's), the fixed
# SSA field manager, disableWait / disableWaitForJobs / timeout, removal of
# objects no longer rendered except resource-policy keep, force (replace),
# cleanupOnFail, preserveValues, maxHistory.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm
. "$(dirname "$0")/actions_lib.sh"
kubesim_start --pod-start-delay 2
CH="$E2E_TMP/hookchart"
make_hookchart "$CH"
NOH=--no-hooks
crd_singular() { kubectl get crd widgets.example.com -o jsonpath='{.spec.names.singular}' 2>/dev/null; }

echo "== CRDs: install --crds skip / create / create-replace; upgrade default skip"
kubectl create namespace c >/dev/null
bh release install hk "$CH" -n c $NOH --crds skip
kubectl get crd widgets.example.com >/dev/null 2>&1 && e2e_fail "--crds skip created the CRD"
bh release uninstall hk -n c $NOH
bh release install hk "$CH" -n c $NOH
[ "$(crd_singular)" = widget ] || e2e_fail "install (default Create) did not create the CRD"
kubectl patch crd widgets.example.com --type merge -p '{"spec":{"names":{"singular":"widgetx"}}}' >/dev/null ||
	e2e_fail "patch crd"
bh release upgrade hk "$CH" -n c $NOH
[ "$(crd_singular)" = widgetx ] || e2e_fail "upgrade (default Skip) touched the CRD"
bh release upgrade hk "$CH" -n c $NOH --crds create
[ "$(crd_singular)" = widgetx ] || e2e_fail "--crds create replaced an existing CRD"
bh release upgrade hk "$CH" -n c $NOH --crds create-replace --crd-label helm.toolkit.fluxcd.io/name=hk
[ "$(crd_singular)" = widget ] || e2e_fail "--crds create-replace did not update the CRD"
[ "$(kubectl get crd widgets.example.com -o jsonpath='{.metadata.labels.helm\.toolkit\.fluxcd\.io/name}')" = hk ] ||
	e2e_fail "CRD labels (Flux's helm.toolkit.fluxcd.io/name) not applied"
helm get manifest hk -n c | e2e_has CustomResourceDefinition && e2e_fail "CRD stored in the release manifest"
bh release uninstall hk -n c $NOH
kubectl get crd widgets.example.com >/dev/null 2>&1 || e2e_fail "uninstall deleted the CRD (Helm never does)"

echo "== createNamespace"
bh_fail release install hk "$CH" -n fresh $NOH
kubectl get namespace fresh >/dev/null 2>&1 && e2e_fail "namespace created without --create-namespace"
bh release install hk "$CH" -n fresh $NOH --create-namespace
[ "$(kubectl get namespace fresh -o jsonpath='{.metadata.labels.name}')" = fresh ] || e2e_fail "namespace label name"
expect_versions fresh hk "1:deployed"

echo "== the fixed field manager (server-side apply)"
mf=$(kubectl get cm hk-main -n fresh -o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation}{" "}{end}')
[ "$mf" = "helm-controller/Apply " ] || e2e_fail "managedFields: $mf"
bh release install hk2 "$CH" -n fresh $NOH --field-manager my-manager --set data=z --set kept=false
# (names: hk2-main)
mf=$(kubectl get cm hk2-main -n fresh -o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation}{" "}{end}')
[ "$mf" = "my-manager/Apply " ] || e2e_fail "managedFields with --field-manager: $mf"

echo "== replace"
bh release uninstall hk -n fresh $NOH --keep-history
expect_versions fresh hk "1:uninstalled"
bh_fail release install hk "$CH" -n fresh $NOH
out=$(helm install hk "$CH" -n fresh --no-hooks 2>&1) && e2e_fail "helm reused the name"
want=$(echo "$out" | sed -n 's/^Error: INSTALLATION FAILED: //p')
[ "$(echo "$BH_OUT" | sed -n 's/^Error: //p')" = "$want" ] || e2e_fail "refusal differs from helm's ($want): $BH_OUT"
bh release install hk "$CH" -n fresh $NOH --replace
expect_versions fresh hk "1:superseded 2:deployed"
expect_history fresh hk 1 superseded "superseded by new release"

echo "== ownership: refusal (same text as helm) and adoption"
kubectl create namespace own >/dev/null
kubectl create configmap hk-main -n own --from-literal=value=mine >/dev/null
out=$(helm install hk "$CH" -n own --no-hooks 2>&1) && e2e_fail "helm adopted an unowned object"
want=$(echo "$out" | sed -n 's/^Error: INSTALLATION FAILED: //p')
[ -n "$want" ] || e2e_fail "helm's error: $out"
bh_fail release install hk "$CH" -n own $NOH --disable-take-ownership
got=$(echo "$BH_OUT" | sed -n 's/^Error: //p')
[ "$got" = "$want" ] || e2e_fail "ownership refusal differs from helm's:
helm:     $want
bulkhead: $got"
expect_versions own hk ""
[ "$(kubectl get cm hk-main -n own -o jsonpath='{.data.value}')" = mine ] || e2e_fail "refused install changed the object"
bh release install hk "$CH" -n own $NOH
e2e_expect_contains "$BH_OUT" "update ConfigMap own/hk-main" "adoption"
[ "$(kubectl get cm hk-main -n own -o jsonpath='{.metadata.annotations.meta\.helm\.sh/release-name}')" = hk ] ||
	e2e_fail "adopted object lacks the ownership annotation"
[ "$(kubectl get cm hk-main -n own -o jsonpath='{.data.value}')" = one ] || e2e_fail "adopted object not updated"
# an object owned by another release is refused on upgrade too
kubectl create configmap hk-extra -n own --from-literal=value=other >/dev/null
kubectl annotate cm hk-extra -n own meta.helm.sh/release-name=other meta.helm.sh/release-namespace=own >/dev/null
kubectl label cm hk-extra -n own app.kubernetes.io/managed-by=Helm >/dev/null
bh_fail release upgrade hk "$CH" -n own $NOH --set extra=true --disable-take-ownership
e2e_expect_contains "$BH_OUT" 'unable to continue with update: ConfigMap "hk-extra" in namespace "own" exists and cannot be imported into the current release: invalid ownership metadata; annotation validation error: key "meta.helm.sh/release-name" must equal "hk": current value is "other"'
expect_versions own hk "1:deployed"

echo "== disableWait, disableWaitForJobs, timeout"
kubectl create namespace w >/dev/null
t0=$SECONDS
bh release install hk "$CH" -n w $NOH --set workJob=3
[ $((SECONDS - t0)) -ge 3 ] || e2e_fail "install did not wait for the Job to complete"
[ "$(kubectl get job hk-work-3 -n w -o jsonpath='{.status.succeeded}')" = 1 ] || e2e_fail "Job not complete after the wait"
# Jobs of 30 s: returning before they complete shows no wait, whatever the
# machine's load (a wall-clock bound failed on a loaded machine).
bh release upgrade hk "$CH" -n w $NOH --set workJob=30 --set data=b --no-wait-for-jobs
[ "$(kubectl get job hk-work-30 -n w -o jsonpath='{.status.succeeded}')" != 1 ] || e2e_fail "--no-wait-for-jobs still waited for the Job"
bh release upgrade hk "$CH" -n w $NOH --set workJob=31 --set data=c --no-wait
[ "$(kubectl get job hk-work-31 -n w -o jsonpath='{.status.succeeded}')" != 1 ] || e2e_fail "--no-wait still waited"
bh_fail release upgrade hk "$CH" -n w $NOH --set workJob=20 --set data=d --timeout 2s
e2e_expect_contains "$BH_OUT" "context deadline exceeded" "timeout"
e2e_expect_contains "$BH_OUT" "Job/w/hk-work-20" "timeout names the object"
expect_history w hk 4 failed 'Upgrade "hk" failed: resource Job/w/hk-work-20 not ready'

echo "== upgrade removes objects no longer rendered, except resource-policy keep"
kubectl create namespace rm >/dev/null
bh release install hk "$CH" -n rm $NOH --set extra=true
kubectl get cm hk-extra -n rm >/dev/null || e2e_fail "extra not created"
bh release upgrade hk "$CH" -n rm $NOH --set kept=false
e2e_expect_contains "$BH_OUT" "delete ConfigMap rm/hk-extra"
e2e_expect_contains "$BH_OUT" "keep ConfigMap rm/hk-kept"
kubectl get cm hk-extra -n rm >/dev/null 2>&1 && e2e_fail "removed object still there"
kubectl get cm hk-kept -n rm >/dev/null || e2e_fail "resource-policy keep object deleted"

echo "== force (replace) vs apply"
kubectl label cm hk-main -n rm extra-label=yes >/dev/null
bh release upgrade hk "$CH" -n rm $NOH --set data=two
[ "$(kubectl get cm hk-main -n rm -o jsonpath='{.metadata.labels.extra-label}')" = yes ] ||
	e2e_fail "server-side apply removed another manager's label"
bh release upgrade hk "$CH" -n rm $NOH --set data=three --force
[ -z "$(kubectl get cm hk-main -n rm -o jsonpath='{.metadata.labels.extra-label}')" ] ||
	e2e_fail "--force did not replace the object"
[ "$(kubectl get cm hk-main -n rm -o jsonpath='{.data.value}')" = three ] || e2e_fail "--force value"

echo "== cleanupOnFail"
bh_fail release upgrade hk "$CH" -n rm $NOH --set extra=true --set workJob=20 --timeout 2s
kubectl get cm hk-extra -n rm >/dev/null 2>&1 || e2e_fail "without --cleanup-on-fail the new object must stay"
# as in Helm, the next upgrade diffs against the last deployed release, so
# what the failed upgrade created is left behind: remove it by hand
bh release upgrade hk "$CH" -n rm $NOH
kubectl get cm hk-extra -n rm >/dev/null 2>&1 || e2e_fail "the failed upgrade's object should be left (Helm's diff base)"
kubectl delete cm hk-extra -n rm >/dev/null
kubectl delete job hk-work-20 -n rm >/dev/null
bh_fail release upgrade hk "$CH" -n rm $NOH --set extra=true --set workJob=20 --timeout 2s --cleanup-on-fail
e2e_retry 5 sh -c '! kubectl get cm hk-extra -n rm >/dev/null 2>&1' || e2e_fail "--cleanup-on-fail left the created object"
e2e_retry 5 sh -c '! kubectl get job hk-work-20 -n rm >/dev/null 2>&1' || e2e_fail "--cleanup-on-fail left the created Job"
kubectl get cm hk-main -n rm >/dev/null || e2e_fail "--cleanup-on-fail deleted an object it did not create"

echo "== preserveValues"
kubectl create namespace pv >/dev/null
bh release install hk "$CH" -n pv $NOH --set data=custom
bh release upgrade hk "$CH" -n pv $NOH --set extra=true --preserve-values
[ "$(kubectl get cm hk-main -n pv -o jsonpath='{.data.value}')" = custom ] || e2e_fail "--preserve-values lost data"
hm get values hk -n pv -o json
[ "$(echo "$HELM_OUT" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin),sort_keys=True))')" = '{"data": "custom", "extra": true}' ] ||
	e2e_fail "stored values: $HELM_OUT"
bh release upgrade hk "$CH" -n pv $NOH --set extra=true
[ "$(kubectl get cm hk-main -n pv -o jsonpath='{.data.value}')" = one ] || e2e_fail "without --preserve-values the values must reset"

echo "== lookup renders against the cluster, as helm install does"
kubectl create namespace lk >/dev/null
kubectl create namespace lk-helm >/dev/null
for n in lk lk-helm; do
	kubectl create configmap probe -n $n --from-literal=value=seen >/dev/null
	kubectl create configmap probe2 -n $n --from-literal=n=1 >/dev/null
done
hm install hk "$CH" -n lk-helm $NOH --set lookup=true
bh release install hk "$CH" -n lk $NOH --set lookup=true
want=$(kubectl get cm hk-lookup -n lk-helm -o jsonpath='{.data}')
got=$(kubectl get cm hk-lookup -n lk -o jsonpath='{.data}')
e2e_expect_contains "$want" 'seen' "helm's lookup"
[ "$got" = "$want" ] || e2e_fail "lookup results differ from helm's: helm $want, bulkhead $got"

echo "== a release applied client-side (helm --server-side=false) moves to server-side apply"
kubectl create namespace csa >/dev/null
hm install hk "$CH" -n csa $NOH --server-side=false --set oldKey=true
mf=$(kubectl get cm hk-main -n csa -o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation}{" "}{end}')
[ "$mf" = "helm/Update " ] || e2e_fail "helm's client-side install: $mf"
bh release upgrade hk "$CH" -n csa $NOH --field-manager helm
[ -z "$(kubectl get cm hk-main -n csa -o jsonpath='{.data.old}')" ] ||
	e2e_fail "a key dropped from the chart stayed after the move to server-side apply"
mf=$(kubectl get cm hk-main -n csa -o jsonpath='{range .metadata.managedFields[*]}{.manager}/{.operation}{" "}{end}')
[ "$mf" = "helm/Apply " ] || e2e_fail "managed fields after the move: $mf"
hm upgrade hk "$CH" -n csa $NOH --set data=again
[ "$(kubectl get cm hk-main -n csa -o jsonpath='{.data.value}')" = again ] || e2e_fail "helm continues after the move"

echo "== maxHistory"
for i in 1 2 3 4; do bh release upgrade hk "$CH" -n pv $NOH --set data=h$i --max-history 3; done
expect_versions pv hk "5:superseded 6:superseded 7:deployed"
echo "PASS: actions_options"
