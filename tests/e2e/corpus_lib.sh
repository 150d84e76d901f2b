# tests/e2e/corpus_lib.sh — real charts of ../shared/conformance through
# bulkheadd and the sandboxed worker (source after lib.sh and skeleton_lib.sh):
#   corpus_setup                 shared corpus (or CORPUS_DIR: charts/, cases/),
#                                kubesim with the corpus' CRDs, bulkheadd
#                                --concurrent 4 (its deploy/ token)
#   corpus_pack FORMAT CHART OUT archive CHART's files (as `helm package`
#                                ships them: .helmignore applied) with one tool:
#                                helm (helm package), gnutar (GNU tar --format=gnu),
#                                pax (Python tarfile, PAX headers on every entry),
#                                longname (PAX; one template moved under a
#                                120-character folder), nested (helm package, with
#                                each dependency a .tgz of its own under charts/)
#   corpus_add FORMAT CHART CASE RELEASE NS   pack (published by corpus_run)
#   corpus_run                   publish all (corpus_lib.py publish: values as
#                                ConfigMaps, HelmChart, HelmRelease acting as a
#                                ServiceAccount); every release: Ready=True and stored
#                                manifest == `helm template` through Flux's
#                                post-render chain (corpus_flux_plugin; same
#                                archive, values, name, namespace, cluster
#                                capabilities), read back by `helm list`,
#                                `helm history` and `helm get manifest`; then an
#                                upgrade to revision 2 (values change), compared
#                                again, objects only revision 1 had gone;
#                                then deleted: objects (but those Helm
#                                keeps) and release gone, `helm list` empty
# The comparisons use the real helm and kustomize only; bulkhead's output is
# never a golden.
CORPUS_RELEASES=()

