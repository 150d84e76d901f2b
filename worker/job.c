/* worker/job.c — see job.h. */
#include "worker/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helm/release.h"
#include "lib/buf.h"
#include "worker/chart.h"
#include "worker/yamlmin.h"

#define FIELD_MANAGER "helm-controller"

/* Helm's InstallOrder (pkg/release/v1/util/kind_sorter.go). */
static const char *const install_order[] = {
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
	"ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding",
	"RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
};

typedef struct doc {
	char *source; /* "<chart>/templates/x.yaml" */
	char *text;   /* trimmed document */
	json_t *obj;
	const char *kind;
	int rank;
	size_t seq;
} doc;

static int kind_rank(const char *kind)
{
	for (size_t i = 0; i < sizeof install_order / sizeof install_order[0]; i++)
		if (kind && strcmp(kind, install_order[i]) == 0)
			return (int)i;
	return (int)(sizeof install_order / sizeof install_order[0]);
}

static int doc_cmp(const void *a, const void *b)
{
	const doc *x = a, *y = b;
	int c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->rank == (int)(sizeof install_order / sizeof install_order[0]) &&
	    (c = strcmp(x->kind ? x->kind : "", y->kind ? y->kind : "")) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(chart_file *const *)a)->name, (*(chart_file *const *)b)->name);
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return strndup(s, n);
}

static void docs_free(doc *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].source);
		free(d[i].text);
		json_decref(d[i].obj);
	}
	free(d);
}

/* Parses one document text into d[*nd] (skipped when blank or only comments). */
static int add_doc(worker_chart *ch, chart_file *f, const char *p, size_t n, doc **d, size_t *nd, size_t *cap,
		   bh_error *err)
{
	char *text = trim_dup(p, n);
	doc *x;
	int rc;
	if (!text)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (*text == '\0') {
		free(text);
		return 0;
	}
	if (*nd == *cap) {
		doc *nd2 = realloc(*d, (*cap ? *cap * 2 : 16) * sizeof *nd2);
		if (!nd2) {
			free(text);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		*d = nd2;
		*cap = *cap ? *cap * 2 : 16;
	}
	x = &(*d)[*nd];
	memset(x, 0, sizeof *x);
	x->text = text;
	x->seq = *nd;
	if (asprintf(&x->source, "%s/%s", ch->name, f->name) < 0)
		x->source = NULL;
	(*nd)++;
	if ((rc = yamlmin_parse(text, strlen(text), &x->obj, err)) < 0)
		return bh_error_prefix(err, "YAML parse error on %s", x->source ? x->source : f->name);
	if (json_is_null(x->obj)) { /* only comments */
		json_decref(x->obj);
		free(x->text);
		free(x->source);
		(*nd)--;
		return 0;
	}
	if (!json_is_object(x->obj) || !json_is_string(json_object_get(x->obj, "kind")) ||
	    !json_is_string(json_object_get(x->obj, "apiVersion")))
		return bh_error_set(err, BH_EINVAL, "%s: a manifest needs apiVersion and kind", x->source ? x->source : f->name);
	x->kind = json_string_value(json_object_get(x->obj, "kind"));
	x->rank = kind_rank(x->kind);
	return 0;
}

/* Splits the chart's templates into manifest documents, sorted in install
 * order. Templates must be plain manifests in this skeleton. */
static int render_plain(worker_chart *ch, doc **out, size_t *nout, bh_error *err)
{
	chart_file **t = calloc(ch->nfiles ? ch->nfiles : 1, sizeof *t);
	doc *d = NULL;
	size_t nt = 0, nd = 0, cap = 0;
	int rc = 0;
	if (!t)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	for (size_t i = 0; i < ch->nfiles; i++) {
		const char *n = ch->files[i].name, *base;
		if (strncmp(n, "templates/", 10) != 0)
			continue;
		base = strrchr(n, '/') + 1;
		if (base[0] == '_' || strcmp(base, "NOTES.txt") == 0)
			continue;
		t[nt++] = &ch->files[i];
	}
	qsort(t, nt, sizeof *t, name_cmp);
	for (size_t i = 0; i < nt && rc == 0; i++) {
		const char *s = (const char *)t[i]->data, *end = s + t[i]->len, *ds = s, *line = s;
		if (strstr(s, "{{")) {
			rc = bh_error_set(err, BH_EINVAL, "%s/%s: template actions are not supported yet "
					  "(this worker installs charts whose templates are plain manifests)", ch->name, t[i]->name);
			break;
		}
		/* documents are separated by lines starting with "---" */
		for (;;) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			const char *lend = nl ? nl + 1 : end;
			int sep = end - line >= 3 && memcmp(line, "---", 3) == 0;
			if (sep || line >= end) {
				if ((rc = add_doc(ch, t[i], ds, (size_t)(line - ds), &d, &nd, &cap, err)) < 0)
					break;
				ds = lend;
			}
			if (line >= end)
				break;
			line = lend;
		}
	}
	free(t);
	if (rc < 0) {
		docs_free(d, nd);
		return rc;
	}
	qsort(d, nd, sizeof *d, doc_cmp);
	*out = d;
	*nout = nd;
	return 0;
}

