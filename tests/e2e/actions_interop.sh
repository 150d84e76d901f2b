#!/usr/bin/env bash
# tests/e2e/actions_interop.sh — interoperability of `bulkhead release` with
# the real helm v4 against kubesim, on three corpus charts: podinfo (with
# its pre/post-install and pre/post-upgrade hook Jobs), nginx (bitnami, a
# library sub-chart) and ingress-nginx (hooks: admission webhook Jobs,
# cluster-scoped objects).
#  A. installed by bulkhead -> listed and inspected (history, get values,
#     get manifest = what helm itself stores for the same values), upgraded,
#     rolled back and uninstalled by helm;
#  B. installed and upgraded by helm -> upgraded, rolled back and
#     uninstalled by bulkhead, helm reading every step.
# Each step checks the objects in kubesim and the storage versions/statuses.
# helm runs with --force-conflicts where bulkhead's field manager
# (helm-controller) owns the fields it changes, as it must against Flux.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
e2e_need_tool kubectl helm
e2e_need_shared
. "$(dirname "$0")/actions_lib.sh"
C="$E2E_SHARED/conformance/charts"
kubesim_start
kubectl create namespace apps >/dev/null || e2e_fail "create namespace"

# interop NAME CHART KIND/OBJECT JSONPATH "SET-A" "VALUE-A" "SET-B" "VALUE-B" [extra values...]
#   SET-A/SET-B: --set assignments changing the object field at JSONPATH to
#   VALUE-A/VALUE-B (the install has neither).
# the DELETEs of release objects (not hooks, not storage), as "resource name";
# helm deletes consecutive objects of one kind in parallel: runs sorted
delete_seq() {
	grep '^delete ' | grep -v ' secrets sh\.helm\.release\.' | python3 -c 'import sys
out=[]; run=[]
for l in sys.stdin.read().splitlines():
    v,res,name=l.split()[:3]
    if run and run[0][0]!=res: out.extend(sorted(run)); run=[]
    run.append((res,name))
out.extend(sorted(run))
print("\n".join(r+" "+n for r,n in out))'
}

# apply (server-side apply PATCH) writes of objects, runs sorted as above
apply_seq() {
	grep '^patch ' | python3 -c 'import sys
out=[]; run=[]
for l in sys.stdin.read().splitlines():
    v,res,name=l.split()[:3]
    if run and run[0][0]!=res: out.extend(sorted(run)); run=[]
    run.append((res,name))
out.extend(sorted(run))
print("\n".join(r+" "+n for r,n in out))'
}

# same_order A B: the lines A and B share come in the same order (and there
# are at least two)
same_order() {
	python3 -c 'import sys
a=sys.argv[1].splitlines(); b=sys.argv[2].splitlines()
common=set(a)&set(b)
sys.exit(0 if [x for x in a if x in common]==[x for x in b if x in common] and len(common)>=2 else 1)' "$1" "$2"
}

# a release record without what differs between two stored versions
record_norm() {
	python3 -c 'import json,sys
r=json.load(sys.stdin)
for k in ("version",): r.pop(k,None)
for k in ("first_deployed","last_deployed","status","description"): r["info"].pop(k,None)
c=r["chart"]
for k in ("modtime","schemamodtime"): c.pop(k,None)
for f in (c.get("templates") or [])+(c.get("files") or []): f.pop("modtime",None)
for h in r.get("hooks") or []:
    h.pop("last_run",None)
    # podinfo test pods are named with randAlphaNum
    h["manifest"]=h["manifest"].replace(h["name"],"NAME"); h["name"]="NAME"
print(json.dumps(r,indent=1,sort_keys=True))'
}

