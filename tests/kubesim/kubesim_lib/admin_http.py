"""The /_kubesim/ admin endpoints (mixed into the HTTP handler); see README.md."""
from .util import ApiError, bad_request


class AdminHandlers:
    # ---- admin ---------------------------------------------------------------------------------------
    def _admin(self, path, q):
        sim = self.sim
        adm = sim.admin
        m = self.command
        parts = [x for x in path.split("/") if x][1:]
        head = parts[0] if parts else ""
        if head == "healthz":
            return self._send(200, {"ok": True})
        if head == "log":
            if m == "DELETE":
                adm.clear_log()
                return self._send(200, {"cleared": True})
            return self._send(200, adm.log_lines().encode(), "application/x-ndjson")
        if head == "faults":
            if m == "POST":
                try:
                    f = adm.add_fault(self._json_body())
                except ValueError as e:
                    raise bad_request(str(e))
                return self._send(201, f.to_json())
            if m == "DELETE":
                adm.clear_faults()
                return self._send(200, {"cleared": True})
            with adm.lock:
                return self._send(200, {"faults": [f.to_json() for f in adm.faults]})
        if head == "stats" and m == "GET":
            return self._send(200, {"connections": self.server.h2_stats.snapshot()})
        if head == "close-watches" and m == "POST":
            sim.store.close_watches()
            return self._send(200, {"closed": True})
        if head == "compact" and m == "POST":
            sim.store.compact()
            return self._send(200, {"compactedResourceVersion": sim.store.compacted})
        if head == "reset" and m == "POST":
            sim.controllers.reset()
            adm.clear_faults()
            adm.clear_log()
            return self._send(200, {"reset": True})
        if head == "pods" and len(parts) == 4 and parts[3] == "phase" and m == "POST":
            body = self._json_body()
            sim.controllers.set_pod_phase(parts[1], parts[2], body.get("phase", ""),
                                          body.get("exitCode"))
            return self._send(200, {"ok": True})
        if head == "jobs" and len(parts) == 4 and parts[3] == "outcome" and m == "POST":
            body = self._json_body()
            sim.controllers.set_job_outcome(parts[1], parts[2], body.get("outcome", ""))
            return self._send(200, {"ok": True})
        if head == "certs" and m == "POST":
            body = self._json_body()
            crt, key = sim.certs.client_pem(body.get("user", ""), body.get("groups") or [])
            return self._send(200, {"cert": crt, "key": key, "ca": sim.certs.read("ca.crt")})
        if head == "tokens" and m == "POST":
            body = self._json_body()
            tok = body.get("token") or ("kubesim-" + __import__("secrets").token_hex(16))
            groups = body.get("groups") or []
            sim.tokens.add_static("%s=%s:%s" % (tok, body.get("user", ""), ",".join(groups)))
            return self._send(201, {"token": tok})
        raise ApiError(404, "NotFound", "unknown kubesim admin endpoint %s %s" % (m, path))
