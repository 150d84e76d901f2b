# tests/e2e/sources/tls.sh — chart repositories served over loopback:
#   src_make_tls DIR: a CA (DIR/ca.crt) and a server certificate for
#     127.0.0.1 (DIR/srv.crt, DIR/srv.key), by openssl.
#   src_serve_repo REPO TLSDIR: REPO served over plain HTTP (R=http://...)
#     and over HTTPS with basic auth alice:s3cret (S=https://..., a
#     certificate made in TLSDIR); the servers' pids are added to PIDS.
src_make_tls() {
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=charts-ca -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
		printf 'subjectAltName=IP:127.0.0.1\n' >"$d/ext" &&
		openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 2 -extfile "$d/ext" \
			-out "$d/srv.crt" 2>/dev/null
}

src_serve_repo() {
	local repo=$1 tls=$2 port sport
	port=$(e2e_free_port)
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$repo" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	src_make_tls "$tls" || e2e_fail "openssl"
	sport=$(e2e_free_port)
	python3 "$BH_SRCDIR/tests/e2e/sources/https_repo.py" "$sport" "$repo" "$tls/srv.crt" "$tls/srv.key" alice:s3cret >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	R=http://127.0.0.1:$port S=https://127.0.0.1:$sport
	e2e_retry 20 curl -sf -o /dev/null "$R/index.yaml" || e2e_fail "HTTP repository did not start"
	e2e_retry 20 curl -sf --cacert "$tls/ca.crt" -u alice:s3cret -o /dev/null "$S/index.yaml" || e2e_fail "HTTPS repository did not start"
}
