#!/usr/bin/env python3
"""tests/e2e/sources/count_proxy.py — a small HTTP proxy for the e2e tests
of an OCIRepository's .spec.proxySecretRef: plain http requests in
absolute form (GET http://host:port/path) are forwarded, https goes
through CONNECT tunnels, as Go's and curl's proxy clients use them. Names
in HOST:PORT=TARGET:PORT mappings are reached at their target (so a source
URL whose host does not resolve works only through the proxy). With
USER:PASSWORD, a request without that Proxy-Authorization gets 407. Each
request relayed is logged as "RELAY METHOD TARGET" (one line, flushed),
each refused one as "DENIED METHOD TARGET".
usage: count_proxy.py PORT USER:PASSWORD|- [HOST:PORT=TARGET:PORT ...]"""
import base64, socket, socketserver, sys, threading

PORT, CRED = int(sys.argv[1]), sys.argv[2]
MAP = dict(m.split("=", 1) for m in sys.argv[3:])
WANT = None if CRED == "-" else "Basic " + base64.b64encode(CRED.encode()).decode()
LOCK = threading.Lock()


def log(*words):
    with LOCK:
        print(*words, flush=True)


def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def connect(authority):
    host, port = MAP.get(authority, authority).rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=30)


class H(socketserver.StreamRequestHandler):
    def handle(self):
        head = []
        while True:
            line = self.rfile.readline(65536)
            if not line or line in (b"\r\n", b"\n"):
                break
            head.append(line.decode("latin-1").rstrip("\r\n"))
        if not head:
            return
        method, target, version = head[0].split(" ", 2)
        hdrs = [h for h in head[1:] if h.split(":", 1)[0].strip().lower() not in
                ("proxy-authorization", "proxy-connection", "connection")]
        auth = [h.split(":", 1)[1].strip() for h in head[1:] if h.lower().startswith("proxy-authorization:")]
        if WANT and (not auth or auth[0] != WANT):
            log("DENIED", method, target)
            self.wfile.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                             b"Proxy-Authenticate: Basic realm=\"e2e\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if method == "CONNECT":
            up = connect(target)
            log("RELAY", method, target)
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            t = threading.Thread(target=pipe, args=(up, self.connection), daemon=True)
            t.start()
            pipe(self.connection, up)
            t.join()
            up.close()
            return
        if not target.startswith("http://"):
            self.wfile.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        rest = target[len("http://"):]
        authority, _, path = rest.partition("/")
        up = connect(authority if ":" in authority else authority + ":80")
        log("RELAY", method, target)
        req = "".join(l + "\r\n" for l in ["%s /%s %s" % (method, path, version)] + hdrs + ["Connection: close", ""])
        up.sendall(req.encode("latin-1"))
        pipe(up, self.connection)
        up.close()


class S(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


S(("127.0.0.1", PORT), H).serve_forever()
