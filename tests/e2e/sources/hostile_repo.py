#!/usr/bin/env python3
"""tests/e2e/sources/hostile_repo.py — a Helm repository server that
misbehaves on purpose, one way per path prefix (/NAME/index.yaml):
  good      a real repository (the files in DIR, made by helm)
  huge      an index.yaml that never ends (streamed past any cap)
  deep      an index.yaml nested 200000 levels deep
  nulls     an index.yaml whose chart entries are all null
  redirect  302 to http://127.0.0.1:OTHER/capture/... (another host:port:
            a second instance of this server)
  capture   answers 401 and records whether credentials arrived
  slow      headers, then one byte every 2 seconds (slow-loris)
  digest    the good index, but with a wrong digest for the package
  lying     Content-Length: 100000, then 100 bytes and close
usage: hostile_repo.py PORT DIR LOGFILE [OTHER]"""
import http.server
import re
import socketserver
import sys
import time

PORT, DIR, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
OTHER = int(sys.argv[4]) if len(sys.argv) > 4 else PORT


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self, what):
        with open(LOG, "a") as f:
            f.write(what + "\n")

    def send(self, code, body, ctype="application/x-yaml"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def good_file(self, name):
        with open(f"{DIR}/{name}", "rb") as f:
            return f.read()

    def do_GET(self):
        parts = self.path.strip("/").split("/", 1)
        kind, rest = parts[0], parts[1] if len(parts) > 1 else ""
        self.record(f"{kind} {rest} auth={'yes' if self.headers.get('Authorization') else 'no'}")
        if kind in ("good", "nulls", "digest") and rest.endswith(".tgz"):
            return self.send(200, self.good_file(rest), "application/gzip")
        if kind == "good":
            return self.send(200, self.good_file("index.yaml"))
        if kind == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-yaml")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"apiVersion: v1\n" + b"#" * (1 << 20) + b"\n"
            try:
                for _ in range(80):
                    self.wfile.write(chunk)
            except OSError:
                pass
            return
        if kind == "deep":
            return self.send(200, b"apiVersion: v1\nentries:\n  demo: " + b"[" * 200000)
        if kind == "nulls":
            return self.send(200, b"apiVersion: v1\nentries:\n  demo:\n  - null\n  - null\n  - ~\n")
        if kind == "digest":
            idx = re.sub(rb"digest: [0-9a-f]{64}", b"digest: " + b"deadbeef" * 8, self.good_file("index.yaml"))
            return self.send(200, idx)
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{OTHER}/capture/{rest}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "capture":
            return self.send(401, b"credentials please\n", "text/plain")
        if kind == "slow":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-yaml")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(60):
                    self.wfile.write(b"#")
                    self.wfile.flush()
                    time.sleep(2)
            except OSError:
                pass
            return
        if kind == "lying":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-yaml")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"apiVersion: v1\n" + b"#" * 85)
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(404, b"not found\n", "text/plain")


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


S(("127.0.0.1", PORT), H).serve_forever()
