"""HTTP(S) front end: routing, authentication, impersonation, RBAC, watch
streams, Tables, reviews, TokenRequest, and the /_kubesim admin endpoints."""
import json
import socket
import ssl
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import h2conn, headers, openapi
from .admin_http import AdminHandlers
from .subresources import SubresourceHandlers
from .watch import WatchHandlers
from .auth import user_from_cert
from .rbac import Attrs, User, forbidden_message
from .tables import to_table
from .selectors import parse_field_selector
from .util import ApiError, _details, bad_request, dumps, now_micro

AGG_CT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
REVIEW_KINDS = {"selfsubjectaccessreviews", "subjectaccessreviews", "localsubjectaccessreviews",
                "selfsubjectrulesreviews", "tokenreviews", "selfsubjectreviews"}


class Sim:
    """Everything a request handler needs (set up by main)."""

    def __init__(self, store, registry, api, authz, tokens, certs, admin, controllers, opts):
        self.store = store
        self.registry = registry
        self.api = api
        self.authz = authz
        self.tokens = tokens
        self.certs = certs
        self.admin = admin
        self.controllers = controllers
        self.opts = opts
        self.version = {"major": "1", "minor": "35", "emulationMajor": "1", "emulationMinor": "35",
                        "minCompatibilityMajor": "1", "minCompatibilityMinor": "34",
                        "gitVersion": "v1.35.0", "gitCommit": "kubesim", "gitTreeState": "clean",
                        "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25.0",
                        "compiler": "gc", "platform": "linux/amd64"}


class Req:
    """Parsed resource request info (like kube's RequestInfo)."""

    def __init__(self):
        self.resource_request = False
        self.verb = ""
        self.group = ""
        self.version = ""
        self.resource = ""
        self.subresource = ""
        self.namespace = ""
        self.name = ""
        self.name_from_selector = False  # name taken from a list/watch's fieldSelector
        self.res = None


def parse_request_info(method, path, q, registry):
    ri = Req()
    # names as the API server sees them: percent-decoded (system%3Aauth -> system:auth)
    parts = [urllib.parse.unquote(p) for p in path.split("/") if p]
    hv = method.lower()
    nonres_verb = {"get": "get", "head": "get", "post": "post", "put": "put", "patch": "patch",
                   "delete": "delete"}.get(hv, hv)
    if not parts or parts[0] not in ("api", "apis"):
        ri.verb = nonres_verb
        return ri
    if parts[0] == "api":
        if len(parts) < 3:
            ri.verb = nonres_verb
            return ri
        ri.group, ri.version, rest = "", parts[1], parts[2:]
    else:
        if len(parts) < 4:
            ri.verb = nonres_verb
            return ri
        ri.group, ri.version, rest = parts[1], parts[2], parts[3:]
    ri.resource_request = True
    watch_prefix = False
    if rest and rest[0] == "watch":
        watch_prefix = True
        rest = rest[1:]
    if len(rest) >= 2 and rest[0] == "namespaces":
        ri.namespace = rest[1]
        if len(rest) > 2 and rest[2] not in ("status", "finalize"):
            rest = rest[2:]
    ri.resource = rest[0] if rest else ""
    ri.name = rest[1] if len(rest) > 1 else ""
    ri.subresource = rest[2] if len(rest) > 2 else ""
    if hv in ("get", "head"):
        if ri.name:
            ri.verb = "get"
        elif watch_prefix or q.get("watch") in ("1", "true"):
            ri.verb = "watch"
        else:
            ri.verb = "list"
        if watch_prefix and ri.name:
            ri.verb = "watch"
    elif hv == "post":
        ri.verb = "create"
    elif hv == "put":
        ri.verb = "update"
    elif hv == "patch":
        ri.verb = "patch"
    elif hv == "delete":
        ri.verb = "delete" if ri.name else "deletecollection"
    else:
        ri.verb = hv
    if ri.verb in ("list", "watch") and not ri.name and q.get("fieldSelector"):
        # kube's RequestInfoFactory: a list or watch of one object by
        # fieldSelector metadata.name is authorized (and audited) with that name
        try:
            reqs = parse_field_selector(q["fieldSelector"])
        except ApiError:
            reqs = ()
        for f, op, v in reqs:
            if f == "metadata.name" and op == "=" and v not in (".", "..") and "/" not in v and "%" not in v:
                ri.name, ri.name_from_selector = v, True
                break
    ri.res = registry.lookup(ri.group, ri.version, ri.resource)
    return ri


