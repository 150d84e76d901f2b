"""Simulated kubelet and scheduler: pods are bound to the one node, run, become
Ready, finish (Succeeded/Failed) or crash-loop (mixed into Controllers)."""
import hashlib
import re
import time

from .ctrlutil import KUBELET, NODE, _cond
from .util import dcopy, get_path, now_rfc3339


class Kubelet:
    # ---- kubelet ----------------------------------------------------------------------------------------
    def _pod_outcome(self, p):
        """Outcome of a run-to-completion pod: the kubesim.io/outcome annotation,
        else the first `exit N` in the container commands (N != 0 fails), else success."""
        key = (p["metadata"].get("uid"), p["metadata"].get("resourceVersion"))
        if key not in self.outcomes:
            if len(self.outcomes) > 10000:
                self.outcomes.clear()
            self.outcomes[key] = self._compute_outcome(p)
        return self.outcomes[key]

    def _compute_outcome(self, p):
        ann = p["metadata"].get("annotations") or {}
        o = ann.get("kubesim.io/outcome")
        if o in ("Succeeded", "Failed"):
            return o, 0 if o == "Succeeded" else 1
        for c in get_path(p, "spec", "containers") or []:
            words = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
            m = re.search(r"\bexit\s+(\d+)", words)
            if m and int(m.group(1)) != 0:
                return "Failed", int(m.group(1))
            if words.strip() == "false" or "kubesim-fail" in words:
                return "Failed", 1
        return "Succeeded", 0

    def _run_seconds(self, p):
        ann = p["metadata"].get("annotations") or {}
        if "kubesim.io/run-seconds" in ann:
            return float(ann["kubesim.io/run-seconds"])
        secs = self.opts.pod_run_seconds
        for c in get_path(p, "spec", "containers") or []:
            words = " ".join(str(x) for x in (c.get("command") or []) + (c.get("args") or []))
            m = re.search(r"\bsleep\s+(\d+(?:\.\d+)?)", words)
            if m:
                secs = max(secs, min(float(m.group(1)), 600.0))
        return secs

    def _pods(self):
        pres = self.r("", "pods")
        for p in self._each("pods", "", "pods"):
            md = p["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns, name = md["namespace"], md["name"]
            phase = get_path(p, "status", "phase") or "Pending"
            ann = md.get("annotations") or {}
            override = self.pod_override.pop((ns, name), None)
            if override:
                self._pod_set(pres, p, override[0], override[1], now_rfc3339())
                continue
            if phase == "Pending":
                if not self._due("pods", p, "/pending", float(ann.get("kubesim.io/start-delay",
                                                                       self.opts.pod_start_delay))):
                    continue
                self._pod_set(pres, p, "Running", None, now_rfc3339())
            elif phase == "Running":
                rp = get_path(p, "spec", "restartPolicy") or "Always"
                if rp == "Always" and "kubesim.io/outcome" not in ann:
                    if self._crashing(p) and self._due("pods", p, "/running", self._run_seconds(p)):
                        self._crashloop(pres, p, now_rfc3339())
                        self.seen[md["uid"] + "/running"] = time.monotonic()
                    continue
                if not self._due("pods", p, "/running", self._run_seconds(p)):
                    continue
                phase, code = self._pod_outcome(p)
                self._pod_set(pres, p, phase, code, now_rfc3339())

    def _crashing(self, p):
        """A restartPolicy=Always pod whose command exits non-zero crash-loops."""
        return (get_path(p, "spec", "restartPolicy") or "Always") == "Always" and \
            "kubesim.io/outcome" not in (p["metadata"].get("annotations") or {}) and \
            self._pod_outcome(p)[0] == "Failed"

    def _crashloop(self, pres, p, now):
        code = self._pod_outcome(p)[1]
        new = dcopy(p)
        st = new.setdefault("status", {})
        for cs in st.get("containerStatuses") or []:
            cs["restartCount"] = cs.get("restartCount", 0) + 1
            cs["ready"] = False
            cs["started"] = False
            cs["lastState"] = {"terminated": {"exitCode": code, "reason": "Error", "startedAt": now,
                                              "finishedAt": now, "containerID": cs.get("containerID", "")}}
            cs["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s restarting failed "
                                       "container=%s pod=%s_%s(%s)" % (cs.get("name"), p["metadata"]["name"],
                                                                       p["metadata"]["namespace"],
                                                                       p["metadata"]["uid"])}}
        self._put(pres, p, new, KUBELET, "status")
        self._event(p, "Pod", "BackOff", "Back-off restarting failed container", "Warning", source="kubelet")

    def _pod_set(self, pres, p, phase, exit_code, now):
        md = p["metadata"]
        new = dcopy(p)
        spec = new.setdefault("spec", {})
        if not spec.get("nodeName"):
            spec["nodeName"] = NODE
            p = self._put(pres, p, new, "kube-scheduler", None)
            new = dcopy(p)
            self._event(p, "Pod", "Scheduled", "Successfully assigned %s/%s to %s" % (md["namespace"], md["name"],
                                                                                     NODE), source="default-scheduler")
        st = dcopy(p.get("status") or {})
        ann = md.get("annotations") or {}
        if not st.get("podIP"):
            self.pod_ip += 1
            ip = "10.244.%d.%d" % (self.pod_ip // 250, self.pod_ip % 250 + 1)
            st.update({"hostIP": "172.18.0.2", "hostIPs": [{"ip": "172.18.0.2"}], "podIP": ip,
                       "podIPs": [{"ip": ip}], "startTime": now})
        st["phase"] = phase
        ready = phase == "Running" and ann.get("kubesim.io/ready", "true") != "false" and not self._crashing(p)
        conds = st.get("conditions") or []
        r = "True" if ready else "False"
        reason = "PodCompleted" if phase in ("Succeeded", "Failed") else ("" if ready else "ContainersNotReady")
        for typ, val in (("PodReadyToStartContainers", "True" if phase == "Running" else "False"),
                         ("Initialized", "True"), ("Ready", r), ("ContainersReady", r), ("PodScheduled", "True")):
            _cond(conds, typ, val, reason if typ in ("Ready", "ContainersReady") else "", "", now)
        for c in conds:
            c.pop("lastUpdateTime", None)
            c.setdefault("lastProbeTime", None)
            if not c.get("reason"):
                c.pop("reason", None)
            if not c.get("message"):
                c.pop("message", None)
        st["conditions"] = conds
        css = []
        for c in get_path(p, "spec", "containers") or []:
            cs = {"name": c.get("name"), "image": c.get("image"), "imageID": "docker.io/library/" + str(
                c.get("image")) + "@sha256:" + hashlib.sha256(str(c.get("image")).encode()).hexdigest(),
                "containerID": "containerd://" + hashlib.sha256((md["uid"] + str(c.get("name"))).encode()).hexdigest(),
                "ready": ready, "restartCount": 0, "started": phase == "Running"}
            if phase == "Running":
                cs["state"] = {"running": {"startedAt": now}}
            elif phase in ("Succeeded", "Failed"):
                code = exit_code if exit_code is not None else (0 if phase == "Succeeded" else 1)
                cs["state"] = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                              "startedAt": st.get("startTime", now), "finishedAt": now,
                                              "containerID": cs["containerID"]}}
            else:
                cs["state"] = {"waiting": {"reason": "ContainerCreating"}}
            css.append(cs)
        st["containerStatuses"] = css
        st.setdefault("qosClass", "BestEffort")
        if st != p.get("status"):
            new = dcopy(p)
            new["status"] = st
            self._put(pres, p, new, KUBELET, "status")
            if phase == "Running" and get_path(p, "status", "phase") != "Running":
                for c in get_path(p, "spec", "containers") or []:
                    self._event(p, "Pod", "Started", "Started container %s" % c.get("name"), source="kubelet")
