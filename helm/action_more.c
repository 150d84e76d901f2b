/* helm/action_more.c — rollback, uninstall, test and unlock (see action.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/action_internal.h"
#include "helm/hooks.h"
#include "helm/sort.h"
#include "kube/wait.h"

/* ---- rollback ----------------------------------------------------------- */

/* --recreate: delete the Pods of the release's workloads so they restart. */
static int recreate_pods(const action_config *cfg, const objlist *l, json_t *objects, bh_error *err)
{
	static const kube_resource pods = {"", "v1", "pods", "Pod", 1};
	for (size_t i = 0; i < l->n; i++) {
		const char *k = l->r[i].kind;
		json_t *ml, *list = NULL, *p;
		bh_buf sel = BH_BUF_INIT;
		const char *key;
		size_t j;
		int rc;
		if (strcmp(k, "Deployment") && strcmp(k, "StatefulSet") && strcmp(k, "DaemonSet") && strcmp(k, "ReplicaSet"))
			continue;
		ml = json_object_get(json_object_get(json_object_get(l->obj[i], "spec"), "selector"), "matchLabels");
		json_t *v;
		json_object_foreach(ml, key, v) bh_buf_printf(&sel, "%s%s=%s", sel.len ? "," : "", key, json_string_value(v));
		if (!sel.len) {
			bh_buf_free(&sel);
			continue;
		}
		kube_list_opts lo = {.label_selector = sel.data};
		rc = kube_list(cfg->kc, &pods, obj_ns(l->obj[i]), &lo, &list, err);
		bh_buf_free(&sel);
		if (rc < 0)
			return rc;
		json_array_foreach(json_object_get(list, "items"), j, p) {
			if (!json_object_get(p, "kind"))
				json_object_set_new(p, "kind", json_string("Pod"));
			if (!json_object_get(p, "apiVersion"))
				json_object_set_new(p, "apiVersion", json_string("v1"));
			if ((rc = act_delete(cfg, p, &pods, "Background", err)) < 0) {
				json_decref(list);
				return rc;
			}
			obj_report(objects, "recreate", p);
		}
		json_decref(list);
	}
	return 0;
}

