# tests/e2e/sources/registry.sh — a real OCI registry for the e2e tests:
# Debian's docker-registry (distribution v2) on a free loopback port, with
# a temporary config and storage under DIR; optionally htpasswd basic auth
# (bcrypt, made by htpasswd from apache2-utils). Charts are pushed with the
# real `helm push --plain-http`.
#   reg_start DIR [USER:PASSWORD]  -> sets REG_PORT, REG_PID; waits for /v2/
reg_start() {
	local dir=$1 cred=${2:-} auth=
	mkdir -p "$dir/data"
	REG_PORT=$(e2e_free_port)
	if [ -n "$cred" ]; then
		htpasswd -Bbn "${cred%%:*}" "${cred#*:}" >"$dir/htpasswd" 2>/dev/null || return 1
		auth="auth:
  htpasswd:
    realm: bulkhead-e2e
    path: $dir/htpasswd"
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
$auth
EOC
	docker-registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
	REG_PID=$!
	e2e_retry 40 sh -c "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$REG_PORT/v2/ | grep -qE '200|401'"
}
