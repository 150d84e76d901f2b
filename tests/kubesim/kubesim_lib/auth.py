"""Authentication: a CA and certificates made with the openssl CLI, static
bearer tokens, and ServiceAccount tokens (TokenRequest) as signed JWTs."""
import base64
import hashlib
import hmac
import json
import os
import secrets
import subprocess
import time

from .rbac import User


def _run(args, cwd):
    subprocess.run(["openssl"] + args, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


class Certs:
    """CA, server certificate and client certificates under DIR."""

    def __init__(self, d):
        self.dir = d
        _run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"], d)
        _run(["req", "-x509", "-new", "-key", "ca.key", "-sha256", "-days", "3650",
              "-subj", "/CN=kubesim-ca", "-out", "ca.crt"], d)
        self.issue("server", "/CN=kube-apiserver",
                   ext="subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes,"
                       "DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth")
        self.issue("admin", "/O=system:masters/CN=admin")

    def issue(self, name, subj, ext="extendedKeyUsage=clientAuth"):
        d = self.dir
        _run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name + ".ec"], d)
        _run(["pkcs8", "-topk8", "-nocrypt", "-in", name + ".ec", "-out", name + ".key"], d)
        os.unlink(os.path.join(d, name + ".ec"))
        _run(["req", "-new", "-key", name + ".key", "-subj", subj, "-out", name + ".csr"], d)
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext + "\n")
        _run(["x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
              "-CAcreateserial", "-days", "3650", "-sha256", "-extfile", name + ".ext",
              "-out", name + ".crt"], d)
        os.unlink(os.path.join(d, name + ".csr"))
        os.unlink(os.path.join(d, name + ".ext"))
        return os.path.join(d, name + ".crt"), os.path.join(d, name + ".key")

    def client_pem(self, user, groups):
        """(cert PEM, key PEM) for a client certificate for user with groups."""
        safe = "client-" + hashlib.sha256((user + "|" + ",".join(groups)).encode()).hexdigest()[:12]
        subj = "".join("/O=" + g.replace("/", "\\/") for g in groups) + "/CN=" + user.replace("/", "\\/")
        crt, key = self.issue(safe, subj)
        with open(crt) as f, open(key) as g:
            return f.read(), g.read()

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()


def user_from_cert(cert):
    """User from ssl.getpeercert(): CN is the name, O entries the groups."""
    if not cert:
        return None
    name, groups = None, []
    for rdn in cert.get("subject", ()):
        for k, v in rdn:
            if k == "commonName":
                name = v
            elif k == "organizationName":
                groups.append(v)
    if not name:
        return None
    return User(name, groups + ["system:authenticated"])


def _b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def _unb64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class Tokens:
    ISSUER = "https://kubernetes.default.svc.cluster.local"

    def __init__(self):
        self.static = {}  # token -> User
        self.key = secrets.token_bytes(32)
        self.verified = {}  # signed token -> its claims (signature checked once, not per request)

    def add_static(self, spec):
        """NAME=USER[:GROUP,GROUP] (NAME is the token)."""
        tok, _, rest = spec.partition("=")
        user, _, groups = rest.partition(":")
        gl = [g for g in groups.split(",") if g]
        self.static[tok] = User(user, gl + ["system:authenticated"])

    def load_file(self, path):
        """Lines 'token,user,uid,"group1,group2"' (kube's static token file) or NAME=USER:GROUPS."""
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if "=" in line and "," not in line.split("=", 1)[0]:
                    self.add_static(line)
                    continue
                parts = [p.strip() for p in line.split(",", 3)]
                groups = parts[3].strip('"').split(",") if len(parts) > 3 else []
                self.static[parts[0]] = User(parts[1], [g for g in groups if g] + ["system:authenticated"])

    def issue_sa(self, ns, name, uid, audiences, seconds, bound=None):
        now = int(time.time())
        claims = {"aud": audiences or [self.ISSUER], "iat": now, "nbf": now, "iss": self.ISSUER,
                  "sub": "system:serviceaccount:%s:%s" % (ns, name),
                  "kubernetes.io": {"namespace": ns, "serviceaccount": {"name": name, "uid": uid}}}
        if seconds:
            claims["exp"] = now + int(seconds)
        if bound:
            claims["kubernetes.io"][bound[0]] = {"name": bound[1], "uid": bound[2]}
        header = _b64(json.dumps({"alg": "HS256", "kid": "kubesim", "typ": "JWT"}).encode())
        body = _b64(json.dumps(claims, separators=(",", ":")).encode())
        sig = _b64(hmac.new(self.key, (header + "." + body).encode(), hashlib.sha256).digest())
        return header + "." + body + "." + sig, claims.get("exp")

    def authenticate(self, token, store):
        """User for a bearer token, or None if the token is not valid."""
        u = self.static.get(token)
        if u is not None:
            return u
        claims = self.verified.get(token)
        if claims is None:
            parts = token.split(".")
            if len(parts) != 3:
                return None
            want = _b64(hmac.new(self.key, (parts[0] + "." + parts[1]).encode(), hashlib.sha256).digest())
            if not hmac.compare_digest(want, parts[2]):
                return None
            try:
                claims = json.loads(_unb64(parts[1]))
            except ValueError:
                return None
            if not isinstance(claims, dict):
                return None
            if len(self.verified) > 10000:
                self.verified.clear()
            self.verified[token] = claims
        if claims.get("exp") and claims["exp"] < time.time():
            return None
        k = claims.get("kubernetes.io") or {}
        ns = k.get("namespace", "")
        sa = (k.get("serviceaccount") or {})
        with store.lock:
            obj = store.get("", "serviceaccounts", ns, sa.get("name", ""))
            if obj is None or obj["metadata"].get("uid") != sa.get("uid"):
                return None
            sec = k.get("secret")
            if sec and store.get("", "secrets", ns, sec.get("name", "")) is None:
                return None
            pod = k.get("pod")
            if pod and store.get("", "pods", ns, pod.get("name", "")) is None:
                return None
        extra = {}
        if k.get("pod"):
            extra["authentication.kubernetes.io/pod-name"] = [k["pod"]["name"]]
            extra["authentication.kubernetes.io/pod-uid"] = [k["pod"]["uid"]]
        return User("system:serviceaccount:%s:%s" % (ns, sa.get("name")),
                    ["system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"],
                    uid=sa.get("uid", ""), extra=extra)
