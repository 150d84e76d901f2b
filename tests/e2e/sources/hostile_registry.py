#!/usr/bin/env python3
"""tests/e2e/sources/hostile_registry.py — an OCI registry (distribution
API) that misbehaves on purpose, one way per repository name
(/v2/charts/NAME/...), each asking for basic auth (alice:s3cret):
  hugemanifest  a manifest that never ends (streamed past any cap)
  bigblob       a manifest whose chart layer claims 1 GiB
  wrongblob     a blob whose bytes are not its digest
  index         an image index instead of a manifest
  slow          manifest headers, then one byte every 2 seconds
  redirect      the blob is a 307 to http://127.0.0.1:OTHER/capture/...
  capture       (on OTHER) records whether credentials arrived
Tags: every repository lists "1.0.0". LOG gets one line per capture.
usage: hostile_registry.py PORT LOGFILE [OTHER]"""
import base64, hashlib, http.server, json, re, sys, time

PORT, LOG = int(sys.argv[1]), sys.argv[2]
OTHER = int(sys.argv[3]) if len(sys.argv) > 3 else PORT
BLOB = b"not a chart, but bytes with a digest\n"
DIG = "sha256:" + hashlib.sha256(BLOB).hexdigest()
HELM = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"


def manifest(size=len(BLOB)):
    return json.dumps({"schemaVersion": 2, "config": {"mediaType": "application/vnd.cncf.helm.config.v1+json",
                       "digest": DIG, "size": len(BLOB)},
                       "layers": [{"mediaType": HELM, "digest": DIG, "size": size}]}).encode()


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body=b"", ctype="application/json", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        auth = self.headers.get("Authorization") or ""
        m = re.match(r"/(?:v2/charts/|)([a-z]+)/(tags/list|manifests/.*|blobs/.*|.*)$", self.path)
        if not m:
            return self.send(200 if self.path == "/v2/" else 404, b"{}")
        name, what = m.group(1), m.group(2)
        if name == "capture":
            with open(LOG, "a") as f:
                f.write("capture auth=%s\n" % ("yes" if auth else "no"))
            return self.send(200, BLOB, "application/octet-stream")
        if base64.b64decode(auth[6:] or b"").decode(errors="replace") != "alice:s3cret":
            return self.send(401, b'{"errors":[]}', extra=[("WWW-Authenticate", 'Basic realm="hostile"')])
        if what == "tags/list":
            return self.send(200, json.dumps({"name": "charts/" + name, "tags": ["1.0.0"]}).encode())
        if what.startswith("manifests/"):
            mt = "application/vnd.oci.image.manifest.v1+json"
            if name == "hugemanifest":
                self.send_response(200)
                self.send_header("Content-Type", mt)
                self.end_headers()
                self.wfile.write(b'{"schemaVersion":2,"layers":[')
                try:
                    while True:
                        self.wfile.write(b'{"mediaType":"x","digest":"' + DIG.encode() + b'","size":1},' * 1000)
                except OSError:
                    return
            if name == "slow":
                body = manifest()
                self.send_response(200)
                self.send_header("Content-Type", mt)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    for b in body:
                        self.wfile.write(bytes([b]))
                        self.wfile.flush()
                        time.sleep(2)
                except OSError:
                    return
            if name == "index":
                return self.send(200, json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                                 "manifests": [{"mediaType": mt, "digest": DIG, "size": 10}]}).encode(),
                                 "application/vnd.oci.image.index.v1+json")
            return self.send(200, manifest(1 << 30 if name == "bigblob" else len(BLOB)), mt)
        if what.startswith("blobs/"):
            if name == "redirect":
                return self.send(307, b"", extra=[("Location", "http://127.0.0.1:%d/capture/blob" % OTHER)])
            return self.send(200, BLOB[:-1] + b"!" if name == "wrongblob" else BLOB, "application/octet-stream")
        self.send(404, b"{}")


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
