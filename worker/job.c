/* worker/job.c — see job.h. */
#include "worker/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helm/chart.h"
#include "helm/release.h"
#include "helm/render.h"
#include "lib/buf.h"
#include "lib/yaml.h"
#include "kube/wait.h"

#define FIELD_MANAGER "helm-controller"

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

/* Applies one rendered document (server-side apply, field manager
 * helm-controller, forced, with Helm's ownership metadata). */
static int apply_doc(kube_client *kc, const char *source, const char *text, const char *rel_name, const char *rel_ns,
		     json_t *applied, bh_error *err)
{
	kube_resource r;
	kube_write_opts wo = {FIELD_MANAGER, 1, 0, NULL};
	json_t *obj = NULL, *md, *lb, *an, *out = NULL;
	const char *name, *ns, *kind;
	int rc;
	if ((rc = yaml_parse_any(text, strlen(text), NULL, YAML_KEEP_INTS, &obj, err)) < 0)
		return bh_error_prefix(err, "YAML parse error on %s", source);
	if (json_is_null(obj)) {
		json_decref(obj);
		return 0;
	}
	md = json_object_get(obj, "metadata");
	name = json_string_value(json_object_get(md, "name"));
	kind = json_string_value(json_object_get(obj, "kind"));
	if (!json_is_object(obj) || !kind || !json_is_object(md) || !name || !*name) {
		json_decref(obj);
		return bh_error_set(err, BH_EINVAL, "%s: a manifest needs apiVersion, kind and metadata.name", source);
	}
	if ((rc = kube_mapping_for_object(kc, obj, &r, err)) < 0) {
		json_decref(obj);
		return bh_error_prefix(err, "%s", source);
	}
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
	rc = kube_apply(kc, &r, r.namespaced ? ns : NULL, obj, &wo, &out, err);
	json_decref(out);
	if (rc == 0 && applied)
		json_array_append(applied, obj);
	json_decref(obj);
	return rc;
}

/* CRDs of crds/ first (Flux's install CRD policy "Create", applied), then
 * the manifests in install order. */
static int apply_all(kube_client *kc, const render_result *rr, const char *rel_name, const char *rel_ns, json_t *applied,
		     bh_error *err)
{
	int rc;
	for (size_t i = 0; i < rr->ncrds; i++) {
		char **docs = NULL;
		size_t n = 0;
		char *text = strndup((const char *)rr->crds[i].data, rr->crds[i].len);
		if (!text || manifest_split(text, &docs, &n) < 0) {
			free(text);
			return bh_error_set(err, BH_ENOMEM, "out of memory splitting %s", rr->crds[i].path);
		}
		free(text);
		rc = 0;
		for (size_t k = 0; k < n && rc == 0; k++)
			rc = apply_doc(kc, rr->crds[i].path, docs[k], rel_name, rel_ns, NULL, err);
		manifest_split_free(docs, n);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < rr->manifests.n; i++)
		if ((rc = apply_doc(kc, rr->manifests.v[i].path, rr->manifests.v[i].content, rel_name, rel_ns, applied, err)) < 0)
			return rc;
	return 0;
}

static json_t *files_json(const chart_file *f, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		char *b = release_base64_new(f[i].data, f[i].len);
		json_array_append_new(a, json_pack("{s:s,s:s}", "name", f[i].name, "data", b ? b : ""));
		free(b);
	}
	return a;
}

static json_t *result_new(int ready, const char *reason, const char *message, const char *action)
{
	json_t *r = json_pack("{s:b,s:s,s:s}", "ready", ready, "reason", reason, "message", message);
	if (r && action)
		json_object_set_new(r, "action", json_string(action));
	return r;
}

typedef struct chart_id {
	const char *name, *version, *app_version;
} chart_id;

static json_t *snapshot(const json_t *rel, const chart_id *ch)
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

