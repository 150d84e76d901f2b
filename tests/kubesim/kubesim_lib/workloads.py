"""Simulated kube-controller-manager workload controllers: Deployments,
ReplicaSets, StatefulSets, DaemonSets and Jobs, with the status fields and
conditions the real controllers set (mixed into Controllers)."""
from .ctrlutil import KCM, _cond, _controller_ref, _hash, _pod_ready, _same_template
from .defaults import random_suffix
from .util import ApiError, dcopy, get_path, now_rfc3339


class WorkloadControllers:
    # ---- workloads -------------------------------------------------------------------------------------
    def _owned(self, owner, group, resource):
        """The objects of group/resource in owner's namespace naming it as an
        owner, by name (from the owner index, not a scan)."""
        md = owner["metadata"]
        ns = md.get("namespace", "")
        out = []
        for g, r, dns, name in self.wq.dependents(md["uid"]):
            if g == group and r == resource and dns == ns:
                o = self.store.get(g, r, ns, name)
                if o is not None:
                    out.append(o)
        out.sort(key=lambda o: o["metadata"]["name"])
        return out

    def _pods_of(self, owner, ns):
        return self._owned(owner, "", "pods")

    def _new_pod(self, owner, api_version, kind, name, extra_labels=None, annotations=None):
        tmpl = dcopy(get_path(owner, "spec", "template") or {})
        md = tmpl.get("metadata") or {}
        labels = dict(md.get("labels") or {})
        labels.update(extra_labels or {})
        ann = dict(md.get("annotations") or {})
        ann.update(annotations or {})
        pod = {"metadata": {"name": name, "labels": labels,
                            "ownerReferences": [_controller_ref(owner, api_version, kind)]},
               "spec": tmpl.get("spec") or {"containers": []}}
        if ann:
            pod["metadata"]["annotations"] = ann
        try:
            p = self.api.create(self.r("", "pods"), owner["metadata"]["namespace"], pod, KCM)
            self._event(owner, kind, "SuccessfulCreate", "Created pod: %s" % p["metadata"]["name"])
            return p
        except ApiError:
            return None

    def _memo(self, key, fn, *args):
        """fn(*args), remembered under key: keys name stored objects by uid and
        by a version (resourceVersion, or generation for what only the spec
        decides) that changes whenever what fn reads does."""
        v = self.memo.get(key, self.memo)
        if v is self.memo:
            if len(self.memo) > 20000:
                self.memo.clear()
            v = self.memo[key] = fn(*args)
        return v

    def _set_status(self, res, obj, status):
        new = dcopy(obj)
        new["status"] = status
        return self._put(res, obj, new)

    def _deployments(self):
        dres, rsres = self.r("apps", "deployments"), self.r("apps", "replicasets")
        for d in self._each("deployments", "apps", "deployments"):
            if not d["metadata"].get("deletionTimestamp"):
                self._deployment(dres, rsres, d)

    def _deployment(self, dres, rsres, d):
        """One pass of the Deployment controller over d."""
        md = d["metadata"]
        ns = md["namespace"]
        spec = d.get("spec") or {}
        want = spec.get("replicas", 1)
        tmpl = spec.get("template") or {}
        # a template changes only with the spec, which bumps metadata.generation:
        # status writes (most writes) leave these memos valid
        gen = (md["uid"], md.get("generation"))
        h = self._memo(("hash",) + gen, _hash, tmpl)
        owned = self._owned(d, "apps", "replicasets")
        cur = next((rs for rs in owned if self._memo(("same", rs["metadata"]["uid"], rs["metadata"].get("generation"))
                                                     + gen, _same_template, rs, tmpl)), None)
        revs = [int((rs["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", "0"))
                for rs in owned]
        if spec.get("paused"):
            return
        if cur is None:
            rev = str(max(revs + [0]) + 1)
            t = dcopy(tmpl)
            t.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = h
            sel = dcopy(spec.get("selector") or {})
            sel.setdefault("matchLabels", {})["pod-template-hash"] = h
            rs = {"metadata": {"name": "%s-%s" % (md["name"], h), "labels": dict(t["metadata"]["labels"]),
                               "annotations": {"deployment.kubernetes.io/desired-replicas": str(want),
                                               "deployment.kubernetes.io/max-replicas": str(want + 1),
                                               "deployment.kubernetes.io/revision": rev},
                               "ownerReferences": [_controller_ref(d, "apps/v1", "Deployment")]},
                  "spec": {"replicas": want, "selector": sel, "template": t,
                           "minReadySeconds": spec.get("minReadySeconds", 0)}}
            try:
                cur = self.api.create(rsres, ns, rs, KCM)
                cur = self.store.get("apps", "replicasets", ns, cur["metadata"]["name"])
                self._event(d, "Deployment", "ScalingReplicaSet",
                            "Scaled up replica set %s from 0 to %d" % (cur["metadata"]["name"], want))
            except ApiError:
                return
        else:
            rev = (cur["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", "1")
            if get_path(cur, "spec", "replicas") != want:
                new = dcopy(cur)
                new["spec"]["replicas"] = want
                new["metadata"].setdefault("annotations", {})["deployment.kubernetes.io/desired-replicas"] = \
                    str(want)
                cur = self._put(rsres, cur, new, KCM, None)
        if (md.get("annotations") or {}).get("deployment.kubernetes.io/revision") != rev:
            new = dcopy(d)
            new["metadata"].setdefault("annotations", {})["deployment.kubernetes.io/revision"] = rev
            d = self._put(dres, d, new, KCM, None)
        new_ready = (get_path(cur, "status", "availableReplicas") or 0) >= want
        for rs in owned:
            if rs is cur or rs["metadata"]["uid"] == cur["metadata"]["uid"]:
                continue
            if get_path(rs, "spec", "replicas") and new_ready:
                new = dcopy(rs)
                new["spec"]["replicas"] = 0
                self._put(rsres, rs, new, KCM, None)
                self._event(d, "Deployment", "ScalingReplicaSet", "Scaled down replica set %s from %d to 0"
                            % (rs["metadata"]["name"], get_path(rs, "spec", "replicas")))
        owned = self._owned(d, "apps", "replicasets")
        total = sum(get_path(rs, "status", "replicas") or 0 for rs in owned)
        ready = sum(get_path(rs, "status", "readyReplicas") or 0 for rs in owned)
        avail = sum(get_path(rs, "status", "availableReplicas") or 0 for rs in owned)
        updated = get_path(cur, "status", "replicas") or 0
        now = now_rfc3339()
        st = dcopy(d.get("status") or {})
        conds = dcopy(st.get("conditions") or [])
        mu = get_path(spec, "strategy", "rollingUpdate", "maxUnavailable", default=0)
        if isinstance(mu, str) and mu.endswith("%"):
            mu = int(want * int(mu[:-1]) / 100)
        if get_path(spec, "strategy", "type") == "Recreate":
            mu = 0
        if avail >= want - int(mu or 0):
            _cond(conds, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.",
                  now)
        else:
            _cond(conds, "Available", "False", "MinimumReplicasUnavailable",
                  "Deployment does not have minimum availability.", now)
        rsname = cur["metadata"]["name"]
        if updated == want and avail >= want and total == want and \
                (get_path(cur, "status", "availableReplicas") or 0) >= want:
            _cond(conds, "Progressing", "True", "NewReplicaSetAvailable",
                  'ReplicaSet "%s" has successfully progressed.' % rsname, now)
            self.seen.pop(md["uid"] + "/progress/" + rsname, None)
        elif self._due("deployments", d, "/progress/" + rsname, spec.get("progressDeadlineSeconds", 600), True):
            _cond(conds, "Progressing", "False", "ProgressDeadlineExceeded",
                  'ReplicaSet "%s" has timed out progressing.' % rsname, now)
        else:
            _cond(conds, "Progressing", "True", "ReplicaSetUpdated", 'ReplicaSet "%s" is progressing.' % rsname,
                  now)
        conds.sort(key=lambda c: {"Available": 0, "Progressing": 1}.get(c["type"], 2))
        st2 = {"observedGeneration": md.get("generation", 1), "replicas": total, "updatedReplicas": updated,
               "readyReplicas": ready, "availableReplicas": avail, "conditions": conds}
        if total - avail > 0:
            st2["unavailableReplicas"] = total - avail
        for k in ("readyReplicas", "availableReplicas", "replicas", "updatedReplicas"):
            if not st2[k]:
                del st2[k]
        if st2 != st:
            self._set_status(dres, d, st2)

    def _replicasets(self):
        rsres = self.r("apps", "replicasets")
        for rs in self._each("replicasets", "apps", "replicasets"):
            if not rs["metadata"].get("deletionTimestamp"):
                self._replicaset(rsres, rs)

    def _replicaset(self, rsres, rs):
        """One pass of the ReplicaSet controller over rs."""
        md = rs["metadata"]
        ns = md["namespace"]
        want = get_path(rs, "spec", "replicas", default=1)
        pods = [p for p in self._pods_of(rs, ns) if not p["metadata"].get("deletionTimestamp")]
        while len(pods) < want:
            p = self._new_pod(rs, "apps/v1", "ReplicaSet", "%s-%s" % (md["name"], random_suffix()))
            if p is None:
                break
            pods.append(p)
        while len(pods) > want:
            victim = sorted(pods, key=lambda p: (_pod_ready(p), p["metadata"]["creationTimestamp"]))[0]
            pods.remove(victim)
            try:
                self.api.delete(self.r("", "pods"), ns, victim["metadata"]["name"], {})
                self._event(rs, "ReplicaSet", "SuccessfulDelete", "Deleted pod: %s" % victim["metadata"]["name"])
            except ApiError:
                pass
        ready = sum(1 for p in pods if _pod_ready(p))
        st = {"replicas": len(pods), "fullyLabeledReplicas": len(pods), "readyReplicas": ready,
              "availableReplicas": ready, "observedGeneration": md.get("generation", 1)}
        for k in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if not st[k] and k != "replicas":
                del st[k]
        if st != (rs.get("status") or {}):
            self._set_status(rsres, rs, st)

    def _statefulsets(self):
        res = self.r("apps", "statefulsets")
        for s in self._each("statefulsets", "apps", "statefulsets"):
            md = s["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            spec = s.get("spec") or {}
            want = spec.get("replicas", 1)
            rev = "%s-%s" % (md["name"], _hash(spec.get("template") or {}))
            pods = {p["metadata"]["name"]: p for p in self._pods_of(s, ns)}
            for i in range(want):
                name = "%s-%d" % (md["name"], i)
                for vct in spec.get("volumeClaimTemplates") or []:
                    cname = "%s-%s" % (vct["metadata"]["name"], name)
                    if self.store.get("", "persistentvolumeclaims", ns, cname) is None:
                        pvc = {"metadata": {"name": cname, "labels": dict((spec.get("selector") or {}).get(
                            "matchLabels") or {})}, "spec": dcopy(vct.get("spec") or {})}
                        try:
                            self.api.create(self.r("", "persistentvolumeclaims"), ns, pvc, KCM)
                        except ApiError:
                            pass
                p = pods.get(name)
                if p is None:
                    if spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady" and i > 0 and not \
                            _pod_ready(pods.get("%s-%d" % (md["name"], i - 1)) or {"status": {}}):
                        break
                    p = self._new_pod(s, "apps/v1", "StatefulSet", name, {
                        "controller-revision-hash": rev, "statefulset.kubernetes.io/pod-name": name,
                        "apps.kubernetes.io/pod-index": str(i)})
                    if p is not None:
                        p = self.store.get("", "pods", ns, name)
                        pods[name] = p
                    break
            for name, p in list(pods.items()):
                idx = int(name.rsplit("-", 1)[-1]) if name.rsplit("-", 1)[-1].isdigit() else 0
                stale = (p["metadata"].get("labels") or {}).get("controller-revision-hash") != rev
                if (idx >= want or stale) and not p["metadata"].get("deletionTimestamp"):
                    try:
                        self.api.delete(self.r("", "pods"), ns, name, {})
                    except ApiError:
                        pass
                    del pods[name]
                    break
            live = [p for p in pods.values() if not p["metadata"].get("deletionTimestamp")]
            ready = sum(1 for p in live if _pod_ready(p))
            upd = sum(1 for p in live if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == rev)
            old = s.get("status") or {}
            cur_rev = old.get("currentRevision", rev)
            if upd == want == len(live):
                cur_rev = rev
            st = {"observedGeneration": md.get("generation", 1), "replicas": len(live), "readyReplicas": ready,
                  "currentReplicas": upd if cur_rev == rev else len(live) - upd, "updatedReplicas": upd,
                  "availableReplicas": ready, "currentRevision": cur_rev, "updateRevision": rev,
                  "collisionCount": 0}
            for k in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
                if not st[k]:
                    del st[k]
            if st != old:
                self._set_status(res, s, st)

    def _daemonsets(self):
        res = self.r("apps", "daemonsets")
        for ds in self._each("daemonsets", "apps", "daemonsets"):
            md = ds["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            h = _hash(get_path(ds, "spec", "template") or {})
            pods = [p for p in self._pods_of(ds, ns) if not p["metadata"].get("deletionTimestamp")]
            for p in pods:
                if (p["metadata"].get("labels") or {}).get("controller-revision-hash") != h:
                    try:
                        self.api.delete(self.r("", "pods"), ns, p["metadata"]["name"], {})
                    except ApiError:
                        pass
            pods = [p for p in pods if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == h]
            if not pods:
                p = self._new_pod(ds, "apps/v1", "DaemonSet", "%s-%s" % (md["name"], random_suffix()),
                                  {"controller-revision-hash": h, "pod-template-generation":
                                   str(md.get("generation", 1))})
                if p:
                    pods = [p]
            ready = sum(1 for p in pods if _pod_ready(p))
            st = {"currentNumberScheduled": 1, "desiredNumberScheduled": 1, "numberMisscheduled": 0,
                  "numberReady": ready, "observedGeneration": md.get("generation", 1),
                  "updatedNumberScheduled": len(pods)}
            if ready:
                st["numberAvailable"] = ready
            else:
                st["numberUnavailable"] = 1
            if st != (ds.get("status") or {}):
                self._set_status(res, ds, st)

    def _jobs(self):
        res = self.r("batch", "jobs")
        for j in self._each("jobs", "batch", "jobs"):
            md = j["metadata"]
            if md.get("deletionTimestamp"):
                continue
            ns = md["namespace"]
            spec = j.get("spec") or {}
            old = j.get("status") or {}
            now = now_rfc3339()
            finished = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
                           for c in old.get("conditions") or [])
            if finished:
                ttl = spec.get("ttlSecondsAfterFinished")
                if ttl is not None and self._due("jobs", j, "/finished", ttl):
                    try:
                        self.api.delete(res, ns, md["name"], {"propagationPolicy": "Background"})
                    except ApiError:
                        pass
                continue
            if spec.get("suspend"):
                continue
            pods = self._pods_of(j, ns)
            succeeded = sum(1 for p in pods if get_path(p, "status", "phase") == "Succeeded")
            failed = sum(1 for p in pods if get_path(p, "status", "phase") == "Failed")
            active = [p for p in pods if get_path(p, "status", "phase") in ("Pending", "Running", None)
                      and not p["metadata"].get("deletionTimestamp")]
            completions = spec.get("completions", 1) or 1
            backoff = spec.get("backoffLimit", 6)
            outcome = self.job_outcome.get((ns, md["name"])) or (md.get("annotations") or {}).get(
                "kubesim.io/outcome")
            if outcome:
                for p in active:
                    self.pod_override[(ns, p["metadata"]["name"])] = (outcome, None if outcome == "Succeeded" else 1)
                    self.wq.add("pods", (ns, p["metadata"]["name"]))
            st = {"startTime": old.get("startTime") or now, "uncountedTerminatedPods": {},
                  "terminating": 0}
            conds = dcopy(old.get("conditions") or [])
            if succeeded >= completions:
                _cond(conds, "SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of "
                      "succeeded pods", now)
                _cond(conds, "Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods",
                      now)
                st["completionTime"] = now
                self._event(j, "Job", "Completed", "Job completed")
                self._age(j, "/finished")
            elif failed > backoff:
                _cond(conds, "FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff "
                      "limit", now)
                _cond(conds, "Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
                      now)
                self._event(j, "Job", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
                            "Warning")
                self._age(j, "/finished")
                for p in active:
                    try:
                        self.api.delete(self.r("", "pods"), ns, p["metadata"]["name"], {})
                    except ApiError:
                        pass
                active = []
            else:
                par = spec.get("parallelism", 1)
                need = min(par, completions - succeeded) - len(active)
                ann = {"kubesim.io/outcome": outcome} if outcome else None
                for _ in range(max(0, need)):
                    p = self._new_pod(j, "batch/v1", "Job", "%s-%s" % (md["name"], random_suffix()), None, ann)
                    if p:
                        active.append(p)
            for c in conds:
                c.pop("lastUpdateTime", None)
                c.setdefault("lastProbeTime", c.get("lastTransitionTime"))
            if conds:
                st["conditions"] = conds
            if active:
                st["active"] = len(active)
            if succeeded:
                st["succeeded"] = succeeded
            if failed:
                st["failed"] = failed
            st["ready"] = sum(1 for p in active if _pod_ready(p))
            if "completionTime" not in st and old.get("completionTime"):
                st["completionTime"] = old["completionTime"]
            cmp_old = {k: v for k, v in old.items()}
            if st != cmp_old:
                self._set_status(res, j, st)