corpus_setup() {
	[ -n "${CORPUS_DIR:-}" ] || e2e_need_shared
	e2e_need_tool tar gzip
	CORPUS="${CORPUS_DIR:-$E2E_SHARED/conformance}"
	SK_TENANT_CLUSTER=1 # the charts install ClusterRoles, webhooks, ... as their tenant
	sk_setup --concurrent 4 "$@"
	mkdir -p "$SK_DIR/pack" "$SK_DIR/cmp"
	: >"$SK_DIR/cmp/rows"
	corpus_flux_plugin "$SK_DIR/helm-plugins/flux-origin"
	# CRDs the charts ship in crds/ folders, before any release: the
	# cluster's API versions (the charts' .Capabilities) stay the same for
	# the whole run, and kinds such as ServiceMonitor exist when used
	local f
	for f in "$CORPUS"/charts/*/crds/* "$CORPUS"/charts/*/charts/*/crds/*; do
		grep -q '^kind: CustomResourceDefinition' "$f" 2>/dev/null || continue
		kubectl apply --server-side -f "$f" >/dev/null || sk_fail "applying the CRDs of $f"
	done
	CORPUS_KUBE_VERSION=$(kubectl get --raw /version | python3 -c 'import json,sys; print(json.load(sys.stdin)["gitVersion"])')
	# the API versions Helm's install sees: group/version and group/version/Kind
	CORPUS_API_ARGS=()
	local v
	while read -r v; do CORPUS_API_ARGS+=(--api-versions "$v"); done < <(python3 - "$KUBECONFIG" <<'PY'
import json, subprocess, sys
def get(p):
    return json.loads(subprocess.check_output(["kubectl", "get", "--raw", p]))
gvs = get("/api")["versions"] + [v["groupVersion"] for g in get("/apis")["groups"] for v in g["versions"]]
for gv in gvs:
    print(gv)
    for r in get(("/apis/" if "/" in gv else "/api/") + gv)["resources"]:
        if r.get("kind"):
            print(gv + "/" + r["kind"])
PY
)
	[ ${#CORPUS_API_ARGS[@]} -gt 20 ] || sk_fail "kubesim discovery listed too few API versions"
}

# corpus_flux_plugin DIR: a Helm 4 post-renderer plugin modelling the chain
# every Flux release goes through (helm-controller's BuildPostRenderers ends
# with OriginLabels: kustomize's LabelTransformer on metadata/labels only,
# over the stream in its order, printed by resmap.AsYaml). The real
# `kubectl kustomize` does that with `labels:` (no selectors, no templates)
# and sortOptions fifo; the real helm merges the files into the stream,
# splits the result back and sorts it as it does for Flux.
corpus_flux_plugin() {
	mkdir -p "$1"
	cat >"$1/plugin.yaml" <<'EOF'
apiVersion: v1
type: postrenderer/v1
name: flux-origin
version: 0.1.0
runtime: subprocess
runtimeConfig:
  platformCommand:
    - command: ${HELM_PLUGIN_DIR}/run.sh
EOF
	cat >"$1/run.sh" <<'EOF'
#!/bin/sh
# run.sh NAME NAMESPACE: Flux's origin labels, by the real kustomize
set -e
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat >"$d/helm.yaml"
printf 'resources: [helm.yaml]\nsortOptions:\n  order: fifo\nlabels:\n- pairs:\n    helm.toolkit.fluxcd.io/name: %s\n    helm.toolkit.fluxcd.io/namespace: %s\n' "$1" "$2" >"$d/kustomization.yaml"
kubectl kustomize "$d"
EOF
	chmod +x "$1/run.sh"
}

# corpus_files CHART DIR: the chart's files as `helm package` ships them
# (.helmignore applied), unpacked under DIR/CHART
corpus_files() {
	mkdir -p "$2/pkg" && (cd "$2/pkg" && helm package "$CORPUS/charts/$1" >/dev/null) &&
		tar -C "$2" -xzf "$2"/pkg/*.tgz && rm -rf "$2/pkg" && [ -f "$2/$1/Chart.yaml" ]
}

corpus_pack() {
	local fmt=$1 chart=$2 out=$3 src="$CORPUS/charts/$2" work="$SK_DIR/pack/$1-$2"
	rm -rf "$work" && mkdir -p "$work"
	case "$fmt" in
	helm)
		(cd "$work" && helm package "$src" >/dev/null) && mv "$work"/*.tgz "$out" ;;
	nested)
		cp -r "$src" "$work/$chart" && chmod -R u+w "$work/$chart" || return 1
		local sub
		for sub in "$work/$chart"/charts/*/; do
			[ -f "$sub/Chart.yaml" ] || continue
			(cd "$work/$chart/charts" && helm package "$sub" >/dev/null) && rm -rf "$sub" || return 1
		done
		(cd "$work" && helm package "$work/$chart" >/dev/null) && mv "$work"/*.tgz "$out" ;;
	gnutar)
		corpus_files "$chart" "$work/tree" && tar --format=gnu -C "$work/tree" -czf "$out" "$chart" ;;
	pax | longname | dup)
		corpus_files "$chart" "$work/tree" || return 1
		python3 - "$fmt" "$work/tree" "$chart" "$out" <<'PY'
import os, sys, tarfile
fmt, root, chart, out = sys.argv[1:]
tdir = os.path.join(root, chart, "templates")
first = sorted(f for f in os.listdir(tdir) if f.endswith(".yaml") and not f.startswith("_"))[0]
moved = first if fmt == "longname" else None
with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
    for dp, dns, fns in os.walk(os.path.join(root, chart)):
        dns.sort()
        for f in sorted(fns):
            p = os.path.join(dp, f)
            name = os.path.relpath(p, root)
            if moved and name == os.path.join(chart, "templates", moved):
                name = os.path.join(chart, "templates", "l" * 120, moved)
            ti = t.gettarinfo(p, name)
            ti.pax_headers = {"comment": "bulkhead e2e"}  # a PAX header on every entry
            ti.mode |= 0o644
            with open(p, "rb") as fh:
                t.addfile(ti, fh)
    if fmt == "dup":
        p = os.path.join(tdir, first)
        with open(p, "rb") as fh:
            t.addfile(t.gettarinfo(p, os.path.join(chart, "templates", first)), fh)
PY
		;;
	*) sk_fail "corpus_pack: unknown format $fmt" ;;
	esac
}

# corpus_add FORMAT CHART CASE RELEASE NS: pack; published by corpus_run
corpus_add() {
	local fmt=$1 chart=$2 tgz="$SK_DIR/charts/$1-$2.tgz" ver
	corpus_pack "$fmt" "$chart" "$tgz" || sk_fail "packing $chart as $fmt"
	ver=$(sed -n 's/^version: *//p' "$CORPUS/charts/$chart/Chart.yaml" | tr -d '"')
	CORPUS_RELEASES+=("$fmt $chart $3 $4 $5 $tgz $ver")
	printf '%s\n' "${CORPUS_RELEASES[-1]}" >>"$SK_DIR/cmp/rows"
}

corpus_py() { python3 "$BH_SRCDIR/tests/e2e/corpus_lib.py" "$@"; }

