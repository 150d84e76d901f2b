# tests/e2e/sources/tls.sh — src_make_tls DIR: a CA (DIR/ca.crt) and a
# server certificate for 127.0.0.1 (DIR/srv.crt, DIR/srv.key), by openssl.
src_make_tls() {
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=charts-ca -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
		printf 'subjectAltName=IP:127.0.0.1\n' >"$d/ext" &&
		openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 2 -extfile "$d/ext" \
			-out "$d/srv.crt" 2>/dev/null
}