static void now_rfc3339(char out[40])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	release_time_format((long long)ts.tv_sec, ts.tv_nsec, out);
}

static const kube_resource secrets = {"", "v1", "secrets", "Secret", 1};

/* Highest stored version of release name in ns (0 if none); *deployed gets
 * a new reference to the highest "deployed" record's Secret, if any. */
static int last_version(kube_client *kc, const char *ns, const char *name, json_t **deployed, bh_error *err)
{
	char sel[512];
	kube_list_opts lo = {0};
	json_t *list = NULL, *it;
	size_t i;
	int max = 0, dv = 0, rc;
	*deployed = NULL;
	snprintf(sel, sizeof sel, "name=%s,owner=helm", name);
	lo.label_selector = sel;
	if ((rc = kube_list(kc, &secrets, ns, &lo, &list, err)) < 0)
		return rc;
	json_array_foreach(json_object_get(list, "items"), i, it) {
		json_t *lb = json_object_get(json_object_get(it, "metadata"), "labels");
		const char *vs = json_string_value(json_object_get(lb, "version"));
		const char *st = json_string_value(json_object_get(lb, "status"));
		int v = vs ? atoi(vs) : 0;
		if (v > max)
			max = v;
		if (st && strcmp(st, "deployed") == 0 && v > dv) {
			dv = v;
			json_decref(*deployed);
			*deployed = json_incref(it);
		}
	}
	json_decref(list);
	return max;
}

/* Writes (create or replace) the storage Secret of rel. */
static int store(kube_client *kc, const json_t *rel, int create, bh_error *err)
{
	struct timespec ts;
	json_t *sec, *out = NULL;
	const char *ns = json_string_value(json_object_get(rel, "namespace"));
	int rc;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (!(sec = release_secret_new(rel, (long long)ts.tv_sec, err)))
		return err ? err->code : BH_ENOMEM;
	if (!create) {
		char buf[32];
		snprintf(buf, sizeof buf, "%lld", (long long)ts.tv_sec);
		json_object_set_new(json_object_get(json_object_get(sec, "metadata"), "labels"), "modifiedAt", json_string(buf));
		rc = kube_update(kc, &secrets, ns, sec, NULL, &out, err);
		if (rc == BH_EUNAVAIL) { /* the record of the outcome must not be lost to a transient error */
			json_decref(out);
			out = NULL;
			rc = kube_update(kc, &secrets, ns, sec, NULL, &out, err);
		}
	} else {
		rc = kube_create(kc, &secrets, ns, sec, NULL, &out, err);
	}
	json_decref(out);
	json_decref(sec);
	if (rc < 0)
		bh_error_prefix(err, "storing release %s version %d", json_string_value(json_object_get(rel, "name")),
				(int)json_integer_value(json_object_get(rel, "version")));
	return rc;
}