int worker_job_run(kube_client *kc, const json_t *job, const unsigned char *chart_bytes, size_t chart_len,
		   json_t **result, bh_error *err)
{
	const json_t *hr = json_object_get(job, "helmRelease");
	const json_t *spec = json_object_get(hr, "spec");
	const char *rname = json_string_value(json_object_get(job, "releaseName"));
	const char *rns = json_string_value(json_object_get(job, "releaseNamespace"));
	const char *sns = json_string_value(json_object_get(job, "storageNamespace"));
	chart *c = NULL;
	chart_id id = {0};
	render_result rr;
	render_options ro;
	json_t *templates = NULL, *files = NULL, *rel = NULL, *prev = NULL, *applied = NULL, *config;
	char msg[2048], when[40], cname[256], cversion[256], cappv[256];
	const char *action = "install";
	int version, rc, rendered = 0;
	bh_error e;

	*result = NULL;
	memset(&rr, 0, sizeof rr);
	if (!rname || !rns || !sns || !json_is_object(spec))
		return bh_error_set(err, BH_EPROTO, "job is missing releaseName, releaseNamespace, storageNamespace or spec");
	if (json_array_size(json_object_get(spec, "valuesFrom")) > 0) {
		*result = result_new(0, "InitFailed", ".spec.valuesFrom is not supported yet by bulkhead", NULL);
		return 0;
	}
	config = json_object_get(spec, "values");
	if (config && !json_is_object(config)) {
		*result = result_new(0, "InitFailed", ".spec.values must be an object", NULL);
		return 0;
	}
	if ((rc = chart_load_archive(chart_bytes, chart_len, NULL, &c, &e)) < 0) {
		snprintf(msg, sizeof msg, "Could not load chart: %.1000s", e.msg);
		*result = result_new(0, "ArtifactFailed", msg, NULL);
		return 0;
	}
	snprintf(cname, sizeof cname, "%s", chart_name(c) ? chart_name(c) : "");
	snprintf(cversion, sizeof cversion, "%s", chart_version(c) ? chart_version(c) : "");
	snprintf(cappv, sizeof cappv, "%s", json_string_value(json_object_get(c->metadata, "appVersion"))
						 ? json_string_value(json_object_get(c->metadata, "appVersion")) : "");
	id.name = cname;
	id.version = cversion;
	id.app_version = cappv[0] ? cappv : NULL;
	if ((version = last_version(kc, sns, rname, &prev, &e)) < 0) {
		snprintf(msg, sizeof msg, "failed to read release storage of %s/%s: %.1000s", sns, rname, e.msg);
		*result = result_new(0, "InstallFailed", msg, NULL);
		goto done;
	}
	if (version > 0)
		action = "upgrade";
	version++;
	memset(&ro, 0, sizeof ro);
	ro.release_name = rname;
	ro.namespace_ = rns;
	ro.revision = version;
	ro.is_upgrade = version > 1;
	/* templates and values as loaded, before dependency processing */
	templates = files_json(c->templates, c->ntemplates);
	files = files_json(c->files, c->nfiles);
	rc = render_chart(c, config, &ro, &rr, &e);
	rendered = 1;
	if (rc == 0) {
		for (size_t i = 0; i < rr.hooks.n; i++)
			if (!manifest_is_test_hook(&rr.hooks.v[i])) {
				rc = bh_error_set(&e, BH_EINVAL, "%s: chart hooks are not supported yet by bulkhead (%s %s)",
						  rr.hooks.v[i].path, rr.hooks.v[i].kind, rr.hooks.v[i].name);
				break;
			}
	}
	if (rc < 0) {
		snprintf(msg, sizeof msg, "Helm %s failed for release %s/%s with chart %s@%s: %.1000s", action, rns, rname,
			 id.name, id.version, e.msg);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		goto done;
	}
	now_rfc3339(when);
	{
		release_fields f = {
			.name = rname, .namespace_ = rns, .version = version,
			.status = version == 1 ? "pending-install" : "pending-upgrade",
			.description = version == 1 ? "Initial install underway" : "Preparing upgrade",
			.first_deployed = when, .last_deployed = when, .notes = rr.notes,
			.chart_metadata = c->metadata, .chart_templates = templates, .chart_values = c->values,
			.chart_files = files, .config = config, .manifest = rr.manifest ? rr.manifest : "",
			.apply_method = "ssa",
		};
		rel = release_json_new(&f, &e);
	}
	if (!rel || (rc = store(kc, rel, 1, &e)) < 0) {
		snprintf(msg, sizeof msg, "Helm %s failed for release %s/%s with chart %s@%s: %.1000s", action, rns, rname,
			 id.name, id.version, e.msg);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		goto done;
	}
	applied = json_array();
	rc = apply_all(kc, &rr, rname, rns, applied, &e);
	if (rc == 0 && !json_is_true(json_object_get(json_object_get(spec, version == 1 ? "install" : "upgrade"), "disableWait"))) {
		/* Flux waits for the release's objects (kstatus) within .spec.timeout */
		json_int_t t = json_integer_value(json_object_get(job, "timeoutMs"));
		kube_wait_opts wo = {KUBE_WAIT_READY, t > 0 ? (long)(t * 8 / 10) : 0, 500};
		json_t **objs = calloc(json_array_size(applied) + 1, sizeof *objs);
		for (size_t i = 0; objs && i < json_array_size(applied); i++)
			objs[i] = json_array_get(applied, i);
		if (!objs)
			rc = bh_error_set(&e, BH_ENOMEM, "out of memory");
		else
			rc = kube_wait(kc, objs, json_array_size(applied), &wo, &e);
		free(objs);
	}
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
			 id.name, id.version, e.msg);
		store(kc, rel, 0, &e2);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		json_object_set_new(*result, "release", snapshot(rel, &id));
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
			 id.name, id.version, e.msg);
		*result = result_new(0, version == 1 ? "InstallFailed" : "UpgradeFailed", msg, action);
		goto done;
	}
	snprintf(msg, sizeof msg, "Helm %s succeeded for release %s/%s.v%d with chart %s@%s", action, rns, rname, version,
		 id.name, id.version);
	*result = result_new(1, version == 1 ? "InstallSucceeded" : "UpgradeSucceeded", msg, action);
	json_object_set_new(*result, "release", snapshot(rel, &id));
done:
	if (rendered)
		render_result_free(&rr);
	json_decref(prev);
	json_decref(rel);
	json_decref(applied);
	json_decref(templates);
	json_decref(files);
	chart_free(c);
	if (!*result)
		return bh_error_set(err, BH_ENOMEM, "out of memory building the result");
	return 0;
}
