# tests/e2e/sources/registry.sh — a real OCI registry for the e2e tests:
# Debian's docker-registry (distribution v2) on a free loopback port, with
# a temporary config and storage under DIR; optionally htpasswd basic auth
# (bcrypt, made by htpasswd from apache2-utils). Charts are pushed with the
# real `helm push --plain-http`.
#   reg_start DIR [USER:PASSWORD] [TLSDIR] -> sets REG_PORT, REG_PID; waits for
#                                     /v2/ (with TLSDIR: over https, TLSDIR's srv.crt,
#                                     srv.key and ca.crt as tls.sh's src_make_tls makes)
#   reg_push REGISTRY NAME VERSION -> prints the manifest digest
#   reg_start_pair                 -> O: an open registry, A: one with htpasswd
#                                     alice:s3cret (host:port); their pids added
#                                     to REG_PIDS for the caller's EXIT trap
#   reg_setup_builtin              -> a test's start: bulkheadd with the built-in
#                                     sources (sk_setup), helm's registry config
#                                     in SK_DIR, an EXIT trap that stops the
#                                     registries before sk_cleanup, reg_start_pair
reg_start() {
	local dir=$1 cred=${2:-} tls=${3:-} auth= tlscfg= url
	mkdir -p "$dir/data"
	REG_PORT=$(e2e_free_port)
	if [ -n "$cred" ]; then
		htpasswd -Bbn "${cred%%:*}" "${cred#*:}" >"$dir/htpasswd" 2>/dev/null || return 1
		auth="auth:
  htpasswd:
    realm: bulkhead-e2e
    path: $dir/htpasswd"
	fi
	url="http://127.0.0.1:$REG_PORT/v2/"
	if [ -n "$tls" ]; then
		tlscfg="  tls:
    certificate: $tls/srv.crt
    key: $tls/srv.key"
		url="--cacert $tls/ca.crt https://127.0.0.1:$REG_PORT/v2/"
	fi
	cat >"$dir/config.yml" <<EOC
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$REG_PORT
$tlscfg
$auth
EOC
	docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
	REG_PID=$!
	e2e_retry 40 sh -c "curl -s -o /dev/null -w '%{http_code}' $url | grep -qE '200|401'"
}

# reg_push REGISTRY NAME VERSION: tests/e2e/skeleton/demo packaged as
# NAME-VERSION (in $SK_DIR/pkg) and pushed with `helm push` to
# oci://REGISTRY/charts; prints the manifest digest helm push reports
reg_push() {
	local d=$SK_DIR/src-$2-$3 out
	mkdir -p "$SK_DIR/pkg"
	rm -rf "$d" && cp -r "$BH_SRCDIR/tests/e2e/skeleton/demo" "$d"
	sed -i "s/^version: .*/version: $3/; s/^name: .*/name: $2/" "$d/Chart.yaml"
	helm package "$d" -d "$SK_DIR/pkg" >/dev/null || sk_fail "helm package $2 $3"
	out=$(helm push "$SK_DIR/pkg/$2-$3.tgz" "oci://$1/charts" --plain-http 2>&1) || sk_fail "helm push: $out"
	echo "$out" | sed -n 's/^Digest: //p'
}

reg_start_pair() {
	reg_start "$SK_DIR/reg-open" || sk_fail "docker-registry did not start"
	REG_PIDS="${REG_PIDS:-} $REG_PID"; O=127.0.0.1:$REG_PORT
	reg_start "$SK_DIR/reg-auth" alice:s3cret || sk_fail "docker-registry (htpasswd) did not start"
	REG_PIDS="$REG_PIDS $REG_PID"; A=127.0.0.1:$REG_PORT
}

reg_setup_builtin() {
	e2e_need_tool docker-registry htpasswd
	sk_setup --sources builtin
	export HELM_REGISTRY_CONFIG=$SK_DIR/helm-registry.json
	REG_PIDS=
	trap 'st=$?; kill $REG_PIDS 2>/dev/null; (exit $st); sk_cleanup' EXIT
	reg_start_pair
}
