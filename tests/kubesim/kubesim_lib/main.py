"""Command line: start kubesim, write DIR/kubeconfig (atomically) and DIR/port."""
import argparse
import gc
import os
import signal
import subprocess
import sys
import threading

from .admin import Admin
from .api import Api
from .auth import Certs, Tokens
from .controllers import Controllers
from .rbac import Authorizer
from .resources import Registry
from .server import Sim, make_server
from .store import Store


def parse_args(argv):
    p = argparse.ArgumentParser(prog="kubesim", description="Kubernetes API server emulator for tests")
    p.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT (port 0 picks a free one)")
    p.add_argument("--dir", required=True, help="state directory (kubeconfig, certs, port, logs)")
    p.add_argument("--http", action="store_true", help="serve plain HTTP instead of HTTPS")
    p.add_argument("--http1", action="store_true",
                   help="offer HTTP/1.1 only (by default TLS clients may choose HTTP/2 by ALPN, as with kube-apiserver); "
                   "also KUBESIM_HTTP1=1 in the environment, for comparisons")
    p.add_argument("--http-user", default="admin:system:masters",
                   help="with --http: USER[:GROUP,...] for requests without a token (kubectl sends no token over "
                   "plain HTTP; default admin:system:masters, '' for anonymous)")
    p.add_argument("--token", action="append", default=[], help="static token TOKEN=USER[:GROUP,GROUP]")
    p.add_argument("--token-file", help="static token file (kube format: token,user,uid,\"g1,g2\")")
    p.add_argument("--pod-start-delay", type=float, default=0.3, help="seconds before a pod runs")
    p.add_argument("--pod-run-seconds", type=float, default=0.5,
                   help="seconds a run-to-completion pod runs before it finishes")
    p.add_argument("--lb-delay", type=float, default=0.2)
    p.add_argument("--pvc-delay", type=float, default=0.2)
    p.add_argument("--controller-interval", type=float, default=1.0,
                   help="longest sleep of the (event-driven) controllers between looks at their timers")
    p.add_argument("--bookmark-interval", type=float, default=5.0)
    p.add_argument("--watch-cache-events", type=int, default=5000,
                   help="events kept for watches; older resourceVersions answer 410")
    p.add_argument("--watch-cache-seconds", type=float, default=600.0)
    return p.parse_args(argv)


def write_atomic(path, text, mode=0o600):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.rename(tmp, path)


def _b64file(path):
    import base64
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def kubeconfig(url, d, use_tls):
    """Admin kubeconfig, self-contained: CA, client certificate and key embedded."""
    if use_tls:
        cluster = "    server: %s\n    certificate-authority-data: %s\n" % (url, _b64file(os.path.join(d, "ca.crt")))
        user = "    client-certificate-data: %s\n    client-key-data: %s\n" % (
            _b64file(os.path.join(d, "admin.crt")), _b64file(os.path.join(d, "admin.key")))
    else:
        cluster = "    server: %s\n" % url
        user = "    token: %s\n" % open(os.path.join(d, "admin.token")).read().strip()
    return ("apiVersion: v1\nkind: Config\nclusters:\n- name: kubesim\n  cluster:\n" + cluster +
            "users:\n- name: admin\n  user:\n" + user +
            "contexts:\n- name: kubesim\n  context:\n    cluster: kubesim\n    user: admin\n"
            "    namespace: default\ncurrent-context: kubesim\n")


def main(argv=None):
    o = parse_args(sys.argv[1:] if argv is None else argv)
    prof_path = os.environ.get("KUBESIM_PROFILE")
    if prof_path:
        from . import profiling
        prof = profiling.install()
    use_h2 = not o.http and not o.http1 and os.environ.get("KUBESIM_HTTP1") != "1"
    if use_h2:
        from . import h2conn
        err = h2conn.load()
        if err:
            print(err, file=sys.stderr)
            return 1
    d = os.path.abspath(o.dir)
    os.makedirs(d, exist_ok=True)
    for f in ("kubeconfig", "port", "url"):
        try:
            os.unlink(os.path.join(d, f))
        except FileNotFoundError:
            pass
    host, _, port = o.listen.rpartition(":")
    o.stopping = False
    store = Store(o.watch_cache_events, o.watch_cache_seconds)
    registry = Registry()
    api = Api(store, registry)
    tokens = Tokens()
    for t in o.token:
        tokens.add_static(t)
    if o.token_file:
        tokens.load_file(o.token_file)
    import secrets
    admin_token = secrets.token_hex(16)
    tokens.add_static("%s=admin:system:masters" % admin_token)
    write_atomic(os.path.join(d, "admin.token"), admin_token + "\n")
    try:
        certs = Certs(d)
    except FileNotFoundError:
        print("kubesim: the openssl command is needed to make certificates (apt-get install openssl)",
              file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print("kubesim: openssl failed: %s" % (e.stderr or b"").decode(errors="replace").strip(), file=sys.stderr)
        return 1
    authz = Authorizer(store)
    adm = Admin(os.path.join(d, "requests.log"))
    ctrl = Controllers(store, registry, api, tokens, certs.read("ca.crt"), o)
    ctrl.bootstrap()
    sim = Sim(store, registry, api, authz, tokens, certs, adm, ctrl, o)
    try:
        srv = make_server(sim, host or "127.0.0.1", int(port or 0), d, not o.http, use_h2)
    except (OSError, ValueError) as e:
        print("kubesim: cannot listen on %s: %s" % (o.listen, e), file=sys.stderr)
        return 1
    o.port = srv.server_address[1]
    scheme = "http" if o.http else "https"
    url = "%s://%s:%d" % (scheme, host or "127.0.0.1", o.port)

    def stop(signum, frame):
        o.stopping = True
        store.close_watches()
        threading.Thread(target=srv.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    cpu_path = os.environ.get("KUBESIM_CPUSTATS")
    if cpu_path:
        srv.RequestHandlerClass.cpustats = ctrl.cpustats = True
        from .profiling import cpu_gc
        cpu_gc()
    # the start-up objects (modules, bootstrap policy, schemas) live until exit:
    # out of the cyclic collector's sight; and fewer, larger young collections
    # (a request allocates thousands of objects, few of them in cycles)
    gc.collect()
    gc.freeze()
    gc.set_threshold(20000, 20, 20)
    ctrl.start()
    write_atomic(os.path.join(d, "port"), "%d\n" % o.port, 0o644)
    write_atomic(os.path.join(d, "url"), url + "\n", 0o644)
    write_atomic(os.path.join(d, "kubeconfig"), kubeconfig(url, d, not o.http))
    print("kubesim: serving %s (state in %s)" % (url, d), flush=True)
    srv.serve_forever(poll_interval=0.2)
    srv.server_close()
    if prof_path:
        profiling.dump(prof, prof_path)
    if cpu_path:
        from .profiling import cpu_dump
        cpu_dump(cpu_path, srv.h2_stats.snapshot())
    print("kubesim: stopped", flush=True)
    return 0
