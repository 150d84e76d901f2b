"""Defaulting and creation-time preparation of built-in kinds (what the
apiserver's defaulters and registry strategies do), and ClusterIP/NodePort
allocation."""
import random



def _pod_spec(spec):
    if not isinstance(spec, dict):
        return
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if not isinstance(c, dict):
                continue
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            c.setdefault("resources", {})
            img = c.get("image", "")
            tag = img.rsplit("/", 1)[-1]
            if "imagePullPolicy" not in c:
                c["imagePullPolicy"] = "Always" if (":" not in tag or tag.endswith(":latest")) \
                    and "@" not in tag else "IfNotPresent"
            for p in c.get("ports") or []:
                if isinstance(p, dict):
                    p.setdefault("protocol", "TCP")
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                pr = c.get(probe)
                if isinstance(pr, dict):
                    pr.setdefault("timeoutSeconds", 1)
                    pr.setdefault("periodSeconds", 10)
                    pr.setdefault("successThreshold", 1)
                    pr.setdefault("failureThreshold", 3)
                    hg = pr.get("httpGet")
                    if isinstance(hg, dict):
                        hg.setdefault("path", "/")
                        hg.setdefault("scheme", "HTTP")
    for v in spec.get("volumes") or []:
        if isinstance(v, dict):
            for src in ("configMap", "secret"):
                if isinstance(v.get(src), dict):
                    v[src].setdefault("defaultMode", 420)


def _template(obj):
    t = (obj.get("spec") or {}).get("template")
    if isinstance(t, dict):
        t.setdefault("metadata", {})
        _pod_spec(t.setdefault("spec", {}))


def apply_defaults(group, resource, obj):
    spec = obj.get("spec")
    if group == "apps" and isinstance(spec, dict):
        if resource in ("deployments", "statefulsets", "replicasets"):
            spec.setdefault("replicas", 1)
        if resource in ("deployments", "statefulsets", "daemonsets"):
            spec.setdefault("revisionHistoryLimit", 10)
        if resource == "deployments":
            spec.setdefault("progressDeadlineSeconds", 600)
            st = spec.setdefault("strategy", {"type": "RollingUpdate"})
            if st.get("type", "RollingUpdate") == "RollingUpdate":
                st.setdefault("type", "RollingUpdate")
                ru = st.setdefault("rollingUpdate", {})
                ru.setdefault("maxUnavailable", "25%")
                ru.setdefault("maxSurge", "25%")
        if resource == "statefulsets":
            spec.setdefault("podManagementPolicy", "OrderedReady")
            spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
            spec.setdefault("persistentVolumeClaimRetentionPolicy",
                            {"whenDeleted": "Retain", "whenScaled": "Retain"})
        if resource == "daemonsets":
            spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate":
                                               {"maxUnavailable": 1, "maxSurge": 0}})
        _template(obj)
    elif group == "batch" and isinstance(spec, dict):
        if resource == "jobs":
            spec.setdefault("parallelism", 1)
            spec.setdefault("completions", 1)
            spec.setdefault("backoffLimit", 6)
            spec.setdefault("completionMode", "NonIndexed")
            spec.setdefault("suspend", False)
            _template(obj)
            tspec = spec["template"]["spec"]
            if tspec.get("restartPolicy") == "Always":
                tspec["restartPolicy"] = "Never"
        if resource == "cronjobs":
            spec.setdefault("concurrencyPolicy", "Allow")
            spec.setdefault("suspend", False)
            spec.setdefault("successfulJobsHistoryLimit", 3)
            spec.setdefault("failedJobsHistoryLimit", 1)
    elif group == "" and resource == "pods":
        _pod_spec(obj.setdefault("spec", {}))
    elif group == "" and resource == "services" and isinstance(spec, dict):
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        if spec["type"] != "ExternalName":
            spec.setdefault("internalTrafficPolicy", "Cluster")
        for p in spec.get("ports") or []:
            if isinstance(p, dict):
                p.setdefault("protocol", "TCP")
                if "port" in p:
                    p.setdefault("targetPort", p["port"])
        if spec["type"] in ("NodePort", "LoadBalancer"):
            spec.setdefault("externalTrafficPolicy", "Cluster")
    elif group == "" and resource == "secrets":
        obj.setdefault("type", "Opaque")
    elif group == "" and resource == "persistentvolumeclaims" and isinstance(spec, dict):
        spec.setdefault("volumeMode", "Filesystem")


def job_selector(obj):
    """Jobs get a generated controller-uid selector and labels, as kube does."""
    uid = obj["metadata"]["uid"]
    spec = obj.setdefault("spec", {})
    if spec.get("manualSelector"):
        return
    labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name":
              obj["metadata"]["name"], "controller-uid": uid, "job-name": obj["metadata"]["name"]}
    spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    t = spec.setdefault("template", {}).setdefault("metadata", {})
    t.setdefault("labels", {}).update(labels)
    obj["metadata"].setdefault("labels", {}).update(
        {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name":
         obj["metadata"]["name"], "controller-uid": uid, "job-name": obj["metadata"]["name"]})


def random_suffix(n=5):
    return "".join(random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


class Allocator:
    """ClusterIPs from 10.96.0.0/16, NodePorts from 30000-32767, LB IPs from 172.18.255.0/24."""

    def __init__(self):
        self.ips = set(["10.96.0.1"])
        self.ports = set()
        self.lbs = set()

    def cluster_ip(self):
        for n in range(2, 65000):
            ip = "10.96.%d.%d" % (n // 254, n % 254 + 1)
            if ip not in self.ips:
                self.ips.add(ip)
                return ip
        return "None"

    def node_port(self):
        for p in range(30000, 32768):
            if p not in self.ports:
                self.ports.add(p)
                return p
        return 0

    def lb_ip(self):
        for n in range(1, 255):
            ip = "172.18.255.%d" % n
            if ip not in self.lbs:
                self.lbs.add(ip)
                return ip
        return "172.18.255.255"

    def release(self, svc):
        spec = svc.get("spec") or {}
        self.ips.discard(spec.get("clusterIP"))
        for p in spec.get("ports") or []:
            self.ports.discard(p.get("nodePort"))
        for i in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []:
            self.lbs.discard(i.get("ip"))


def service_allocate(alloc, obj, old=None):
    spec = obj.setdefault("spec", {})
    t = spec.get("type", "ClusterIP")
    if t == "ExternalName":
        return
    if old is not None and (old.get("spec") or {}).get("clusterIP"):
        spec.setdefault("clusterIP", old["spec"]["clusterIP"])
        spec.setdefault("clusterIPs", old["spec"].get("clusterIPs") or [old["spec"]["clusterIP"]])
    if not spec.get("clusterIP"):
        spec["clusterIP"] = alloc.cluster_ip()
    elif spec["clusterIP"] not in ("None",):
        alloc.ips.add(spec["clusterIP"])
    spec.setdefault("clusterIPs", [spec["clusterIP"]])
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    if t in ("NodePort", "LoadBalancer"):
        oldports = {(p.get("port"), p.get("protocol", "TCP")): p.get("nodePort")
                    for p in ((old or {}).get("spec") or {}).get("ports") or []}
        for p in spec.get("ports") or []:
            if not p.get("nodePort"):
                p["nodePort"] = oldports.get((p.get("port"), p.get("protocol", "TCP"))) or alloc.node_port()
            alloc.ports.add(p["nodePort"])
    if t == "LoadBalancer" and old is None:
        obj.setdefault("status", {}).setdefault("loadBalancer", {})
