#!/usr/bin/env python3
"""tests/e2e/sources/token_registry.py — a registry front that wants the
distribution token flow: every /v2/ request without a valid Bearer token
gets 401 with `WWW-Authenticate: Bearer realm=".../token",service=...,
scope="repository:<name>:pull"`; /token (GET with basic auth, or POST with
an OAuth2 password grant) hands out a token for USER:PASSWORD; requests
with a token are passed to the real registry at UPSTREAM. USER:PASSWORD
"-" asks for no token. With PAGE, tag lists come in pages of at most PAGE
tags (or the request's n=), each linked to the next by a `Link: <...?n=N&
last=TAG>; rel="next"` header as the distribution spec words it (GHCR and
Docker Hub page their lists; Debian's docker-registry does not).
usage: token_registry.py PORT UPSTREAM_HOST:PORT USER:PASSWORD|- [PAGE]"""
import base64, http.server, json, re, secrets, sys, urllib.parse, urllib.request

PORT, UPSTREAM, CRED = int(sys.argv[1]), sys.argv[2], sys.argv[3]
PAGE = int(sys.argv[4]) if len(sys.argv) > 4 else 0
TOKENS = set()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def token(self, ok):
        if not ok:
            return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', [("Content-Type", "application/json")])
        t = secrets.token_hex(16)
        TOKENS.add(t)
        self.reply(200, ('{"token":"%s","access_token":"%s","expires_in":300}' % (t, t)).encode(),
                   [("Content-Type", "application/json")])

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        user = (form.get("username") or [""])[0] + ":" + (form.get("password") or [""])[0]
        self.token(self.path.startswith("/token") and user == CRED)

    def do_GET(self):
        auth = self.headers.get("Authorization") or ""
        if self.path.startswith("/token"):
            ok = auth.startswith("Basic ") and base64.b64decode(auth[6:]).decode(errors="replace") == CRED
            return self.token(ok)
        if not self.path.startswith("/v2/"):
            return self.reply(404)
        if CRED != "-" and not (auth.startswith("Bearer ") and auth[7:] in TOKENS):
            m = re.match(r"/v2/(.+)/(tags|manifests|blobs)/", self.path)
            scope = ',scope="repository:%s:pull"' % m.group(1) if m else ""
            return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', [
                ("Content-Type", "application/json"),
                ("WWW-Authenticate", 'Bearer realm="http://127.0.0.1:%d/token",service="bulkhead-e2e"%s' % (PORT, scope))])
        u = urllib.parse.urlsplit(self.path)
        if PAGE and u.path.endswith("/tags/list"):
            return self.tags_page(u)
        req = urllib.request.Request("http://%s%s" % (UPSTREAM, self.path), method=self.command)
        if self.headers.get("Accept"):
            req.add_header("Accept", self.headers["Accept"])
        try:
            with urllib.request.urlopen(req) as r:
                body, code, hs = r.read(), r.status, r.headers
        except urllib.error.HTTPError as e:
            body, code, hs = e.read(), e.code, e.headers
        self.reply(code, body, [(k, v) for k, v in hs.items()
                                if k.lower() in ("content-type", "docker-content-digest", "etag")])

    def tags_page(self, u):
        with urllib.request.urlopen("http://%s%s" % (UPSTREAM, u.path)) as r:
            doc = json.load(r)
        q = urllib.parse.parse_qs(u.query)
        n, last = int((q.get("n") or [PAGE])[0]), (q.get("last") or [""])[0]
        rest = [t for t in sorted(doc.get("tags") or []) if t > last]
        doc["tags"], hs = rest[:n], [("Content-Type", "application/json")]
        if len(rest) > n:
            hs.append(("Link", '<%s?%s>; rel="next"' % (u.path, urllib.parse.urlencode({"n": n, "last": rest[n - 1]}))))
        self.reply(200, json.dumps(doc).encode(), hs)

    do_HEAD = do_GET


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