class Handler(SubresourceHandlers, WatchHandlers, AdminHandlers, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubesim"
    sim = None  # set on the class by make_server

    def log_message(self, fmt, *args):  # quiet; the request log records requests
        pass

    cpustats = False  # KUBESIM_CPUSTATS: CPU per request kind (profiling.cpu_add)

    def handle(self):
        if not self.cpustats:
            return super().handle()
        from .profiling import cpu_add
        t0 = time.thread_time()
        try:
            super().handle()
        finally:
            cpu_add("connection (TLS handshake, keep-alive)", time.thread_time() - t0 - getattr(self, "_cpu_reqs", 0.0))

    def handle_one_request(self):
        if not self.cpustats:
            return super().handle_one_request()
        t0 = time.thread_time()
        self._entry = None
        try:
            super().handle_one_request()
        finally:
            dt = time.thread_time() - t0
            self._cpu_reqs = getattr(self, "_cpu_reqs", 0.0) + dt
            self._cpu_account(dt)

    def _cpu_account(self, dt):
        """KUBESIM_CPUSTATS: dt seconds of CPU to the category of the request just handled."""
        from .profiling import cpu_add
        e = self._entry
        if e is not None:
            cat = "%s %s%s" % (e.get("verb"), e.get("resource") or e.get("path"),
                               "/" + e["subresource"] if e.get("subresource") else "")
            if e.get("path", "").startswith("/_kubesim/"):
                cat = "admin " + e["path"]
            cpu_add(cat, dt)

    # ---- what differs between HTTP/1.1 and HTTP/2 (h2conn.H2Handler) -----------------------
    def _peer_cert(self):
        if isinstance(self.connection, ssl.SSLSocket):
            return self.connection.getpeercert()
        return None

    def _stream_gone(self):
        """The client cancelled the request (HTTP/2: RST_STREAM; HTTP/1.1 finds out by writing)."""
        return False

    def _watching(self, waiter):
        """A watch waits on waiter (store lock held): HTTP/2 wakes it when the stream goes."""

    def _emit(self, code, hdrs, data):
        """The response: status, headers ((name, value) pairs) and body, in one write."""
        head = ["%s %d %s\r\n" % (self.protocol_version, code,
                                   self.responses[code][0] if code in self.responses else "")]
        for k, v in hdrs:
            head.append("%s: %s\r\n" % (k, v))
        # the head and the body in one write (one TLS record, one segment), not two
        head.append("\r\n")
        out = "".join(head).encode("latin-1", "strict") if self.request_version != "HTTP/0.9" else b""
        self.wfile.write(out + data if self.command != "HEAD" else out)

    def _start_stream_head(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", self._audit_id)
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _chunks(self, out):
        """Watch events (non-empty), in one write."""
        self.wfile.write(b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in out))
        self.wfile.flush()

    # ---- plumbing -------------------------------------------------------------------------
    MAX_BODY = 3 * 1024 * 1024  # kube-apiserver's MaxRequestBodyBytes

    def _body(self):
        self._body_read = True
        n = int(self.headers.get("Content-Length") or 0)
        if n > self.MAX_BODY:
            self.close_connection = True
            raise ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is %d" % self.MAX_BODY)
        if n:
            return self.rfile.read(n)
        if (self.headers.get("Transfer-Encoding") or "").lower() == "chunked":
            out = b""
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                out += self.rfile.read(size)
                self.rfile.readline()
                if len(out) > self.MAX_BODY:
                    self.close_connection = True
                    raise ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is %d"
                                   % self.MAX_BODY)
            return out
        return b""

    def _send(self, code, obj, ctype="application/json", headers=None):
        data = obj if isinstance(obj, bytes) else (dumps(obj) + "\n").encode()
        # the headers send_response() and send_header() would make
        hdrs = [("Server", self.version_string()), ("Date", self._date()), ("Content-Type", ctype),
                ("Content-Length", str(len(data))), ("Cache-Control", "no-cache, private"),
                ("Audit-Id", self._audit_id)]
        if not getattr(self, "_body_read", True) and (
                int(self.headers.get("Content-Length") or 0) > 0
                or (self.headers.get("Transfer-Encoding") or "").lower() == "chunked"):
            # answered before the body was read (refused, fault injected): the
            # unread bytes must not be taken for the next request on this connection
            hdrs.append(("Connection", "close"))
            self.close_connection = True
        for k, v in (headers or {}).items():
            hdrs.append((k, v))
            if k.lower() == "connection":
                self.close_connection = v.lower() == "close" or (self.close_connection and v.lower() != "keep-alive")
        for w in getattr(self.sim.api.ctx, "warnings", None) or []:
            hdrs.append(("Warning", '299 - "%s"' % w.replace('"', '\\"')))
        self.sim.api.ctx.warnings = []
        e = getattr(self, "_entry", None)
        if e is not None and not self._logged and not e["path"].startswith("/_kubesim/"):
            # logged before the body is written, so a client that reads the
            # request log right after its response always finds the request
            e["status"] = code
            e["ms"] = int((time.monotonic() - self._t0) * 1000)
            self.sim.admin.record(e)
            self._logged = True
        self._emit(code, hdrs, data)
        self._status = code

    _date_cache = (0, "")

    def _date(self):
        """date_time_string() of now, made once a second."""
        now = int(time.time())
        sec, text = self._date_cache
        if sec != now:
            text = self.date_time_string(now)
            Handler._date_cache = (now, text)
        return text

    def _error(self, e):
        headers = dict(e.headers)
        self._send(e.code, e.status(), headers=headers)

    def do_GET(self):
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # ---- main entry --------------------------------------------------------------------------
    def _handle(self):
        sim = self.sim
        t0 = time.monotonic()
        self._status = 0
        self._audit_id = "%x" % (int(t0 * 1e6) & 0xffffffffffff)
        u = urllib.parse.urlsplit(self.path)
        path = u.path
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(u.query, keep_blank_values=True).items()}
        self._q = q
        self._logged = False
        self._body_read = False
        ri = parse_request_info(self.command, path, q, sim.registry)
        entry = {"method": self.command, "path": path, "query": u.query, "verb": ri.verb,
                 "user": "", "groups": [], "impersonatedUser": None, "status": 0,
                 "userAgent": self.headers.get("User-Agent", ""), "seq": sim.admin.next_seq(),
                 "startTime": now_micro()}
        self._entry = entry
        self._t0 = t0
        if not getattr(self, "_agent_seen", False):  # the connection's first request (HTTP/2: h2conn)
            self._agent_seen = True
            self.server.h2_stats.agent(entry["userAgent"], "http1")
        if ri.resource_request:
            entry.update({"group": ri.group, "version": ri.version, "resource": ri.resource,
                          "subresource": ri.subresource, "namespace": ri.namespace, "name": ri.name})
        user = None
        try:
            try:
                user = self._authenticate()
                entry["user"], entry["groups"] = user.name, user.groups
                user = self._impersonate(user, entry)
                if not path.startswith("/_kubesim/") and path not in ("/healthz", "/readyz", "/livez"):
                    self._faults(entry, ri)
                if path.startswith("/_kubesim/"):
                    if "system:masters" not in user.groups:
                        raise ApiError(403, "Forbidden", 'forbidden: User "%s" cannot use the kubesim admin '
                                       "endpoints (needs group system:masters)" % user.name)
                    self._admin(path, q)
                else:
                    self._authorize(user, ri, path)
                    self._dispatch(user, ri, path, q)
            except ApiError as e:
                self._error(e)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout):
                self.close_connection = True
            except Exception as e:  # an emulator bug: answer 500 with the trace in the log
                traceback.print_exc()
                try:
                    self._error(ApiError(500, "InternalError", "kubesim internal error: %r" % e))
                except OSError:
                    self.close_connection = True
        finally:
            entry["status"] = self._status
            entry["ms"] = int((time.monotonic() - t0) * 1000)
            if not path.startswith("/_kubesim/") and not self._logged:
                sim.admin.record(entry)

    # ---- authentication & impersonation -----------------------------------------------------------
    def _authenticate(self):
        """kube-apiserver's union authenticator order: client certificate, then bearer token."""
        sim = self.sim
        cert = self._peer_cert()
        if cert is not None:
            u = user_from_cert(cert)
            if u is not None:
                return u
        authz = self.headers.get("Authorization", "")
        if authz.lower().startswith("bearer "):
            tok = authz[7:].strip()
            u = sim.tokens.authenticate(tok, sim.store)
            if u is None:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            return u
        if sim.opts.http and sim.opts.http_user:
            name, _, groups = sim.opts.http_user.partition(":")
            return User(name, [g for g in groups.split(",") if g] + ["system:authenticated"])
        return User("system:anonymous", ["system:unauthenticated"])

    def _impersonate(self, user, entry):
        if not any(k[:12].lower() == "impersonate-" for k in self.headers.keys()):
            return user  # the common case, without a header lookup per name
        imp_user = self.headers.get("Impersonate-User")
        imp_groups = self.headers.get_all("Impersonate-Group") or []
        imp_uid = self.headers.get("Impersonate-Uid")
        extras = {}
        for k, v in self.headers.items():
            if k.lower().startswith("impersonate-extra-"):
                extras.setdefault(urllib.parse.unquote(k[len("impersonate-extra-"):].lower()), []).append(v)
        if not imp_user and not imp_groups and not imp_uid and not extras:
            return user
        if not imp_user:
            raise ApiError(500, "InternalError", "Internal error occurred: requested %s without "
                           "impersonating a user" % ("[Impersonate-Group]" if imp_groups else
                                                     "[Impersonate-Uid]"))
        authz = self.sim.authz
        checks = []
        if imp_user.startswith("system:serviceaccount:"):
            ns, _, name = imp_user[len("system:serviceaccount:"):].partition(":")
            checks.append(Attrs("impersonate", "", "serviceaccounts", "", ns, name))
        else:
            checks.append(Attrs("impersonate", "", "users", "", "", imp_user))
        for g in imp_groups:
            checks.append(Attrs("impersonate", "", "groups", "", "", g))
        if imp_uid:
            checks.append(Attrs("impersonate", "authentication.k8s.io", "uids", "", "", imp_uid))
        for k, vs in extras.items():
            for v in vs:
                checks.append(Attrs("impersonate", "authentication.k8s.io", "userextras", k, "", v))
        for a in checks:
            if not authz.allowed(user, a):
                raise ApiError(403, "Forbidden", forbidden_message(user, a), _details(a.name, a.group, a.resource))
        groups = list(imp_groups)
        if imp_user.startswith("system:serviceaccount:") and not imp_groups:
            ns = imp_user[len("system:serviceaccount:"):].partition(":")[0]
            groups = ["system:serviceaccounts", "system:serviceaccounts:" + ns]
        if imp_user != "system:anonymous" and "system:authenticated" not in groups:
            groups.append("system:authenticated")
        entry["impersonatedUser"] = imp_user
        entry["impersonatedGroups"] = groups
        return User(imp_user, groups, imp_uid or "", extras)

    def _authorize(self, user, ri, path):
        a = Attrs(ri.verb, ri.group, ri.resource, ri.subresource, ri.namespace, ri.name, path,
                  ri.resource_request)
        if ri.resource_request and ri.resource == "namespaces" and not ri.subresource and ri.verb in (
                "get", "update", "patch", "delete", "watch") and not ri.name_from_selector:
            a.namespace = ri.name
        if ri.resource_request and ri.resource == "namespaces" and ri.verb in ("list", "create",
                                                                                "deletecollection"):
            a.namespace = ""
        if not self.sim.authz.allowed(user, a):
            raise ApiError(403, "Forbidden", forbidden_message(user, a),
                           _details(ri.name, ri.group, ri.resource) if ri.resource_request else {})

    # ---- faults ---------------------------------------------------------------------------------------
    def _faults(self, entry, ri):
        adm = self.sim.admin
        f = adm.take(entry, ("latency",))
        if f:
            time.sleep(float(f.spec.get("ms", 1000)) / 1000.0)
        f = adm.take(entry, ("hang",))
        if f:
            ms = f.spec.get("ms")
            end = time.monotonic() + (float(ms) / 1000.0 if ms else 3600 * 24)
            while time.monotonic() < end and not self.sim.opts.stopping:
                time.sleep(0.1)
            self.close_connection = True
            raise ConnectionResetError("hung request")
        f = adm.take(entry, ("status",))
        if f:
            code = int(f.spec.get("code", 500))
            reason = {429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable",
                      504: "Timeout", 409: "Conflict"}.get(code, "InternalError")
            msg = f.spec.get("message") or {429: "Too many requests, please try again later.",
                                            503: "the server is currently unable to handle the request",
                                            }.get(code, "Internal error occurred: injected fault")
            headers = {}
            details = None
            if f.spec.get("retryAfter") is not None or code == 429:
                ra = int(f.spec.get("retryAfter", 1))
                headers["Retry-After"] = str(ra)
                details = {"retryAfterSeconds": ra}
            raise ApiError(code, reason, msg, details, headers)
        if ri.resource_request and ri.verb in ("update", "patch"):
            f = adm.take(entry, ("conflict",))
            if f:
                raise ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object has '
                               "been modified; please apply your changes to the latest version and try "
                               "again" % (ri.resource + ("." + ri.group if ri.group else ""), ri.name),
                               {"name": ri.name, "kind": ri.resource, **({"group": ri.group} if ri.group
                                                                         else {})})

    # ---- dispatch ------------------------------------------------------------------------------------
    def _accepts_aggregated(self):
        acc = self.headers.get("Accept", "")
        return "as=APIGroupDiscoveryList" in acc and "v=v2;" in acc.replace(" ", "") + ";"

    def _dispatch(self, user, ri, path, q):
        sim = self.sim
        reg = sim.registry
        p = path.rstrip("/") or "/"
        if p in ("/healthz", "/livez", "/readyz"):
            return self._send(200, b"ok", "text/plain")
        if p == "/version":
            return self._send(200, sim.version)
        if p == "/api":
            if self._accepts_aggregated():
                return self._send(200, reg.aggregated(True), AGG_CT)
            host = "127.0.0.1:%d" % sim.opts.port
            return self._send(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs":
                                    [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]})
        if p == "/apis":
            if self._accepts_aggregated():
                return self._send(200, reg.aggregated(False), AGG_CT)
            return self._send(200, reg.api_group_list())
        if p.startswith("/openapi/"):
            doc = openapi.serve(reg, p)
            if doc is None:
                raise ApiError(404, "NotFound", "the server could not find the requested resource")
            return self._send(200, doc)
        if p == "/":
            return self._send(200, {"paths": ["/api", "/api/v1", "/apis", "/healthz", "/openapi/v2",
                                              "/openapi/v3", "/version"]})
        parts = [x for x in p.split("/") if x]
        if not ri.resource_request:
            if parts[0] == "api" and len(parts) == 2:
                rl = reg.resource_list("", parts[1])
                if rl:
                    return self._send(200, rl)
            if parts[0] == "apis" and len(parts) == 2:
                g = reg.api_group(parts[1])
                if g:
                    return self._send(200, g)
            if parts[0] == "apis" and len(parts) == 3:
                rl = reg.resource_list(parts[1], parts[2])
                if rl:
                    return self._send(200, rl)
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        res = ri.res
        if res is None:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        if res.resource == "namespaces" and ri.verb in ("list", "watch", "create", "deletecollection"):
            ri.namespace = ""
        if ri.subresource and ri.subresource not in res.subres:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        if res.namespaced and not ri.namespace and ri.verb not in ("list", "watch"):
            if res.resource != "namespaces":
                raise ApiError(404, "NotFound", "the server could not find the requested resource")
        if res.resource in REVIEW_KINDS and res.group in ("authorization.k8s.io", "authentication.k8s.io"):
            if ri.verb != "create":
                raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the "
                               "requested resource")
            return self._review(user, ri)
        if ri.verb not in res.verbs and not ri.subresource:
            raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the "
                           "requested resource")
        return self._resource(user, ri, res, q)

    def _manager(self, q):
        m = q.get("fieldManager")
        if m:
            return m
        ua = self.headers.get("User-Agent", "unknown")
        return ua.split("/")[0] or "unknown"

    def _json_body(self):
        raw = self._body()
        if (self.headers.get("Content-Type") or "").startswith("application/vnd.kubernetes.protobuf"):
            from .protobuf import decode
            return decode(raw)
        try:
            return json.loads(raw or b"{}")
        except ValueError as e:
            raise bad_request("the body of the request was in an unknown format: %s" % e)

    def _dry(self, q):
        dr = q.get("dryRun")
        if dr and dr != "All":
            raise bad_request("Invalid dryRun value: %s (supported: All)" % dr)
        return dr == "All"

    def _resource(self, user, ri, res, q):
        api = self.sim.api
        fv = q.get("fieldValidation", "")
        if fv not in ("", "Ignore", "Warn", "Strict"):
            raise bad_request('fieldValidation "%s" is invalid: valid values are Ignore, Warn, Strict' % fv)
        api.ctx.field_validation = fv or "Warn"
        api.ctx.warnings = []
        if res.group == "" and res.resource == "endpoints":
            api.ctx.warnings.append("v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
        ns = ri.namespace if res.namespaced else ""
        if res.resource == "namespaces":
            ns = ""
        v = ri.verb
        if v == "watch":
            return self._watch(ri, res, q)
        if ri.subresource == "scale":
            return self._scale(ri, res, ns, q)
        if ri.subresource == "token" and res.resource == "serviceaccounts":
            return self._token_request(ri, ns)
        if ri.subresource == "log":
            api.get(res, ns, ri.name)
            return self._send(200, b"", "text/plain")
        if ri.subresource == "eviction":
            code, out = api.delete(self.sim.registry.lookup("", "v1", "pods"), ns, ri.name, {})
            return self._send(201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                    "status": "Success", "code": 201})
        sub = ri.subresource or None
        if sub == "finalize":
            sub = None
            body = self._json_body()
            with self.sim.store.lock:
                cur = api.get(res, "", ri.name)
                cur["spec"] = body.get("spec") or {}
                new = api.update(res, "", ri.name, cur, self._manager(q), None, self._dry(q))
                return self._send(200, new)
        if v == "get":
            obj = api.get(res, ns, ri.name)
            if self._wants_table():
                return self._send(200, to_table(res, [obj], {"resourceVersion": obj["metadata"].get(
                    "resourceVersion", "")}, q.get("includeObject") or "Metadata"))
            return self._send(200, obj)
        if v == "list":
            if not self._wants_table():  # serialized without copying the objects
                with self.sim.store.lock:
                    data = (dumps(api.list(res, ns if res.namespaced else None, q, shared=True)) + "\n").encode()
                return self._send(200, data)
            lst = api.list(res, ns if res.namespaced else None, q)
            return self._send(200, to_table(res, lst["items"], lst["metadata"], q.get("includeObject") or "Metadata"))
        if v == "create":
            body = self._json_body()
            out = api.create(res, ns, body, self._manager(q), self._dry(q))
            return self._send(201, out)
        if v == "update":
            body = self._json_body()
            out = api.update(res, ns, ri.name, body, self._manager(q), sub, self._dry(q))
            return self._send(200, out)
        if v == "patch":
            body = self._body()
            ctype = self.headers.get("Content-Type", "")
            if ctype.startswith("application/apply-patch"):
                with self.sim.store.lock:
                    existed = self.sim.store.get(res.group, res.resource, ns, ri.name) is not None
                out = api.patch(res, ns, ri.name, ctype, body, q.get("fieldManager"), sub,
                                q.get("force") in ("true", "1"), self._dry(q))
                return self._send(200 if existed else 201, out)
            out = api.patch(res, ns, ri.name, ctype, body, self._manager(q), sub, False, self._dry(q))
            return self._send(200, out)
        if v == "delete":
            raw = self._body()
            opts = {}
            if raw and (self.headers.get("Content-Type") or "").startswith("application/vnd.kubernetes.protobuf"):
                from .protobuf import decode
                opts = decode(raw)
            elif raw:
                try:
                    opts = json.loads(raw)
                except ValueError:
                    raise bad_request("invalid DeleteOptions body")
            for k in ("propagationPolicy", "gracePeriodSeconds"):
                if k in q:
                    opts[k] = q[k]
            if q.get("orphanDependents") in ("true", "false"):
                opts["orphanDependents"] = q["orphanDependents"] == "true"
            code, out = api.delete(res, ns, ri.name, opts, self._dry(q))
            return self._send(code, out)
        if v == "deletecollection":
            opts = self._json_body()
            out = api.delete_collection(res, ns if res.namespaced else None, q, opts, self._dry(q))
            return self._send(200, out)
        raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                       "resource")

    def _wants_table(self):
        return "as=Table" in self.headers.get("Accept", "")