int action_rollback(const action_config *cfg, const action_rollback_opts *o, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *cur, *prev = NULL, *rel = NULL;
	objlist tgt = {0}, old = {0};
	unsigned char *exists = NULL;
	int rc, pruned = 0;
	char desc[BH_ERROR_MSG_MAX + 200], now[40];
	if ((rc = act_report_init(res, "rollback", o->name, o->namespace_, err)) < 0)
		return rc;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, &hist, err)) < 0)
		return rc;
	if (!(cur = storage_last(hist))) {
		json_decref(hist);
		return bh_error_set(err, BH_ENOTFOUND, "release: not found");
	}
	if (rel_status_is_pending(rel_status(cur))) {
		json_decref(hist);
		return bh_error_set(err, BH_ECONFLICT, "another operation (install/upgrade/rollback) is in progress");
	}
	if (o->version > 0) {
		prev = storage_version(hist, o->version);
		if (!prev) {
			json_decref(hist);
			return bh_error_set(err, BH_ENOTFOUND, "release: not found");
		}
	} else { /* the newest successful version before the current one */
		for (size_t i = json_array_size(hist); i-- > 0;) {
			json_t *h = json_array_get(hist, i);
			const char *st = rel_status(h);
			if (rel_version(h) < rel_version(cur) && (!strcmp(st, "superseded") || !strcmp(st, "deployed"))) {
				prev = h;
				break;
			}
		}
		if (!prev) {
			json_decref(hist);
			return bh_error_set(err, BH_ENOTFOUND, "release %s has no previous successful version to roll back to",
					    o->name);
		}
	}
	act_log(cfg, "rolling back %s to version %d", o->name, rel_version(prev));
	/* the target: the previous version's chart, config, manifest, hooks */
	rel = json_deep_copy(prev);
	json_object_set_new(rel, "version", json_integer(rel_version(cur) + 1));
	storage_now(now);
	rel_info_set(rel, "first_deployed",
		     json_string_value(json_object_get(json_object_get(cur, "info"), "first_deployed")));
	rel_info_set(rel, "last_deployed", now);
	rel_info_set(rel, "deleted", NULL);
	rel_info_set(rel, "status", "pending-rollback");
	snprintf(desc, sizeof desc, "Rollback to %d", rel_version(prev));
	rel_info_set(rel, "description", desc);
	rel_set(rel, "apply_method", json_string("ssa"));
	{ /* hooks start afresh */
		size_t i;
		json_t *h;
		json_array_foreach(json_object_get(rel, "hooks"), i, h) json_object_set_new(h, "last_run",
											     json_pack("{s:s}", "phase", ""));
	}
	if ((rc = objlist_parse(cfg->kc, json_string_value(json_object_get(rel, "manifest")), o->namespace_, 0, &tgt,
				err)) < 0)
		goto out;
	if ((rc = objlist_parse(cfg->kc, json_string_value(json_object_get(cur, "manifest")), o->namespace_, 1, &old,
				err)) < 0)
		goto out;
	if (!(exists = calloc(tgt.n + 1, 1))) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = act_check_conflicts(cfg, o->name, o->namespace_, &tgt, &old, 1, "rollback", exists, err)) < 0)
		goto out;
	if ((rc = storage_prune(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, o->max_history, &pruned, err)) < 0)
		goto out;
	json_object_set_new(res->report, "pruned", json_integer(pruned));
	if ((rc = storage_create(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "pre-rollback", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	if ((rc = act_apply_all(cfg, o->name, o->namespace_, &tgt, exists, 1, o->force, act_is_csa(cur),
				act_objects(res), err)) < 0)
		goto failed;
	if ((rc = act_delete_removed(cfg, &old, &tgt, act_objects(res), err)) < 0)
		goto failed;
	if (o->recreate && (rc = recreate_pods(cfg, &tgt, act_objects(res), err)) < 0)
		goto failed;
	if ((rc = act_wait(cfg, &tgt, &o->wait, err)) < 0)
		goto failed;
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "post-rollback", act_timeout(&o->wait), res, err)) < 0)
		goto failed;
	{ /* every deployed version becomes superseded */
		size_t i;
		json_t *h;
		bh_error e2;
		json_array_foreach(hist, i, h) {
			if (rel_version(h) != rel_version(rel) && !strcmp(rel_status(h), "deployed")) {
				rel_info_set(h, "status", "superseded");
				if (storage_update(cfg->kc, cfg->storage_namespace, h, &e2) < 0)
					act_log(cfg, "%s", e2.msg);
			}
		}
	}
	rel_info_set(rel, "status", "deployed");
	if ((rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	goto out;
failed:
	snprintf(desc, sizeof desc, "Rollback \"%s\" failed: %s", o->name, err ? err->msg : "");
	if (o->cleanup_on_fail) {
		bh_error e2;
		for (size_t i = 0; i < tgt.n; i++)
			if (!exists[i] && act_delete(cfg, tgt.obj[i], &tgt.r[i], "Background", &e2) == 0)
				obj_report(act_objects(res), "delete", tgt.obj[i]);
	}
	{
		bh_error e2;
		rel_info_set(cur, "status", "superseded");
		storage_update(cfg->kc, cfg->storage_namespace, cur, &e2);
		rel_info_set(rel, "status", "failed");
		rel_info_set(rel, "description", desc);
		storage_update(cfg->kc, cfg->storage_namespace, rel, &e2);
	}
	act_report_release(res, rel);
out:
	free(exists);
	objlist_free(&tgt);
	objlist_free(&old);
	json_decref(rel);
	json_decref(hist);
	return rc;
}

/* ---- uninstall ---------------------------------------------------------- */

/* Helm 4's UninstallOrder (pkg/release/v1/util/kind_sorter.go); unknown
 * kinds after the known ones, alphabetically; stable otherwise. */
static const char *const uninstall_order[] = {
	"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService", "Ingress", "IngressClass",
	"Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler", "Deployment", "ReplicaSet",
	"ReplicationController", "Pod", "DaemonSet", "RoleBindingList", "RoleBinding", "RoleList", "Role",
	"ClusterRoleBindingList", "ClusterRoleBinding", "ClusterRoleList", "ClusterRole", "CustomResourceDefinition",
	"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList", "Secret",
	"ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy",
	"Namespace", "PriorityClass",
};

struct uorder {
	size_t i;
	int key;
	const char *kind;
};

static int by_uninstall(const void *a, const void *b)
{
	const struct uorder *x = a, *y = b;
	int c;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->key == 1000 && (c = strcmp(x->kind, y->kind)))
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int uninstall_key(const char *kind)
{
	for (size_t k = 0; k < sizeof uninstall_order / sizeof uninstall_order[0]; k++)
		if (!strcmp(uninstall_order[k], kind))
			return (int)k;
	return 1000;
}

static const char *propagation_name(const char *p, bh_error *err)
{
	if (!p || !*p || !strcmp(p, "background"))
		return "Background";
	if (!strcmp(p, "foreground"))
		return "Foreground";
	if (!strcmp(p, "orphan"))
		return "Orphan";
	bh_error_set(err, BH_EINVAL, "invalid deletion propagation \"%s\" (want background, foreground or orphan)", p);
	return NULL;
}

int action_uninstall(const action_config *cfg, const action_uninstall_opts *o, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *rel;
	objlist l = {0};
	struct uorder *ord = NULL;
	const char *prop;
	int rc;
	char now[40];
	bh_buf errs = BH_BUF_INIT;
	if ((rc = act_report_init(res, "uninstall", o->name, o->namespace_, err)) < 0)
		return rc;
	if (!(prop = propagation_name(o->deletion_propagation, err)))
		return BH_EINVAL;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, &hist, err)) < 0)
		return rc;
	if (!(rel = storage_last(hist))) { /* storage already gone: nothing to do */
		json_object_set_new(res->report, "status", json_string("uninstalled"));
		json_object_set_new(res->report, "description", json_string("release not found in storage"));
		json_decref(hist);
		return 0;
	}
	if (!strcmp(rel_status(rel), "uninstalled")) {
		if (!o->keep_history) {
			size_t i;
			json_t *h;
			const char *sns = act_storage_ns(cfg, o->namespace_);
			json_array_foreach(hist, i, h) if ((rc = storage_delete(cfg->kc, sns, o->name, rel_version(h),
										err)) < 0) break;
			act_report_release(res, rel);
			json_decref(hist);
			return rc;
		}
		act_report_release(res, rel);
		json_decref(hist);
		return bh_error_set(err, BH_ECONFLICT, "the release named \"%s\" is already deleted", o->name);
	}
	storage_now(now);
	rel_info_set(rel, "status", "uninstalling");
	rel_info_set(rel, "deleted", now);
	rel_info_set(rel, "description", "Deletion in progress (or silently failed)");
	if ((rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err)) < 0)
		goto out;
	act_report_release(res, rel);
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "pre-delete", act_timeout(&o->wait), res, err)) < 0)
		goto out;
	if ((rc = objlist_parse(cfg->kc, json_string_value(json_object_get(rel, "manifest")), o->namespace_, 1, &l,
				err)) < 0)
		goto out;
	ord = calloc(l.n + 1, sizeof *ord);
	if (!ord) {
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		ord[i].i = i;
		ord[i].kind = l.r[i].kind;
		ord[i].key = uninstall_key(l.r[i].kind);
	}
	qsort(ord, l.n, sizeof *ord, by_uninstall);
	{
		objlist deleted = {calloc(l.n + 1, sizeof(json_t *)), calloc(l.n + 1, sizeof(kube_resource)), 0};
		for (size_t j = 0; j < l.n; j++) {
			json_t *o2 = l.obj[ord[j].i];
			const char *pol = json_string_value(json_object_get(
				json_object_get(json_object_get(o2, "metadata"), "annotations"), "helm.sh/resource-policy"));
			bh_error e2;
			if (pol) { /* filterManifestsToKeep: trimmed, lower-cased "keep" is kept */
				char t[32];
				size_t n = 0;
				while (*pol == ' ' || *pol == '\t')
					pol++;
				for (; *pol && n < sizeof t - 1; pol++)
					t[n++] = (char)(*pol >= 'A' && *pol <= 'Z' ? *pol + 32 : *pol);
				while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
					n--;
				t[n] = '\0';
				obj_report(act_objects(res), !strcmp(t, "keep") ? "keep" : "skip", o2);
				continue;
			}
			if (act_delete(cfg, o2, &l.r[ord[j].i], prop, &e2) < 0) {
				bh_buf_printf(&errs, "%s%s", errs.len ? "; " : "", e2.msg);
				continue;
			}
			obj_report(act_objects(res), !strcmp(prop, "Orphan") ? "orphan" : "delete", o2);
			if (deleted.obj) {
				deleted.obj[deleted.n] = json_incref(o2);
				deleted.r[deleted.n++] = l.r[ord[j].i];
			}
		}
		if (!o->wait.disable_wait && deleted.n) {
			kube_wait_opts wo = {KUBE_WAIT_DELETED, act_timeout(&o->wait), 0};
			act_log(cfg, "waiting for %zu resource(s) to be deleted", deleted.n);
			if (kube_wait(cfg->kc, deleted.obj, deleted.n, &wo, err) < 0)
				bh_buf_printf(&errs, "%s%s", errs.len ? "; " : "", err->msg);
		}
		objlist_free(&deleted);
	}
	if (!o->disable_hooks && (rc = act_run_hooks(cfg, rel, "post-delete", act_timeout(&o->wait), res, err)) < 0)
		bh_buf_printf(&errs, "%s%s", errs.len ? "; " : "", err->msg);
	rc = 0;
	rel_info_set(rel, "status", "uninstalled");
	rel_info_set(rel, "description",
		     o->description && *o->description ? o->description : "Uninstallation complete");
	act_report_release(res, rel);
	if (!o->keep_history) {
		size_t i;
		json_t *h;
		const char *sns = act_storage_ns(cfg, o->namespace_);
		json_array_foreach(hist, i, h) if ((rc = storage_delete(cfg->kc, sns, o->name, rel_version(h),
									 err)) < 0) break;
	} else {
		rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err);
	}
	if (rc == 0 && errs.len)
		rc = bh_error_set(err, BH_EEXEC, "uninstallation completed with error(s): %s", errs.data);