interop() {
	local name=$1 chart=$2 obj=$3 path=$4 seta=$5 vala=$6 setb=$7 valb=$8
	shift 8
	local extra=("$@") v0
	echo "== $name: bulkhead install, helm continues"
	log_mark
	bh release install "$name" "$chart" -n apps --timeout 120s "${extra[@]}"
	local our_applies
	our_applies=$(log_since | apply_seq)
	expect_versions apps "$name" "1:deployed"
	v0=$(kget "$obj" -n apps -o "jsonpath=$path") || e2e_fail "$name: $obj not created"
	[ "$(kget "$obj" -n apps -o 'jsonpath={.metadata.labels.app\.kubernetes\.io/managed-by}')" = Helm ] ||
		e2e_fail "$name: $obj lacks the managed-by label"
	[ "$(kget "$obj" -n apps -o 'jsonpath={.metadata.annotations.meta\.helm\.sh/release-name}')" = "$name" ] ||
		e2e_fail "$name: $obj lacks the release-name annotation"
	hm list -n apps
	echo "$HELM_OUT" | grep -Eq "^$name[[:space:]]+apps[[:space:]]+1[[:space:]].*deployed" || e2e_fail "helm list: $HELM_OUT"
	expect_history apps "$name" 1 deployed "Install complete"
	hm get values "$name" -n apps -o json
	local want_vals
	want_vals=$(python3 -c 'import json,sys
d={}; a=sys.argv[1:]
for i in range(len(a)-1):
    if a[i]!="--set": continue
    k,v=a[i+1].split("=",1); cur=d; ks=k.split(".")
    for x in ks[:-1]: cur=cur.setdefault(x,{})
    cur[ks[-1]]=int(v) if v.isdigit() else (v=="true" if v in("true","false") else v)
print(json.dumps(d,sort_keys=True))' "${extra[@]}")
	[ "$(echo "$HELM_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d or {},sort_keys=True))')" = "$want_vals" ] ||
		e2e_fail "$name: helm get values: $HELM_OUT (want $want_vals)"
	hm get manifest "$name" -n apps
	local m1=$HELM_OUT
	# helm upgrade with the same values stores the same manifest
	hm upgrade "$name" "$chart" -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --force-conflicts --wait --timeout 120s "${extra[@]}"
	expect_versions apps "$name" "1:superseded 2:deployed"
	hm get manifest "$name" -n apps --revision 2
	[ "$m1" = "$HELM_OUT" ] || e2e_fail "$name: manifest stored by bulkhead differs from helm's:
$(diff <(echo "$m1") <(echo "$HELM_OUT") | head -20)"
	# the whole record bulkhead stored equals helm's, but for times, status,
	# version and hook runs (and helm 4's file modtimes)
	diff <(release_json apps "$name" 1 | record_norm) <(release_json apps "$name" 2 | record_norm) >"$E2E_TMP/rec.diff" ||
		e2e_fail "$name: release record differs from helm's: $(head -c 3000 "$E2E_TMP/rec.diff")"
	hm upgrade "$name" "$chart" -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --force-conflicts --wait --timeout 120s "${extra[@]}" --set "$seta"
	expect_versions apps "$name" "1:superseded 2:superseded 3:deployed"
	expect_history apps "$name" 3 deployed "Upgrade complete"
	[ "$(kget "$obj" -n apps -o "jsonpath=$path")" = "$vala" ] || e2e_fail "$name: helm upgrade did not set $path=$vala"
	hm rollback "$name" 1 -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --force-conflicts --wait --timeout 120s
	expect_versions apps "$name" "1:superseded 2:superseded 3:superseded 4:deployed"
	expect_history apps "$name" 4 deployed "Rollback to 1"
	[ "$(kget "$obj" -n apps -o "jsonpath=$path")" = "$v0" ] || e2e_fail "$name: helm rollback did not restore $path"
	log_mark
	hm uninstall "$name" -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --wait --timeout 120s
	local helm_deletes
	helm_deletes=$(log_since | delete_seq)
	expect_versions apps "$name" ""
	kget "$obj" -n apps >/dev/null && e2e_fail "$name: $obj left after helm uninstall"

	echo "== $name: helm install and upgrade, bulkhead continues"
	log_mark
	hm install "$name" "$chart" -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --wait --timeout 120s "${extra[@]}"
	# the install applied the objects in helm's order
	same_order "$(log_since | apply_seq)" "$our_applies" || e2e_fail "$name: install order differs from helm's:
$(diff <(log_since | apply_seq) <(echo "$our_applies"))"
	hm upgrade "$name" "$chart" -n apps ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"} --wait --timeout 120s "${extra[@]}" --set "$seta"
	expect_versions apps "$name" "1:superseded 2:deployed"
	bh release upgrade "$name" "$chart" -n apps --timeout 120s "${extra[@]}" --set "$setb"
	e2e_expect_contains "$BH_OUT" "version 3 deployed (Upgrade complete)" "bulkhead upgrade"
	expect_versions apps "$name" "1:superseded 2:superseded 3:deployed"
	expect_history apps "$name" 3 deployed "Upgrade complete"
	[ "$(kget "$obj" -n apps -o "jsonpath=$path")" = "$valb" ] || e2e_fail "$name: bulkhead upgrade did not set $path=$valb"
	hm get values "$name" -n apps -o json
	[ "$(echo "$HELM_OUT" | python3 -c 'import json,sys
d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[k]
print(d)' "${setb%%=*}")" = "${setb#*=}" ] || e2e_fail "$name: values stored by bulkhead: $HELM_OUT"
	bh release rollback "$name" -n apps --timeout 120s
	e2e_expect_contains "$BH_OUT" "version 4 deployed (Rollback to 2)" "bulkhead rollback"
	expect_versions apps "$name" "1:superseded 2:superseded 3:superseded 4:deployed"
	expect_history apps "$name" 4 deployed "Rollback to 2"
	[ "$(kget "$obj" -n apps -o "jsonpath=$path")" = "$vala" ] || e2e_fail "$name: bulkhead rollback did not restore $path=$vala"
	hm status "$name" -n apps
	e2e_expect_contains "$HELM_OUT" "REVISION: 4" "helm status"
	log_mark
	bh release uninstall "$name" -n apps --timeout 120s ${HELM_FLAGS[@]+"${HELM_FLAGS[@]}"}
	# the objects are deleted in Helm's UninstallOrder (compared on the
	# objects both releases had: values differ, e.g. a PDB only with replicas > 1)
	local ours
	ours=$(log_since | delete_seq)
	[ "$(echo "$ours" | wc -l)" -ge 2 ] || e2e_fail "$name: no deletions seen: $ours"
	same_order "$helm_deletes" "$ours" ||
		e2e_fail "$name: uninstall order differs from helm's:
$(diff <(echo "$helm_deletes") <(echo "$ours"))"
	expect_versions apps "$name" ""
	kget "$obj" -n apps >/dev/null && e2e_fail "$name: $obj left after bulkhead uninstall"
	hm list -n apps -q
	[ -z "$HELM_OUT" ] || e2e_fail "helm list after uninstall: $HELM_OUT"
}

HELM_FLAGS=()
interop pod "$C/podinfo" deploy/pod-podinfo '{.spec.replicas}' replicaCount=2 2 replicaCount=3 3 \
	--set hooks.preInstall.job.enabled=true --set hooks.postUpgrade.job.enabled=true
interop web "$C/nginx" deploy/web-nginx '{.spec.replicas}' replicaCount=2 2 replicaCount=3 3
# ingress-nginx's hook Jobs have ttlSecondsAfterFinished: 0; kubesim removes
# them as they complete and the real helm's watcher then sometimes misses the
# completion ("status: NotFound"), so helm runs those steps with --no-hooks;
# bulkhead runs them all.
HELM_FLAGS=(--no-hooks)
interop ing "$C/ingress-nginx" deploy/ing-ingress-nginx-controller '{.spec.replicas}' \
	controller.replicaCount=2 2 controller.replicaCount=3 3
echo "PASS: actions_interop"