static int apply_docs(kube_client *kc, doc *d, size_t nd, const char *rel_name, const char *rel_ns, bh_error *err)
{
	for (size_t i = 0; i < nd; i++) {
		kube_resource r;
		kube_write_opts wo = {FIELD_MANAGER, 1, 0, NULL};
		json_t *md = json_object_get(d[i].obj, "metadata"), *lb, *an, *out = NULL;
		const char *name = json_string_value(json_object_get(md, "name")), *ns;
		int rc;
		if (!json_is_object(md) || !name || !*name)
			return bh_error_set(err, BH_EINVAL, "%s: %s has no metadata.name", d[i].source, d[i].kind);
		if ((rc = kube_mapping_for_object(kc, d[i].obj, &r, err)) < 0)
			return bh_error_prefix(err, "%s", d[i].source);
		ns = json_string_value(json_object_get(md, "namespace"));
		if (r.namespaced && (!ns || !*ns)) {
			json_object_set_new(md, "namespace", json_string(rel_ns));
			ns = rel_ns;
		}
		if (!json_is_object(lb = json_object_get(md, "labels"))) {
			lb = json_object();
			json_object_set_new(md, "labels", lb);
		}
		json_object_set_new(lb, "app.kubernetes.io/managed-by", json_string("Helm"));
		if (!json_is_object(an = json_object_get(md, "annotations"))) {
			an = json_object();
			json_object_set_new(md, "annotations", an);
		}
		json_object_set_new(an, "meta.helm.sh/release-name", json_string(rel_name));
		json_object_set_new(an, "meta.helm.sh/release-namespace", json_string(rel_ns));
		rc = kube_apply(kc, &r, r.namespaced ? ns : NULL, d[i].obj, &wo, &out, err);
		json_decref(out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static json_t *result_new(int ready, const char *reason, const char *message, const char *action)
{
	json_t *r = json_pack("{s:b,s:s,s:s}", "ready", ready, "reason", reason, "message", message);
	if (r && action)
		json_object_set_new(r, "action", json_string(action));
	return r;
}

static json_t *snapshot(const json_t *rel, worker_chart *ch)
{
	json_t *info = json_object_get(rel, "info");
	json_t *s = json_pack("{s:O,s:O,s:O,s:O,s:s,s:s}", "name", json_object_get(rel, "name"), "namespace",
			      json_object_get(rel, "namespace"), "version", json_object_get(rel, "version"), "status",
			      json_object_get(info, "status"), "chartName", ch->name, "chartVersion", ch->version);
	if (ch->app_version)
		json_object_set_new(s, "appVersion", json_string(ch->app_version));
	json_object_set(s, "firstDeployed", json_object_get(info, "first_deployed"));
	json_object_set(s, "lastDeployed", json_object_get(info, "last_deployed"));
	return s;
}

int worker_job_run(kube_client *kc, const json_t *job, const unsigned char *chart, size_t chart_len,
		   json_t **result, bh_error *err)
{
	const json_t *hr = json_object_get(job, "helmRelease");
	const json_t *spec = json_object_get(hr, "spec");
	const char *rname = json_string_value(json_object_get(job, "releaseName"));
	const char *rns = json_string_value(json_object_get(job, "releaseNamespace"));
	const char *sns = json_string_value(json_object_get(job, "storageNamespace"));
	worker_chart *ch = NULL;
	doc *d = NULL;
	size_t nd = 0;
	bh_buf manifest = BH_BUF_INIT;
	json_t *templates = NULL, *rel = NULL, *prev = NULL, *config;
	char msg[2048], when[40], first[40];
	const char *action = "install";
	int version, rc;
	bh_error e;

	*result = NULL;
	if (!rname || !rns || !sns || !json_is_object(spec))
		return bh_error_set(err, BH_EPROTO, "job is missing releaseName, releaseNamespace, storageNamespace or spec");
	if (json_array_size(json_object_get(spec, "valuesFrom")) > 0) {
		*result = result_new(0, "InitFailed", ".spec.valuesFrom is not supported yet by bulkhead", NULL);
		return 0;
	}
	config = json_object_get(spec, "values");
	if ((rc = worker_chart_load(chart, chart_len, &ch, &e)) < 0) {
		snprintf(msg, sizeof msg, "could not load chart: %.1000s", e.msg);
		*result = result_new(0, "ArtifactFailed", msg, NULL);
		return 0;
	}
	if ((rc = render_plain(ch, &d, &nd, &e)) < 0) {
		snprintf(msg, sizeof msg, "Helm install failed for release %s/%s with chart %s@%s: %.1000s", rns, rname,
			 ch->name, ch->version, e.msg);
		*result = result_new(0, "InstallFailed", msg, "install");
		goto done;
	}
	for (size_t i = 0; i < nd; i++)
		bh_buf_printf(&manifest, "---\n# Source: %s\n%s\n", d[i].source, d[i].text);
	templates = json_array();
	for (size_t i = 0; i < ch->nfiles; i++)
		if (strncmp(ch->files[i].name, "templates/", 10) == 0) {
			char *b = release_base64_new(ch->files[i].data, ch->files[i].len);
			json_array_append_new(templates, json_pack("{s:s,s:s}", "name", ch->files[i].name, "data", b ? b : ""));
			free(b);
		}
	if ((version = last_version(kc, sns, rname, &prev, &e)) < 0) {
		snprintf(msg, sizeof msg, "failed to read release storage of %s/%s: %.1000s", sns, rname, e.msg);
		*result = result_new(0, "InstallFailed", msg, NULL);
		goto done;
	}
	if (version > 0)
		action = "upgrade";
	version++;
	now_rfc3339(when);
	snprintf(first, sizeof first, "%s", when);
	{
		release_fields f = {
			.name = rname, .namespace_ = rns, .version = version,
			.status = version == 1 ? "pending-install" : "pending-upgrade",
			.description = version == 1 ? "Initial install underway" : "Preparing upgrade",
			.first_deployed = first, .last_deployed = when, .chart_metadata = ch->metadata,
			.chart_templates = templates, .chart_values = ch->values, .config = config,
			.manifest = manifest.data ? manifest.data : "", .apply_method = "ssa",
		};
		rel = release_json_new(&f, &e);
	}
	if (!rel || (rc = store(kc, rel, 1, &e)) < 0) {
		snprintf(msg, sizeof msg, "Helm %s failed for release %s/%s with chart %s@%s: %.1000s", action, rns, rname,
			 ch->name, ch->version, e.msg);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		goto done;
	}
	rc = apply_docs(kc, d, nd, rname, rns, &e);
	{
		json_t *info = json_object_get(rel, "info");
		char desc[1400];
		if (rc < 0) {
			snprintf(desc, sizeof desc, "Release \"%s\" failed: %.1000s", rname, e.msg);
			json_object_set_new(info, "status", json_string("failed"));
		} else {
			snprintf(desc, sizeof desc, "%s complete", version == 1 ? "Install" : "Upgrade");
			json_object_set_new(info, "status", json_string("deployed"));
		}
		json_object_set_new(info, "description", json_string(desc));
	}
	if (rc < 0) {
		bh_error e2;
		snprintf(msg, sizeof msg, "Helm %s failed for release %s/%s with chart %s@%s: %.1000s", action, rns, rname,
			 ch->name, ch->version, e.msg);
		store(kc, rel, 0, &e2);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		json_object_set_new(*result, "release", snapshot(rel, ch));
		goto done;
	}
	if (prev) { /* the previous deployed release becomes superseded */
		const char *data = json_string_value(json_object_get(json_object_get(prev, "data"), "release"));
		bh_buf raw = BH_BUF_INIT;
		json_t *old = NULL;
		bh_error e2;
		if (data && release_base64_decode(data, strlen(data), &raw, &e2) == 0 &&
		    release_decode(raw.data ? raw.data : "", raw.len, &old, &e2) == 0) {
			json_object_set_new(json_object_get(old, "info"), "status", json_string("superseded"));
			store(kc, old, 0, &e2);
		}
		json_decref(old);
		bh_buf_free(&raw);
	}
	if ((rc = store(kc, rel, 0, &e)) < 0) {
		snprintf(msg, sizeof msg, "Helm %s failed for release %s/%s with chart %s@%s: %.1000s", action, rns, rname,
			 ch->name, ch->version, e.msg);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		goto done;
	}
	snprintf(msg, sizeof msg, "Helm %s succeeded for release %s/%s.v%d with chart %s@%s", action, rns, rname, version,
		 ch->name, ch->version);
	*result = result_new(1, version == 1 ? "InstallSucceeded" : "UpgradeSucceeded", msg, action);
	json_object_set_new(*result, "release", snapshot(rel, ch));
done:
	json_decref(prev);
	json_decref(rel);
	json_decref(templates);
	bh_buf_free(&manifest);
	docs_free(d, nd);
	worker_chart_free(ch);
	if (!*result)
		return bh_error_set(err, BH_ENOMEM, "out of memory building the result");
	return 0;
}
