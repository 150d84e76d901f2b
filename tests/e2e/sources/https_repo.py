#!/usr/bin/env python3
"""tests/e2e/sources/https_repo.py — a Helm repository over HTTPS with
basic auth: serves the files of DIR to requests carrying USER:PASS, 401
otherwise. usage: https_repo.py PORT DIR CERT KEY USER:PASS"""
import base64
import http.server
import os
import socketserver
import ssl
import sys

PORT, DIR, CERT, KEY, CRED = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
WANT = "Basic " + base64.b64encode(CRED.encode()).decode()


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        path = os.path.join(DIR, os.path.basename(self.path))
        if self.headers.get("Authorization") != WANT:
            code, body = 401, b"unauthorized\n"
        elif os.path.isfile(path):
            code, body = 200, open(path, "rb").read()
        else:
            code, body = 404, b"not found\n"
        self.send_response(code)
        if code == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="charts"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)
srv = S(("127.0.0.1", PORT), H)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
