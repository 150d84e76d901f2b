/* helm/action_internal.h — shared by helm/action*.c only. */
#ifndef BH_HELM_ACTION_INTERNAL_H
#define BH_HELM_ACTION_INTERNAL_H

#include <stdarg.h>

#include "helm/action.h"
#include "helm/action_objects.h"
#include "helm/render.h"
#include "helm/storage.h"

void act_log(const action_config *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *act_manager(const action_config *cfg);
/* The namespace of the history Secrets of a release in namespace ns. */
const char *act_storage_ns(const action_config *cfg, const char *ns);
long act_timeout(const action_wait *w);
/* Starts the report; checks the release name (Helm's rules) and namespace. */
int act_report_init(action_result *res, const char *action, const char *name, const char *ns, bh_error *err);
void act_report_release(action_result *res, const json_t *rel);
json_t *act_objects(action_result *res);
json_t *act_hooks(action_result *res);

int act_apply(const action_config *cfg, json_t *obj, const kube_resource *r, int force_conflicts, int replace,
	      bh_error *err);
int act_wait(const action_config *cfg, const objlist *l, const action_wait *w, bh_error *err);
int act_delete(const action_config *cfg, const json_t *o, const kube_resource *r, const char *propagation,
	       bh_error *err);
int act_delete_removed(const action_config *cfg, const objlist *old, const objlist *cur, json_t *objects,
		       bh_error *err);
int act_check_conflicts(const action_config *cfg, const char *rel, const char *ns, const objlist *tgt,
			const objlist *old, int take_ownership, const char *what, unsigned char *exists, bh_error *err);
/* 1 when rel was applied client-side (apply_method "" or "csa"). */
int act_is_csa(const json_t *rel);
int act_apply_all(const action_config *cfg, const char *rel, const char *ns, objlist *tgt,
		  const unsigned char *exists, int force_conflicts, int replace, int from_csa, json_t *objects,
		  bh_error *err);
int act_render(const action_config *cfg, chart *c, const json_t *values, const char *name, const char *ns,
	       int revision, int is_upgrade, int skip_schema, render_result *rr, json_t **chart_json, bh_error *err);
json_t *act_release_new(const chart *c, const json_t *chart_json, const render_result *rr, const char *name,
			const char *ns, int version, const char *status, const char *desc, const char *first,
			const json_t *config, bh_error *err);
/* Runs the hooks of event; err gets "<event> hooks failed: ...". */
int act_run_hooks(const action_config *cfg, json_t *rel, const char *event, long timeout_ms, action_result *res,
		  bh_error *err);

#endif