# corpus_wait REV SECS: every release Ready=True at revision REV, for the
# HelmRelease's current generation
corpus_wait() {
	local rev=$1 end=$((SECONDS + $2)) st pending seen
	while :; do
		pending= seen=0
		while read -r ns rel st; do
			seen=$((seen + 1))
			case "$st" in
			*/*/"$rev"/True\|*) [ "${st%%/*}" = "$(echo "$st" | cut -d/ -f2)" ] || pending="$pending $ns/$rel" ;;
			*/*/*/False\|*) case "$st" in *Progressing*|*Retry*|*ArtifactFailed*|*SourceNotReady*) pending="$pending $ns/$rel" ;; *) sk_fail "$ns/$rel failed: $st" ;; esac ;;
			*) pending="$pending $ns/$rel" ;;
			esac
		done < <(corpus_py status "$SK_DIR/cmp/rows")
		[ -z "$pending" ] && [ "$seen" = ${#CORPUS_RELEASES[@]} ] && return 0
		[ $SECONDS -ge $end ] && sk_fail "not Ready at revision $rev after $2s ($seen of ${#CORPUS_RELEASES[@]} listed):$pending"
		sleep 1
	done
}

# corpus_template FMT CHART CASE RELEASE NS ARCHIVE REV OUT: helm template
# of the release, as Helm's install (REV 1) or upgrade (REV 2) sees the
# cluster: revision 2 as an upgrade (.Release.IsUpgrade), its lookup
# functions reading the cluster (--dry-run=server: Bitnami's charts read the
# passwords revision 1 stored)
corpus_template() {
	local args=() f
	for f in $(corpus_py values-files "$CORPUS" "$3"); do args+=(-f "$CORPUS/cases/$3/$f"); done
	if [ "$7" = 2 ]; then
		corpus_py upgrade-values "$2" >"$8.up.json"
		args+=(-f "$8.up.json" --is-upgrade --dry-run=server)
	fi
	args=(template "$4" "$6" -n "$5" --kube-version "$CORPUS_KUBE_VERSION" "${CORPUS_API_ARGS[@]}" --no-hooks "${args[@]}")
	HELM_PLUGINS="$SK_DIR/helm-plugins" helm "${args[@]}" --post-renderer flux-origin --post-renderer-args "$4" \
		--post-renderer-args "$5" >"$8" 2>"$8.err" && return 0
	# a chart that renders no object: Helm's plugin runner refuses the empty
	# output of any post-renderer, Flux's in-process chain passes it on
	grep -q 'produced empty output' "$8.err" && helm "${args[@]}" >"$8" 2>"$8.err" && ! grep -q '^kind:' "$8"
}

# corpus_goldens REV: helm template of every release at revision REV (1:
# while the controller installs, kubesim is busy on one core; 2: once it
# installed, as the upgrade will see the cluster)
corpus_goldens() {
	local r fmt chart case rel ns tgz ver rev
	for rev in "$@"; do
		for r in "${CORPUS_RELEASES[@]}"; do
			read -r fmt chart case rel ns tgz ver <<<"$r"
			corpus_template "$fmt" "$chart" "$case" "$rel" "$ns" "$tgz" "$rev" "$SK_DIR/cmp/$rel.$rev.want" ||
				echo "helm template failed" >"$SK_DIR/cmp/$rel.$rev.want.failed"
		done
	done
}

# corpus_compare REV: stored manifest of each release == helm template
corpus_compare() {
	local rev=$1 r fmt chart case rel ns tgz ver want got masked
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		want="$SK_DIR/cmp/$rel.$rev.want" got="$SK_DIR/cmp/$rel.$rev.got"
		[ -f "$want.failed" ] && sk_fail "helm template $rel ($fmt $chart) revision $rev: $(head -5 "$want.err")"
		corpus_py manifest "$ns" "$rel" "$rev" >"$got" || sk_fail "reading the release Secret of $ns/$rel v$rev"
		# when they differ, helm runs again: lines that differ between two
		# runs of helm itself (random passwords, checksums of them) are masked
		if cmp -s <(sed -e '$a\' "$want") <(sed -e '$a\' "$got"); then
			cp "$want" "$want.again"
		else
			corpus_template "$fmt" "$chart" "$case" "$rel" "$ns" "$tgz" "$rev" "$want.again" ||
				sk_fail "helm template $rel ($fmt $chart): $(head -5 "$want.again.err")"
		fi
		masked=$(corpus_py same "$want" "$want.again" "$got") \
			|| sk_fail "$ns/$rel ($fmt $chart) revision $rev: stored manifest differs from helm template: $masked"
		echo "ok: $fmt $chart ($case) as $ns/$rel revision $rev: manifest == helm template ($(grep -c '^kind:' "$got") objects$masked)"
	done
}

# corpus_dropped: the objects revision 1 had and revision 2 lacks are gone,
# as Helm's upgrade deletes them
corpus_dropped() {
	local r fmt chart case rel ns tgz ver n
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		n=$(corpus_py dropped "$ns" "$SK_DIR/cmp/$rel.1.got" "$SK_DIR/cmp/$rel.2.got") ||
			sk_fail "$ns/$rel: the upgrade left objects of revision 1 behind: $n"
		case "$n" in 0\ *) ;; *) echo "ok: $fmt $chart as $ns/$rel: $n only revision 1 had are gone" ;; esac
	done
}

# corpus_helm REV: the real helm reads what bulkheadd stored: `helm list`
# shows every release at REV (0: none left), `helm history` its revisions,
# `helm get manifest` the manifest compared with helm template
corpus_helm() {
	local rev=$1 r fmt chart case rel ns tgz ver out
	out=$(helm list -A -o json) || sk_fail "helm list: $out"
	echo "$out" | corpus_py helm-list "$SK_DIR/cmp/rows" "$rev" || sk_fail "helm list -A, revision $rev"
	[ "$rev" = 0 ] && return 0
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		out=$(helm history "$rel" -n "$ns" -o json) || sk_fail "helm history $ns/$rel: $out"
		echo "$out" | corpus_py helm-history "$rev" || sk_fail "helm history of $ns/$rel"
		helm get manifest "$rel" -n "$ns" >"$SK_DIR/cmp/$rel.$rev.helm" || sk_fail "helm get manifest $ns/$rel"
		# helm prints the stored manifest and a line break (fmt.Fprintln)
		cmp -s "$SK_DIR/cmp/$rel.$rev.helm" <(cat "$SK_DIR/cmp/$rel.$rev.got" && echo) ||
			sk_fail "helm get manifest $ns/$rel differs from the release Secret's manifest"
	done
	echo "ok: helm list, helm history and helm get manifest read revision $rev of every release"
}

# corpus_uninstall SECS: delete every HelmRelease; each release's objects,
# release Secrets and the HelmRelease are gone
corpus_uninstall() {
	local r fmt chart case rel ns tgz ver end=$((SECONDS + $1)) n
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		corpus_py objects present "$ns" "$SK_DIR/cmp/$rel.2.got" >/dev/null || sk_fail "$ns/$rel: not all objects are in the cluster"
	done
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		kubectl delete helmrelease "$rel" -n "$ns" --wait=false >/dev/null || sk_fail "deleting $ns/$rel"
	done
	for r in "${CORPUS_RELEASES[@]}"; do
		read -r fmt chart case rel ns tgz ver <<<"$r"
		while kubectl get helmrelease "$rel" -n "$ns" >/dev/null 2>&1; do
			[ $SECONDS -ge $end ] && sk_fail "$ns/$rel not deleted after $1s: $(sk_ready "$ns" "$rel")"
			sleep 1
		done
		[ -z "$(kubectl get secrets -n "$ns" -l "owner=helm,name=$rel" -o name)" ] || sk_fail "$ns/$rel: release Secrets left"
		n=$(corpus_py objects absent "$ns" "$SK_DIR/cmp/$rel.2.got") || sk_fail "$ns/$rel: objects left after uninstall: $n"
		echo "ok: $fmt $chart as $ns/$rel uninstalled ($n)"
	done
}

corpus_run() {
	local secs=${1:-240} t0=$SECONDS gold
	corpus_py publish "$CORPUS" "$SK_CHART_URL" "$SK_DIR/cmp/rows" || sk_fail "publishing the charts"
	echo "published ${#CORPUS_RELEASES[@]} charts in $((SECONDS - t0))s"
	corpus_goldens 1 &
	gold=$!
	corpus_wait 1 "$secs"
	echo "installed in $((SECONDS - t0))s"
	corpus_goldens 2
	wait "$gold"
	echo "goldens rendered by $((SECONDS - t0))s"
	corpus_compare 1
	corpus_helm 1
	corpus_py upgrade "$SK_DIR/cmp/rows" || sk_fail "changing the values"
	corpus_wait 2 "$secs"
	echo "upgraded by $((SECONDS - t0))s"
	corpus_compare 2
	corpus_dropped
	corpus_helm 2
	corpus_uninstall "$secs"
	corpus_helm 0
	echo "uninstalled by $((SECONDS - t0))s"
	kill -0 "$BULKHEADD_PID" 2>/dev/null || sk_fail "bulkheadd died"
}