out:
	bh_buf_free(&errs);
	free(ord);
	objlist_free(&l);
	json_decref(hist);
	return rc;
}

/* ---- test --------------------------------------------------------------- */

static int test_skip(void *ud, const char *name)
{
	const char *const *f = ud;
	int include = 0, included = 0;
	for (; f && *f; f++) {
		if ((*f)[0] == '!') {
			if (!strcmp(*f + 1, name))
				return 1;
		} else {
			include = 1;
			if (!strcmp(*f, name))
				included = 1;
		}
	}
	return include && !included;
}

int action_test(const action_config *cfg, const action_test_opts *o, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *rel, *h;
	hooks_run_opts ho = {act_manager(cfg), o->timeout_ms > 0 ? o->timeout_ms : ACTION_DEFAULT_TIMEOUT_MS, 0,
			     test_skip, (void *)o->filters, cfg->storage_namespace};
	size_t i;
	int rc;
	if ((rc = act_report_init(res, "test", o->name, o->namespace_, err)) < 0)
		return rc;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, o->namespace_), o->name, &hist, err)) < 0)
		return rc;
	if (!(rel = storage_last(hist))) {
		json_decref(hist);
		return bh_error_set(err, BH_ENOTFOUND, "release: not found");
	}
	rc = hooks_run(cfg->kc, rel, "test", &ho, act_hooks(res), err);
	if (rc < 0) {
		json_array_foreach(act_hooks(res), i, h) {
			const char *ph = json_string_value(json_object_get(h, "phase"));
			if (ph && !strcmp(ph, "Failed")) {
				bh_error_prefix(err, "test hook %s (%s) failed", json_string_value(json_object_get(h, "name")),
						json_string_value(json_object_get(h, "kind")));
				break;
			}
		}
	}
	{
		bh_error e2;
		if (storage_update(cfg->kc, cfg->storage_namespace, rel, &e2) < 0 && rc == 0) {
			*err = e2;
			rc = e2.code;
		}
	}
	act_report_release(res, rel);
	json_decref(hist);
	return rc;
}

/* ---- unlock ------------------------------------------------------------- */

int action_unlock(const action_config *cfg, const char *name, const char *ns, action_result *res, bh_error *err)
{
	bh_error err_local; /* the descriptions need a message even when err is NULL */
	if (!err)
		err = &err_local;
	json_t *hist = NULL, *rel;
	char desc[200];
	int rc;
	if ((rc = act_report_init(res, "unlock", name, ns, err)) < 0)
		return rc;
	if ((rc = storage_history(cfg->kc, act_storage_ns(cfg, ns), name, &hist, err)) < 0)
		return rc;
	rel = storage_last(hist);
	if (!rel || !rel_status_is_pending(rel_status(rel))) {
		json_decref(hist);
		return bh_error_set(err, BH_ENOTFOUND, "release %s/%s is not in a pending state", ns, name);
	}
	snprintf(desc, sizeof desc, "Release unlocked from stale '%s' state", rel_status(rel));
	rel_info_set(rel, "status", "failed");
	rel_info_set(rel, "description", desc);
	rc = storage_update(cfg->kc, cfg->storage_namespace, rel, err);
	act_report_release(res, rel);
	json_decref(hist);
	return rc;
}
