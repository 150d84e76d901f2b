/* kube/ready.c — kstatus readiness rules (see kube/ready.h). Messages are
 * those of fluxcd/cli-utils pkg/kstatus/status so waits report the same. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kube/ready.h"

static const char *const names[] = {"Current", "InProgress", "Failed", "Terminating", "Unknown", "NotFound"};

const char *const kube_ready_unread[] = {KUBE_READY_UNREAD, NULL};

const char *kube_status_name(kube_status s)
{
	if ((unsigned)s < sizeof names / sizeof names[0])
		return names[s];
	return "Unknown";
}

static void set(kube_ready *out, kube_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(kube_ready *out, kube_status s, const char *fmt, ...)
{
	va_list ap;
	out->status = s;
	va_start(ap, fmt);
	vsnprintf(out->message, sizeof out->message, fmt, ap);
	va_end(ap);
}

/* Walks a dotted path of object keys. */
static json_t *field(const json_t *obj, const char *path)
{
	char key[64];
	json_t *cur = (json_t *)obj;
	while (*path && cur) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		cur = json_object_get(cur, key);
		path += n + (dot ? 1 : 0);
	}
	return cur;
}

/* Like kstatus GetIntField: the default unless the field is an integer. */
static long long int_field(const json_t *obj, const char *path, long long def)
{
	json_t *v = field(obj, path);
	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

static const char *str_field(const json_t *obj, const char *path, const char *def)
{
	const char *s = json_string_value(field(obj, path));
	return s ? s : def;
}

/* The first condition of `type` (object), or NULL. */
static json_t *condition(const json_t *obj, const char *type)
{
	json_t *conds = field(obj, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		if (t && !strcmp(t, type))
			return c;
	}
	return NULL;
}

static const char *cstr(const json_t *c, const char *key)
{
	const char *s = json_string_value(json_object_get(c, key));
	return s ? s : "";
}

static int cond_is(const json_t *obj, const char *type, const char *status)
{
	json_t *c = condition(obj, type);
	return c && !strcmp(cstr(c, "status"), status);
}

static const char *kind_of(const json_t *obj)
{
	return str_field(obj, "kind", "");
}

/* deletionTimestamp, observedGeneration, Reconciling/Stalled. 1 = decided. */
static int generic(const json_t *obj, kube_ready *out)
{
	const char *del = str_field(obj, "metadata.deletionTimestamp", "");
	if (*del) {
		set(out, KUBE_STATUS_TERMINATING, "Resource scheduled for deletion");
		return 1;
	}
	json_t *gen = field(obj, "metadata.generation");
	json_t *obs = field(obj, "status.observedGeneration");
	if (json_is_integer(gen) && json_is_integer(obs) && json_integer_value(gen) != json_integer_value(obs)) {
		set(out, KUBE_STATUS_IN_PROGRESS, "%s generation is %lld, but latest observed generation is %lld",
		    kind_of(obj), (long long)json_integer_value(gen), (long long)json_integer_value(obs));
		return 1;
	}
	json_t *conds = field(obj, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = cstr(c, "type"), *s = cstr(c, "status");
		if (!strcmp(t, "Reconciling") && !strcmp(s, "True")) {
			set(out, KUBE_STATUS_IN_PROGRESS, "%s", cstr(c, "message"));
			return 1;
		}
		if (!strcmp(t, "Stalled") && !strcmp(s, "True")) {
			set(out, KUBE_STATUS_FAILED, "%s", cstr(c, "message"));
			return 1;
		}
	}
	return 0;
}

static void deployment(const json_t *o, kube_ready *out)
{
	int progressing = int_field(o, "spec.progressDeadlineSeconds", 2147483647) == 2147483647;
	int available = 0;
	json_t *conds = field(o, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = cstr(c, "type"), *s = cstr(c, "status"), *r = cstr(c, "reason");
		if (!strcmp(t, "Progressing")) {
			if (!strcmp(r, "ProgressDeadlineExceeded")) {
				set(out, KUBE_STATUS_FAILED, "Progress deadline exceeded");
				return;
			}
			if (!strcmp(s, "True") && !strcmp(r, "NewReplicaSetAvailable"))
				progressing = 1;
		} else if (!strcmp(t, "Available") && !strcmp(s, "True")) {
			available = 1;
		}
	}
	long long spec = int_field(o, "spec.replicas", 1), st = int_field(o, "status.replicas", 0);
	long long upd = int_field(o, "status.updatedReplicas", 0), rdy = int_field(o, "status.readyReplicas", 0);
	long long av = int_field(o, "status.availableReplicas", 0);
	if (spec > st)
		set(out, KUBE_STATUS_IN_PROGRESS, "Replicas: %lld/%lld", st, spec);
	else if (spec > upd)
		set(out, KUBE_STATUS_IN_PROGRESS, "Updated: %lld/%lld", upd, spec);
	else if (st > spec)
		set(out, KUBE_STATUS_IN_PROGRESS, "Pending termination: %lld", st - spec);
	else if (upd > av)
		set(out, KUBE_STATUS_IN_PROGRESS, "Available: %lld/%lld", av, upd);
	else if (spec > rdy)
		set(out, KUBE_STATUS_IN_PROGRESS, "Ready: %lld/%lld", rdy, spec);
	else if (!progressing)
		set(out, KUBE_STATUS_IN_PROGRESS, "ReplicaSet not Available");
	else if (!available)
		set(out, KUBE_STATUS_IN_PROGRESS, "Deployment not Available");
	else
		set(out, KUBE_STATUS_CURRENT, "Deployment is available. Replicas: %lld", st);
}

static void statefulset(const json_t *o, kube_ready *out)
{
	if (!strcmp(str_field(o, "spec.updateStrategy.type", ""), "OnDelete")) {
		set(out, KUBE_STATUS_CURRENT, "StatefulSet is using the ondelete update strategy");
		return;
	}
	long long spec = int_field(o, "spec.replicas", 1), rdy = int_field(o, "status.readyReplicas", 0);
	long long cur = int_field(o, "status.currentReplicas", 0), upd = int_field(o, "status.updatedReplicas", 0);
	long long st = int_field(o, "status.replicas", 0);
	long long part = int_field(o, "spec.updateStrategy.rollingUpdate.partition", -1);
	if (spec > st)
		set(out, KUBE_STATUS_IN_PROGRESS, "Replicas: %lld/%lld", st, spec);
	else if (spec > rdy)
		set(out, KUBE_STATUS_IN_PROGRESS, "Ready: %lld/%lld", rdy, spec);
	else if (st > spec)
		set(out, KUBE_STATUS_IN_PROGRESS, "Pending termination: %lld", st - spec);
	else if (part != -1) {
		if (upd < spec - part)
			set(out, KUBE_STATUS_IN_PROGRESS, "updated: %lld/%lld", upd, spec - part);
		else
			set(out, KUBE_STATUS_CURRENT, "Partition rollout complete. updated: %lld", upd);
	} else if (spec > cur)
		set(out, KUBE_STATUS_IN_PROGRESS, "current: %lld/%lld", cur, spec);
	else if (strcmp(str_field(o, "status.currentRevision", ""), str_field(o, "status.updateRevision", "")))
		set(out, KUBE_STATUS_IN_PROGRESS, "Waiting for updated revision to match current");
	else
		set(out, KUBE_STATUS_CURRENT, "All replicas scheduled as expected. Replicas: %lld", st);
}

static void daemonset(const json_t *o, kube_ready *out)
{
	if (!json_is_integer(field(o, "metadata.generation"))) {
		set(out, KUBE_STATUS_IN_PROGRESS, "%s metadata.generation not found", kind_of(o));
		return;
	}
	if (!json_is_integer(field(o, "status.observedGeneration"))) {
		set(out, KUBE_STATUS_IN_PROGRESS, "%s status.observedGeneration not found", kind_of(o));
		return;
	}
	long long want = int_field(o, "status.desiredNumberScheduled", -1);
	long long cur = int_field(o, "status.currentNumberScheduled", 0);
	long long upd = int_field(o, "status.updatedNumberScheduled", 0);
	long long av = int_field(o, "status.numberAvailable", 0), rdy = int_field(o, "status.numberReady", 0);
	if (want == -1)
		set(out, KUBE_STATUS_IN_PROGRESS, "Missing .status.desiredNumberScheduled");
	else if (want > cur)
		set(out, KUBE_STATUS_IN_PROGRESS, "Current: %lld/%lld", cur, want);
	else if (want > upd)
		set(out, KUBE_STATUS_IN_PROGRESS, "Updated: %lld/%lld", upd, want);
	else if (want > av)
		set(out, KUBE_STATUS_IN_PROGRESS, "Available: %lld/%lld", av, want);
	else if (want > rdy)
		set(out, KUBE_STATUS_IN_PROGRESS, "Ready: %lld/%lld", rdy, want);
	else
		set(out, KUBE_STATUS_CURRENT, "All replicas scheduled as expected. Replicas: %lld", want);
}

static void replicaset(const json_t *o, kube_ready *out)
{
	if (cond_is(o, "ReplicaFailure", "True")) {
		set(out, KUBE_STATUS_IN_PROGRESS, "Replica Failure condition. Check Pods");
		return;
	}
	long long spec = int_field(o, "spec.replicas", 1), st = int_field(o, "status.replicas", 0);
	long long rdy = int_field(o, "status.readyReplicas", 0), av = int_field(o, "status.availableReplicas", 0);
	long long lab = int_field(o, "status.fullyLabeledReplicas", 0);
	if (spec > lab)
		set(out, KUBE_STATUS_IN_PROGRESS, "Labelled: %lld/%lld", lab, spec);
	else if (spec > av)
		set(out, KUBE_STATUS_IN_PROGRESS, "Available: %lld/%lld", av, spec);
	else if (spec > rdy)
		set(out, KUBE_STATUS_IN_PROGRESS, "Ready: %lld/%lld", rdy, spec);
	else if (st > spec)
		set(out, KUBE_STATUS_IN_PROGRESS, "Pending termination: %lld", st - spec);
	else
		set(out, KUBE_STATUS_CURRENT, "ReplicaSet is available. Replicas: %lld", st);
}

/* "2026-01-02T03:04:05Z" -> seconds since the epoch, or -1. */
static long long parse_time(const char *s)
{
	struct tm tm = {0};
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	           &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static void pod(const json_t *o, kube_ready *out)
{
	const char *phase = str_field(o, "status.phase", "");
	if (!strcmp(phase, "Succeeded")) {
		set(out, KUBE_STATUS_CURRENT, "Pod has completed successfully");
	} else if (!strcmp(phase, "Failed")) {
		set(out, KUBE_STATUS_CURRENT, "Pod has completed, but not successfully");
	} else if (!strcmp(phase, "Running")) {
		if (cond_is(o, "Ready", "True")) {
			set(out, KUBE_STATUS_CURRENT, "Pod is Ready");
			return;
		}
		char crash[200] = "";
		json_t *css = field(o, "status.containerStatuses");
		size_t i;
		json_t *cs;
		json_array_foreach(css, i, cs) {
			const char *name = json_string_value(json_object_get(cs, "name"));
			const char *r = str_field(cs, "state.waiting.reason", "");
			if (name && !strcmp(r, "CrashLoopBackOff")) {
				size_t l = strlen(crash);
				snprintf(crash + l, sizeof crash - l, "%s%s", l ? "," : "", name);
			}
		}
		if (crash[0])
			set(out, KUBE_STATUS_FAILED, "Containers in CrashLoop state: %s", crash);
		else
			set(out, KUBE_STATUS_IN_PROGRESS, "Pod is running but is not Ready");
	} else if (!strcmp(phase, "Pending")) {
		json_t *c = condition(o, "PodScheduled");
		if (c && !strcmp(cstr(c, "status"), "False") && !strcmp(cstr(c, "reason"), "Unschedulable")) {
			long long created = parse_time(str_field(o, "metadata.creationTimestamp", ""));
			if (created >= 0 && (long long)time(NULL) - 15 < created)
				set(out, KUBE_STATUS_IN_PROGRESS, "Pod has not been scheduled");
			else
				set(out, KUBE_STATUS_FAILED, "Pod could not be scheduled");
			return;
		}
		set(out, KUBE_STATUS_IN_PROGRESS, "Pod is in the Pending phase");
	} else if (!*phase) {
		set(out, KUBE_STATUS_IN_PROGRESS, "Pod phase not available");
	} else {
		set(out, KUBE_STATUS_UNKNOWN, "unknown phase %s", phase);
	}
}

static void job(const json_t *o, kube_ready *out)
{
	long long par = int_field(o, "spec.parallelism", 1), comp = int_field(o, "spec.completions", par);
	long long ok = int_field(o, "status.succeeded", 0), act = int_field(o, "status.active", 0);
	long long bad = int_field(o, "status.failed", 0);
	json_t *conds = field(o, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = cstr(c, "type");
		if (strcmp(cstr(c, "status"), "True"))
			continue;
		if (!strcmp(t, "Complete")) {
			set(out, KUBE_STATUS_CURRENT, "Job Completed. succeeded: %lld/%lld", ok, comp);
			return;
		}
		if (!strcmp(t, "Failed")) {
			set(out, KUBE_STATUS_FAILED, "Job Failed. failed: %lld/%lld", bad, comp);
			return;
		}
		if (!strcmp(t, "Suspended")) {
			set(out, KUBE_STATUS_CURRENT, "Job is suspended");
			return;
		}
	}
	if (!*str_field(o, "status.startTime", ""))
		set(out, KUBE_STATUS_IN_PROGRESS, "Job not started");
	else
		set(out, KUBE_STATUS_CURRENT, "Job in progress. success:%lld, active: %lld, failed: %lld", ok, act, bad);
}

static void crd(const json_t *o, kube_ready *out)
{
	json_t *conds = field(o, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = cstr(c, "type"), *s = cstr(c, "status");
		if (!strcmp(t, "NamesAccepted") && !strcmp(s, "False")) {
			set(out, KUBE_STATUS_FAILED, "%s", cstr(c, "message"));
			return;
		}
		if (!strcmp(t, "Established")) {
			if (!strcmp(s, "False") && strcmp(cstr(c, "reason"), "Installing")) {
				set(out, KUBE_STATUS_FAILED, "%s", cstr(c, "message"));
				return;
			}
			if (!strcmp(s, "True")) {
				set(out, KUBE_STATUS_CURRENT, "CRD is established");
				return;
			}
		}
	}
	set(out, KUBE_STATUS_IN_PROGRESS, "Install in progress");
}

static void service(const json_t *o, kube_ready *out)
{
	if (!strcmp(str_field(o, "spec.type", "ClusterIP"), "LoadBalancer") && !*str_field(o, "spec.clusterIP", ""))
		set(out, KUBE_STATUS_IN_PROGRESS, "ClusterIP not set. Service type: LoadBalancer");
	else
		set(out, KUBE_STATUS_CURRENT, "Service is ready");
}

/* Not a kstatus built-in: an APIService is served once Available=True. */
static void apiservice(const json_t *o, kube_ready *out)
{
	json_t *c = condition(o, "Available");
	if (c && !strcmp(cstr(c, "status"), "True"))
		set(out, KUBE_STATUS_CURRENT, "APIService is available");
	else
		set(out, KUBE_STATUS_IN_PROGRESS, "APIService not available%s%s", c ? ": " : "", c ? cstr(c, "message") : "");
}

static int ready_condition(const json_t *o, kube_ready *out)
{
	json_t *c = condition(o, "Ready");
	if (!c)
		return 0;
	const char *s = cstr(c, "status");
	if (!strcmp(s, "True"))
		set(out, KUBE_STATUS_CURRENT, "Resource is Ready");
	else if (!strcmp(s, "False") || !strcmp(s, "Unknown"))
		set(out, KUBE_STATUS_IN_PROGRESS, "%s", cstr(c, "message"));
	else
		return 0;
	return 1;
}

static void compute(const json_t *obj, kube_ready *out)
{
	out->message[0] = 0;
	if (!json_is_object(obj)) {
		set(out, KUBE_STATUS_UNKNOWN, "not an object");
		return;
	}
	if (generic(obj, out))
		return;
	const char *av = str_field(obj, "apiVersion", "");
	const char *slash = strchr(av, '/');
	char group[128] = "";
	if (slash)
		snprintf(group, sizeof group, "%.*s", (int)(slash - av), av);
	const char *k = kind_of(obj);
	int core = !group[0], apps = !strcmp(group, "apps"), ext = !strcmp(group, "extensions");
	if (core && !strcmp(k, "Service"))
		service(obj, out);
	else if (core && !strcmp(k, "Pod"))
		pod(obj, out);
	else if ((core && (!strcmp(k, "Secret") || !strcmp(k, "ConfigMap"))) ||
	         (!strcmp(group, "batch") && !strcmp(k, "CronJob")))
		set(out, KUBE_STATUS_CURRENT, "Resource is always ready");
	else if (core && !strcmp(k, "PersistentVolumeClaim")) {
		const char *phase = str_field(obj, "status.phase", "unknown");
		if (strcmp(phase, "Bound"))
			set(out, KUBE_STATUS_IN_PROGRESS, "PVC is not Bound. phase: %s", phase);
		else
			set(out, KUBE_STATUS_CURRENT, "PVC is Bound");
	} else if (apps && !strcmp(k, "StatefulSet"))
		statefulset(obj, out);
	else if ((apps || ext) && !strcmp(k, "DaemonSet"))
		daemonset(obj, out);
	else if ((apps || ext) && !strcmp(k, "Deployment"))
		deployment(obj, out);
	else if ((apps || ext) && !strcmp(k, "ReplicaSet"))
		replicaset(obj, out);
	else if (!strcmp(group, "policy") && !strcmp(k, "PodDisruptionBudget"))
		set(out, KUBE_STATUS_CURRENT, "AllowedDisruptions has been computed.");
	else if (!strcmp(group, "batch") && !strcmp(k, "Job"))
		job(obj, out);
	else if (!strcmp(group, "apiextensions.k8s.io") && !strcmp(k, "CustomResourceDefinition"))
		crd(obj, out);
	else if (!strcmp(group, "apiregistration.k8s.io") && !strcmp(k, "APIService"))
		apiservice(obj, out);
	else if (!ready_condition(obj, out))
		set(out, KUBE_STATUS_CURRENT, "Resource is current");
}

void kube_ready_compute(const json_t *obj, kube_ready *out)
{
	compute(obj, out);
}

static int is_kind(const json_t *obj, const char *group, const char *kind)
{
	const char *av = str_field(obj, "apiVersion", "");
	const char *slash = strchr(av, '/');
	size_t glen = slash ? (size_t)(slash - av) : 0;
	return !strcmp(kind_of(obj), kind) && strlen(group) == glen && !strncmp(av, group, glen);
}

/* Helm's internal/statusreaders job reader: no generic checks, Current only
 * when complete. */
static void helm_job(const json_t *o, kube_ready *out)
{
	long long par = int_field(o, "spec.parallelism", 1), comp = int_field(o, "spec.completions", par);
	long long ok = int_field(o, "status.succeeded", 0), bad = int_field(o, "status.failed", 0);
	json_t *conds = field(o, "status.conditions");
	size_t i;
	json_t *c;
	json_array_foreach(conds, i, c) {
		const char *t = cstr(c, "type");
		if (strcmp(cstr(c, "status"), "True"))
			continue;
		if (!strcmp(t, "Complete")) {
			set(out, KUBE_STATUS_CURRENT, "Job Completed. succeeded: %lld/%lld", ok, comp);
			return;
		}
		if (!strcmp(t, "Failed")) {
			set(out, KUBE_STATUS_FAILED, "Job Failed. failed: %lld/%lld", bad, comp);
			return;
		}
	}
	set(out, KUBE_STATUS_IN_PROGRESS, "Job in progress");
}

void kube_ready_compute_jobs(const json_t *obj, kube_ready *out)
{
	out->message[0] = 0;
	if (json_is_object(obj) && is_kind(obj, "batch", "Job"))
		helm_job(obj, out);
	else
		compute(obj, out);
}

void kube_ready_compute_hook(const json_t *obj, kube_ready *out)
{
	out->message[0] = 0;
	if (!json_is_object(obj)) {
		set(out, KUBE_STATUS_UNKNOWN, "not an object");
	} else if (is_kind(obj, "batch", "Job")) {
		helm_job(obj, out);
	} else if (is_kind(obj, "", "Pod")) {
		const char *phase = str_field(obj, "status.phase", "");
		const char *name = str_field(obj, "metadata.name", "");
		if (!strcmp(phase, "Succeeded"))
			set(out, KUBE_STATUS_CURRENT, "pod %s succeeded", name);
		else if (!strcmp(phase, "Failed"))
			set(out, KUBE_STATUS_FAILED, "pod %s failed", name);
		else
			set(out, KUBE_STATUS_IN_PROGRESS, "Pod in progress");
	} else {
		set(out, KUBE_STATUS_CURRENT, "Resource is current");
	}
}