class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, handler, ssl_ctx, h2_handler):
        self.ssl_ctx = ssl_ctx
        self.h2_handler = h2_handler  # None: HTTP/1.1 only
        self.h2_stats = h2conn.Stats()
        super().__init__(addr, handler)

    def get_request(self):
        sock, addr = self.socket.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.ssl_ctx is not None:
            sock = self.ssl_ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def finish_request(self, request, client_address):
        """On the connection's thread: HTTP/2 when the client chose it by ALPN, else HTTP/1.1."""
        if self.ssl_ctx is None:
            self.h2_stats.add("plain_http1")
            return super().finish_request(request, client_address)
        cpu = self.RequestHandlerClass.cpustats
        t0 = time.thread_time() if cpu else 0.0
        try:
            request.do_handshake()
        except (OSError, ssl.SSLError):
            self.h2_stats.add("tls_failed")
            return
        finally:
            if cpu:
                from .profiling import cpu_add
                cpu_add("TLS handshake", time.thread_time() - t0)
        if self.h2_handler is None or request.selected_alpn_protocol() != "h2":
            self.h2_stats.add("tls_http1")
            return super().finish_request(request, client_address)
        self.h2_stats.add("tls_h2")
        t0 = time.thread_time() if cpu else 0.0
        try:
            h2conn.Conn(request, client_address, self).serve()
        finally:
            if cpu:
                from .profiling import cpu_add
                cpu_add("connection (HTTP/2 framing)", time.thread_time() - t0)

    def handle_error(self, request, client_address):
        pass


def make_server(sim, host, port, certs_dir, use_tls, h2=True):
    """h2: offer HTTP/2 by ALPN (h2conn.load() done)."""
    ctx = None
    if use_tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certs_dir + "/server.crt", certs_dir + "/server.key")
        ctx.load_verify_locations(certs_dir + "/ca.crt")
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.set_alpn_protocols(["h2", "http/1.1"] if h2 else ["http/1.1"])
    handler = type("KubesimHandler", (Handler,), {"sim": sim})
    headers.install(handler)
    h2_handler = type("KubesimH2Handler", (h2conn.H2Handler, handler), {}) if use_tls and h2 else None
    srv = Server((host, port), handler, ctx, h2_handler)
    return srv
