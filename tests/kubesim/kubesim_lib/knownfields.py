"""Unknown-field detection for the common built-in kinds (what the apiserver's
strict JSON decoding reports): `fieldValidation=Strict` (kubectl's and helm's
default) answers 400 `strict decoding error: unknown field "spec.templat"`,
`Warn` adds a Warning header. Only the structs described here are checked;
anything below a field whose type is not described is accepted as is."""

META = "ObjectMeta"
S = {
    "ObjectMeta": ("name generateName namespace selfLink uid resourceVersion generation creationTimestamp "
                   "deletionTimestamp deletionGracePeriodSeconds labels annotations ownerReferences finalizers "
                   "managedFields", {}),
    "PodTemplateSpec": ("metadata spec", {"metadata": META, "spec": "PodSpec"}),
    "PodSpec": ("volumes initContainers containers ephemeralContainers restartPolicy terminationGracePeriodSeconds "
                "activeDeadlineSeconds dnsPolicy nodeSelector serviceAccountName serviceAccount "
                "automountServiceAccountToken nodeName hostNetwork hostPID hostIPC shareProcessNamespace "
                "securityContext imagePullSecrets hostname subdomain affinity schedulerName tolerations hostAliases "
                "priorityClassName priority dnsConfig readinessGates runtimeClassName enableServiceLinks "
                "preemptionPolicy overhead topologySpreadConstraints setHostnameAsFQDN os hostUsers "
                "schedulingGates resourceClaims resources hostnameOverride",
                {"containers": ["Container"], "initContainers": ["Container"], "volumes": ["Volume"]}),
    "Container": ("name image command args workingDir ports envFrom env resources resizePolicy restartPolicy "
                  "restartPolicyRules volumeMounts volumeDevices livenessProbe readinessProbe startupProbe lifecycle "
                  "terminationMessagePath terminationMessagePolicy imagePullPolicy securityContext stdin "
                  "stdinOnce tty",
                  {"ports": ["ContainerPort"], "env": ["EnvVar"], "volumeMounts": ["VolumeMount"],
                   "resources": "Resources"}),
    "ContainerPort": ("name hostPort containerPort protocol hostIP", {}),
    "EnvVar": ("name value valueFrom", {}),
    "VolumeMount": ("name readOnly recursiveReadOnly mountPath subPath mountPropagation subPathExpr", {}),
    "Resources": ("limits requests claims", {}),
    "Volume": ("name hostPath emptyDir gcePersistentDisk awsElasticBlockStore gitRepo secret nfs iscsi glusterfs "
               "persistentVolumeClaim rbd flexVolume cinder cephfs flocker downwardAPI fc azureFile configMap "
               "vsphereVolume quobyte azureDisk photonPersistentDisk projected portworxVolume scaleIO storageos "
               "csi ephemeral image", {}),
    "DeploymentSpec": ("replicas selector template strategy minReadySeconds revisionHistoryLimit paused "
                       "progressDeadlineSeconds", {"template": "PodTemplateSpec"}),
    "StatefulSetSpec": ("replicas selector template volumeClaimTemplates serviceName podManagementPolicy "
                        "updateStrategy revisionHistoryLimit minReadySeconds persistentVolumeClaimRetentionPolicy "
                        "ordinals", {"template": "PodTemplateSpec"}),
    "DaemonSetSpec": ("selector template updateStrategy minReadySeconds revisionHistoryLimit",
                      {"template": "PodTemplateSpec"}),
    "JobSpec": ("parallelism completions activeDeadlineSeconds podFailurePolicy successPolicy backoffLimit "
                "backoffLimitPerIndex maxFailedIndexes selector manualSelector template ttlSecondsAfterFinished "
                "completionMode suspend podReplacementPolicy managedBy", {"template": "PodTemplateSpec"}),
    "ServiceSpec": ("ports selector clusterIP clusterIPs type externalIPs sessionAffinity loadBalancerIP "
                    "loadBalancerSourceRanges externalName externalTrafficPolicy healthCheckNodePort "
                    "publishNotReadyAddresses sessionAffinityConfig ipFamilies ipFamilyPolicy "
                    "allocateLoadBalancerNodePorts loadBalancerClass internalTrafficPolicy trafficDistribution",
                    {"ports": ["ServicePort"]}),
    "ServicePort": ("name protocol appProtocol port targetPort nodePort", {}),
}


def _top(extra, children):
    return ("apiVersion kind metadata " + extra, dict({"metadata": META}, **children))


KINDS = {
    ("apps", "deployments"): _top("spec status", {"spec": "DeploymentSpec"}),
    ("apps", "statefulsets"): _top("spec status", {"spec": "StatefulSetSpec"}),
    ("apps", "daemonsets"): _top("spec status", {"spec": "DaemonSetSpec"}),
    ("batch", "jobs"): _top("spec status", {"spec": "JobSpec"}),
    ("", "pods"): _top("spec status", {"spec": "PodSpec"}),
    ("", "services"): _top("spec status", {"spec": "ServiceSpec"}),
    ("", "configmaps"): _top("data binaryData immutable", {}),
    ("", "secrets"): _top("data stringData type immutable", {}),
    ("", "serviceaccounts"): _top("secrets imagePullSecrets automountServiceAccountToken", {}),
    ("", "namespaces"): _top("spec status", {}),
}


def _walk(v, struct, path, out, depth=0):
    if depth > 32 or not isinstance(v, dict):
        return
    names, children = S[struct] if isinstance(struct, str) else struct
    allowed = set(names.split())
    for k, x in v.items():
        sub = (path + "." if path else "") + k
        if k not in allowed:
            out.append(sub)
            continue
        c = children.get(k)
        if isinstance(c, list):
            if isinstance(x, list):
                for i, item in enumerate(x):
                    _walk(item, c[0], "%s[%d]" % (sub, i), out, depth + 1)
        elif c is not None:
            _walk(x, c, sub, out, depth + 1)


def unknown_fields(res, obj):
    """Paths of fields a typed decoder would not know, in document order."""
    if res.crd is not None:
        return []
    top = KINDS.get((res.group, res.resource))
    if top is None:
        return []
    out = []
    _walk(obj, top, "", out)
    return out


def drop(res, obj, paths):
    """Remove unknown fields (what typed decoding does when they are not rejected)."""
    import re
    for p in sorted(paths, key=len, reverse=True):
        parts = re.findall(r"[^.\[\]]+|\[\d+\]", p)
        cur = obj
        for el in parts[:-1]:
            if el.startswith("["):
                i = int(el[1:-1])
                cur = cur[i] if isinstance(cur, list) and i < len(cur) else None
            else:
                cur = cur.get(el) if isinstance(cur, dict) else None
            if cur is None:
                break
        if isinstance(cur, dict):
            cur.pop(parts[-1], None)
